"""The target-biased seeker (SnipRec §4.2 / PEPPER A.3 style).

It knows its target's attributes, a summary of the target's positive reviews and one
review written by "its" user (withheld from the recommender's catalog by the
environment). Each turn it answers only what was asked, one preference at a time, says
it has no preference when its profile has none, and never names the target.

Graph per turn: `prepare` (first turn only: summarise the reviews and turn the profile
into facts) → `answer` (pick and phrase one fact) → END.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agents.base import GraphAgent, TurnState
from agents.steps.review_facts import facts_from_reviews
from agents.steps.seeker_answer import AnswerInput, Fact, SeekerAnswerStep
from agents.steps.summarize import SummarizeInput, SummarizeReviewsStep
from agents.steps.text import display_name, pick, split_sentences
from environments.base import SeekerObservation, SeekerReply
from environments.models import Role, Turn
from environments.single_target import TargetBiasedProfile

ATTRIBUTE_FORMS = (
    "I'd like the {aspect} to be {value}.",
    "Ideally something with {value} for the {aspect}.",
    "For the {aspect}, {value} would be great.",
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
    """Attribute facts first, then what its own review, the summary and the positive reviews say."""
    facts: list[Fact] = []
    for aspect, value in profile.attributes.items():
        for single in value if isinstance(value, list) else [value]:
            shown_value = display_name(str(single))
            utterance = pick(ATTRIBUTE_FORMS, aspect, single).format(aspect=display_name(aspect), value=shown_value)
            facts.append(Fact(f"attr:{aspect}={single}", f"{display_name(aspect)}: {shown_value}", utterance, aspect))
    own = " ".join(split_sentences(profile.own_review)[:own_review_sentences])
    facts.extend(facts_from_reviews([own, summary, *profile.positive_reviews]))  # paraphrased, never quoted
    return facts


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
        open_question=bool(last.metadata.get("opening")),
    ))
    stated = state["stated"] + ([result.fact_key] if result.fact_key else [])
    reply = SeekerReply(text=never_name(result.answer, profile.title),
                        metadata={"has_preference": result.has_preference, "fact": result.fact_key})
    return {"action": reply, "stated": stated}


def _needs_profile(state: SeekerState) -> str:
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
          own_review_sentences: int = 3) -> GraphAgent[SeekerContext]:
    """Hydra factory for `seeker=target_biased`."""
    from environments.search.embeddings import get_encoder

    encoder = get_encoder(embedding_model)
    context = SeekerContext(
        answer=SeekerAnswerStep(llm, "seeker", encoder=encoder, threshold=no_preference_threshold),
        summarize=SummarizeReviewsStep(llm, "seeker"),
        own_review_sentences=own_review_sentences,
    )
    return GraphAgent(Role.seeker, build_graph(), context, memory_keys=("facts", "stated"), resume=stated_in)


def stated_in(observation: Any, moves: Sequence[Turn]) -> dict[str, Any]:
    """Memory rebuilt from earlier seeker moves: the facts they stated (not said again)."""
    return {"stated": [t.metadata["fact"] for t in moves if t.metadata.get("fact")]}
