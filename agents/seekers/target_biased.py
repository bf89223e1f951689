"""The target-biased seeker (SnipRec §4.2 / PEPPER A.3 style).

It knows its target's values (on a synthetic world the truth, not the partial catalog;
see `environments.target_facts`), its signature details, a summary of the target's
positive reviews and one review written by "its" user (withheld from the recommender's
catalog by the environment). It speaks in its own words (never the catalog's), one to
three aspects a turn, sometimes vaguely or by what it does not want, is sometimes unsure,
and never names the target (`agents.steps.seeker_answer` has the turn policy). Once
everything is said, a question about something said before is answered again; having had
nothing left to say twice, it ends the conversation (`quit`) rather than stall: on a small
review-only catalog the seeker used to repeat "That's about all I can think of." for the
rest of the episode.

Graph per turn: `prepare` (first turn only: summarise the reviews and turn the profile
into facts) → `answer` (pick and phrase what to say) → END.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agents.base import GraphAgent, TurnState
from agents.steps.clarify import OPEN_QUESTION
from agents.steps.review_facts import facts_from_reviews
from agents.steps.seeker_answer import GIVING_UP, NOTHING_LEFT, AnswerInput, Fact, SeekerAnswerStep, Wording
from agents.steps.summarize import SummarizeInput, SummarizeReviewsStep
from agents.steps.text import pick, split_sentences
from environments.base import SeekerObservation, SeekerReply
from environments.models import Role, Turn
from environments.single_target import TargetBiasedProfile
from environments.target_facts import TargetFact, plain_knowledge

# The seeker's own sentence frames. Each fits a bare value ("korean"), a noun phrase ("a
# date spot") and a clause-like want ("somewhere we can hear each other").
WANT_FORMS = (
    "Ideally {p}.",
    "{P} would be great.",
    "I'm thinking {p}.",
    "{P}, if possible.",
    "Preferably {p}.",
)
AVOID_FORMS = ("Anything but {p}.", "Just not {p}, please.", "I'd rather not have {p}.")
VAGUE_FORMS = ("{P}.", "Ideally {p}.", "{P}, if possible.")
SIGNATURE_FORMS = (
    "Someone mentioned a great {s}.",
    "I remember people raving about the {s}.",
    "The {s} is what I keep hearing about.",
)


class SeekerState(TurnState, total=False):
    facts: list[Fact]
    stated: list[str]


@dataclass(frozen=True, slots=True)
class SeekerContext:
    answer: SeekerAnswerStep
    summarize: SummarizeReviewsStep
    own_review_sentences: int


def profile_facts(profile: TargetBiasedProfile, summary: str, own_review_sentences: int) -> list[Fact]:
    """Its target's values and signatures, then what its own review, the summary and the
    positive reviews say (paraphrased, never quoted)."""
    knowledge = profile.knowledge if profile.knowledge.facts else plain_knowledge(profile.attributes)
    facts = [value_fact(fact, profile.target_id) for fact in knowledge.facts]
    facts += [Fact(f"sig:{s}", s, frame(pick(SIGNATURE_FORMS, s, profile.target_id), s=s), None,
                   ("signature", s, 1), salience=0.6) for s in knowledge.signatures]
    own = " ".join(split_sentences(profile.own_review)[:own_review_sentences])
    facts.extend(facts_from_reviews([own, summary, *profile.positive_reviews]))
    return facts


def value_fact(fact: TargetFact, target_id: str) -> Fact:
    """A target value with a plain wording and its vague and negative alternatives."""
    key = f"attr:{fact.aspect}={fact.value}"
    plain = frame(pick(WANT_FORMS, key, target_id), p=pick(fact.says, target_id, key))
    claim = (fact.aspect, fact.value, 1)
    vague = [Wording(frame(pick(VAGUE_FORMS, phrase, target_id), p=phrase), claim) for phrase in fact.vague]
    avoid = [Wording(frame(pick(AVOID_FORMS, other, target_id), p=pick(says, target_id)), (fact.aspect, other, -1))
             for other, says in fact.avoid]
    return Fact(key, f"{fact.aspect_display}: {fact.says[0]}", plain, fact.aspect, claim, tuple(vague + avoid),
                fact.salience)


def frame(form: str, **fill: str) -> str:
    """Fill a frame; `{P}` is the filler capitalised (a sentence may start with it)."""
    capitals = {key.upper(): value[:1].upper() + value[1:] for key, value in fill.items()}
    return form.format(**fill, **capitals)


def never_name(text: str, title: str) -> str:
    """The seeker must not name its target, whoever wrote the sentence (LLM or template)."""
    if not title.strip():
        return text
    return re.sub(re.escape(title), "that one", text, flags=re.IGNORECASE)


async def prepare(state: SeekerState, runtime: Runtime[SeekerContext]) -> dict[str, Any]:
    profile: TargetBiasedProfile = state["observation"].profile
    summary = await runtime.context.summarize.run(
        SummarizeInput(profile.positive_reviews, state["observation"].item_noun))
    return {"facts": profile_facts(profile, summary.summary, runtime.context.own_review_sentences),
            "stated": list(state.get("stated", []))}


async def answer(state: SeekerState, runtime: Runtime[SeekerContext]) -> dict[str, Any]:
    obs: SeekerObservation = state["observation"]
    last = obs.dialogue[-1]
    profile: TargetBiasedProfile = obs.profile
    result = await runtime.context.answer.run(AnswerInput(
        question=last.text, facts=state["facts"], stated=frozenset(state["stated"]),
        dialogue=obs.dialogue, item_noun=obs.item_noun, target_title=profile.title,
        open_question=bool(last.metadata.get("opening")) or last.text.strip() == OPEN_QUESTION,
        seed=obs.episode_seed,
    ))
    keys = result.fact_keys or ([result.fact_key] if result.fact_key else [])
    text = never_name(result.answer, profile.title)
    stalled = text in NOTHING_LEFT and any(t.role == Role.seeker and t.text in NOTHING_LEFT for t in obs.dialogue)
    if stalled:  # nothing left to say, twice: a person leaves rather than repeat it a third time
        text = pick(GIVING_UP, last.text)
    reply = SeekerReply(text=text, quit=stalled,
                        metadata={"has_preference": result.has_preference, "fact": keys[0] if keys else None,
                                  "facts": keys, "claims": result.claims})
    stated = state["stated"] + keys
    return {"action": reply, "stated": stated}


async def _needs_profile(state: SeekerState) -> str:
    return "answer" if "facts" in state else "prepare"


def build_graph() -> Any:
    graph = StateGraph(SeekerState, context_schema=SeekerContext)
    graph.add_node("prepare", prepare)
    graph.add_node("answer", answer)
    graph.add_conditional_edges(START, _needs_profile, ["prepare", "answer"])
    graph.add_edge("prepare", "answer")
    graph.add_edge("answer", END)
    return graph.compile(name="target_biased_seeker")


def build(llm: Any | None = None, embedding_model: str | None = None, no_preference_threshold: float = 0.35,
          own_review_sentences: int = 3, dont_know_rate: float = 0.1, negative_share: float = 0.2,
          vague_share: float = 0.2) -> GraphAgent[SeekerContext]:
    """Hydra factory for `seeker=target_biased`."""
    from environments.search.encoders import get_encoder

    encoder = get_encoder(embedding_model)
    context = SeekerContext(
        answer=SeekerAnswerStep(llm, "seeker", encoder=encoder, threshold=no_preference_threshold,
                                dont_know_rate=dont_know_rate, wording_mix=(negative_share, vague_share)),
        summarize=SummarizeReviewsStep(llm, "seeker"),
        own_review_sentences=own_review_sentences,
    )
    return GraphAgent(Role.seeker, build_graph(), context, memory_keys=("facts", "stated"), resume=stated_in)


def stated_in(observation: Any, moves: Sequence[Turn]) -> dict[str, Any]:
    """Memory rebuilt from earlier seeker moves: the facts they stated (not said again)."""
    return {"stated": [key for t in moves for key in (t.metadata.get("facts") or
                                                      ([t.metadata["fact"]] if t.metadata.get("fact") else []))]}
