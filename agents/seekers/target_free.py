"""PEPPER's seekers: target-free (general + reflected preferences) and its target-biased variant.

The target-free seeker is built from a user's *seen* items only: its own reviews become
binary likes and dislikes, then general preferences (`agents.steps.pepper.preferences`). It is
never told its targets. Each turn it reacts to the items on screen (reflected
preferences: a seen item by its own review, an unseen one by its general preferences,
given as `SeekerReply.feedback`), answers the recommender's question from its general
preferences in its own words (`SeekerAnswerStep`, one to three things a turn), and asks
for more.

The target-biased variant (`build_target_biased`, PEPPER A.3) is told the attributes of
the *selected* half of its targets (no titles) by the environment
(`disclose_targets: selected`); its preferences are those values, most common first, and
it does not react to what is shown. Both are scored on the same selected/residual halves.

In grounded episodes (a real person's history, `environment.seeker_knows=history`) it
judges the items it has not seen as people judged what they were suggested (`policy:
auto`, `people_reactions`: seen as often as an item that popular was, liked at people's
rate) instead of by its general preferences, which turned down film after film on ReDial,
gives feedback only on the item it talks about, and takes its next act (react, state a
preference, name a film it liked, ask, close) from the same fitted policy as the
target-biased seeker (`people_move`).

Graph per turn: `prepare` (first turn only) → `reply` → END.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agents.base import GraphAgent, TurnState
from agents.seekers import decisions
from agents.seekers.target_biased import (
    AVOID_FORMS, SIGNATURE_FORMS, frame, kind_of, stated_in, taste_fact, value_fact,
)
from agents.steps.pepper.preferences import (
    ExtractPreferencesStep, GeneralInput, GeneralPreferences, GeneralPreferencesStep, ReviewInput,
    SeenEvidence, parse_features, reaction_bars, weights_of,
)
from agents.steps.pepper.reflect import (
    ItemReaction, PepperReplyStep, ReflectInput, Reflection, ReflectStep, ReplyInput,
)
from agents.steps.recommender.clarify import OPEN_QUESTION
from agents.steps.seeker.answer import NOTHING_LEFT, AnswerInput, Fact, SeekerAnswer, SeekerAnswerStep
from agents.steps.seeker import talk
from agents.steps.seeker.talk import spoken_title
from agents.steps.seeker.value_lexicon import Feature, ValueLexicon
from agents.steps.text import pick
from environments.acts.policy import SeekerPolicy, load_policy, mentions_by_item
from environments.acts.wordings import WordingBank
from environments.base import ItemCard, SeekerObservation, SeekerReply
from environments.catalog import Catalog
from environments.errors import CrsimError
from environments.models import Role, Turn
from environments.multi_target import PepperProfile
from environments.single_target.grounded import KIND_ASPECT, attribute_list
from environments.search.encoders import get_encoder
from environments.target_facts import TargetFact, domain_facts, plain_knowledge


class PepperState(TurnState, total=False):
    preferences: dict[str, Any]
    facts: list[Fact]
    stated: list[str]
    reacted: list[str]   # items already commented on (a shown-again item gets feedback, not a new remark)


@dataclass(frozen=True, slots=True)
class PepperContext:
    lexicon: ValueLexicon
    domain: str | None
    answer: SeekerAnswerStep
    reply: PepperReplyStep
    extract: ExtractPreferencesStep | None = None
    general: GeneralPreferencesStep | None = None
    reflect: ReflectStep | None = None     # None: the target-biased variant does not react
    react_share: float = 0.25              # liked: as good as its best quarter of seen items; disliked: worst
    mention_liked: int = 0                 # name this many of its best-rated seen titles, one a turn (CRAG)
    policy: SeekerPolicy | None = None     # people's reaction rates for items it has not seen (`seeker.policy`)
    grounded_only: bool = True             # `policy: auto`: only in grounded episodes (a real person's history)
    wordings: WordingBank | None = None    # how people said each act (`seeker.wordings`), used with the policy
    popularity: Mapping[str, float] = field(default_factory=dict)  # mentions per item: how likely it was seen


async def general_preferences(profile: PepperProfile, context: PepperContext, item_noun: str) -> GeneralPreferences:
    """Binary preferences per seen review, then the general preferences of the user."""
    assert context.extract is not None and context.general is not None
    evidence = []
    for seen in profile.seen:
        prefs = await context.extract.run(ReviewInput(seen.item, seen.rating, seen.review, item_noun))
        evidence.append(SeenEvidence(seen.item, seen.rating, prefs))
    return await context.general.run(GeneralInput(evidence, item_noun))


def liked_titles(profile: PepperProfile, n: int) -> list[ItemCard]:
    """Its `n` best-rated seen items (4+ stars), best first, ties by item id: what it names."""
    liked = sorted((s for s in profile.seen if (s.rating or 0) >= 4), key=lambda s: (-(s.rating or 0), s.item.id))
    return [s.item for s in liked[:n]]


def disclosed_preferences(profile: PepperProfile, lexicon: ValueLexicon) -> GeneralPreferences:
    """The target-biased variant's preferences: the disclosed targets' values, most common first.

    As in PEPPER's A.3, a target is disclosed by its attributes and plot: the values the
    single-target seeker would know of it (`DisclosedTarget.knowledge`), else its shown
    attributes and the values its description words. Its signature details (what a plot
    summary gives away) become facts of their own (`signature_facts`)."""
    from agents.steps.pepper.preferences import preferences_from_weights
    from agents.steps.seeker.value_lexicon import attribute_values

    counts: Counter[Feature] = Counter()
    for target in profile.disclosed:
        if target.knowledge.facts:
            counts.update({(fact.aspect, fact.value) for fact in target.knowledge.facts})
            continue
        listed = {(aspect, v) for aspect, value in target.attributes.items() for v in attribute_values(value)}
        counts.update(listed | lexicon.features(target.description))
    top = max(counts.values(), default=1)
    return preferences_from_weights({f: c / top for f, c in counts.items()}, max_likes=len(counts), max_dislikes=0)


def preference_facts(preferences: GeneralPreferences, lexicon: ValueLexicon, domain: str | None,
                     user_id: str) -> list[Fact]:
    """What the seeker may say: each liked value in its own words (as a target-biased seeker
    would), each disliked one as something to avoid; stronger preferences more salient."""
    weights = weights_of(preferences, lexicon)
    facts = []
    for feature in parse_features(preferences.likes, lexicon):
        spoken = _spoken(feature, domain)
        fact = value_fact(spoken, user_id)
        facts.append(Fact(f"pref:{feature[0]}={feature[1]}", fact.match_text, fact.utterance, fact.aspect,
                          fact.claim, fact.alternatives, salience=max(0.05, weights.get(feature, 0.5))))
    for feature in parse_features(preferences.dislikes, lexicon):
        spoken = _spoken(feature, domain)
        says = pick(spoken.says, user_id, feature[1])
        facts.append(Fact(f"pref:-{feature[0]}={feature[1]}", f"{spoken.aspect_display}: not {spoken.says[0]}",
                          frame(pick(AVOID_FORMS, feature[1], user_id), p=says), feature[0],
                          (feature[0], feature[1], -1), salience=max(0.05, abs(weights.get(feature, 0.5)) / 2)))
    return facts


def _spoken(feature: Feature, domain: str | None) -> TargetFact:
    aspect, value = feature
    facts = []
    if domain is not None:
        try:
            facts = domain_facts(domain, {aspect: value})
        except KeyError:  # a value the domain's phrase bank does not know (an imported catalog's)
            facts = []
    return (facts or list(plain_knowledge({aspect: value}).facts))[0]


async def prepare(state: PepperState, runtime: Runtime[PepperContext]) -> dict[str, Any]:
    obs: SeekerObservation = state["observation"]
    context = runtime.context
    profile: PepperProfile = obs.profile
    if not isinstance(profile, PepperProfile):
        raise CrsimError(f"this seeker needs a user's history, and the environment gave it a "
                         f"{type(profile).__name__}: use environment=pepper, or environment.seeker_knows=history "
                         "on environment=grounded")
    if context.reflect is None:
        if not profile.disclosed:
            raise CrsimError("seeker=target_biased_pepper is told nothing: it needs "
                             "environment.disclose_targets=selected (its config sets it)")
        preferences = disclosed_preferences(profile, context.lexicon)
    else:
        preferences = await general_preferences(profile, context, obs.item_noun)
    return {"preferences": preferences.model_dump(), "stated": list(state.get("stated", [])),
            "facts": preference_facts(preferences, context.lexicon, context.domain, profile.user_id)
            + signature_facts(profile) + [taste_fact(word, profile.user_id, obs.item_noun) for word in profile.tastes]}


def signature_facts(profile: PepperProfile) -> list[Fact]:
    """The disclosed targets' signature details, one fact each (a target-free seeker has none)."""
    signatures = dict.fromkeys(s for target in profile.disclosed for s in target.knowledge.signatures)
    return [Fact(f"sig:{s}", s, frame(pick(SIGNATURE_FORMS, s, profile.user_id), s=s), None, ("signature", s, 1),
                 salience=0.6) for s in signatures]


async def reply(state: PepperState, runtime: Runtime[PepperContext]) -> dict[str, Any]:
    obs: SeekerObservation = state["observation"]
    context = runtime.context
    profile: PepperProfile = obs.profile
    preferences = GeneralPreferences.model_validate(state["preferences"])
    last = obs.dialogue[-1]
    if context.reply.llm is not None:  # the reply prompt answers the question itself, from the narrative
        answer = SeekerAnswer(answer="", has_preference=True)
    else:
        answer = await context.answer.run(AnswerInput(
            question=last.text, facts=state["facts"], stated=frozenset(state["stated"]), dialogue=obs.dialogue,
            item_noun=obs.item_noun, target_title="",
            open_question=bool(last.metadata.get("opening")) or last.text.strip() == OPEN_QUESTION,
            seed=obs.episode_seed, may_not_know=not people_mode(context, profile)))
    reflection = Reflection()
    if context.reflect is not None and obs.shown:
        own = {s.item.id: (s.rating, s.review) for s in profile.seen}
        bars = reaction_bars(weights_of(preferences, context.lexicon), [s.item for s in profile.seen], context.lexicon,
                             context.react_share)
        reflection = await context.reflect.run(ReflectInput(obs.shown, own, preferences, obs.item_noun, bars,
                                                           (obs.episode_seed, obs.turn)))
        if people_mode(context, profile):
            reflection = people_reactions(reflection, obs, context.policy, context.popularity,  # type: ignore[arg-type]
                                          context.wordings)
    reacted = list(state.get("reacted", []))
    fresh = Reflection(reactions=[r for r in reflection.reactions if r.item_id not in reacted])
    move, ask_about = ("", "")
    if people_mode(context, profile):
        mention = next(iter(unnamed_liked(profile, state["stated"], obs.dialogue)), None)
        move, ask_about = people_move(obs, fresh, answer.answer, mention, context.policy)  # type: ignore[arg-type]
    else:
        named = liked_titles(profile, context.mention_liked)
        mention = named[obs.turn] if obs.turn < len(named) else None
    worded = people_wording(context.wordings, move, obs, mention) if move else None
    keys = answer.fact_keys or ([answer.fact_key] if answer.fact_key else [])
    if move == "preference":  # a liked kind in a person's words ("I'm in the mood for a comedy"), not "Preferably comedy"
        liked = (mention.title, f"liked:{mention.id}", attribute_list(mention.attributes.get(KIND_ASPECT))) \
            if mention is not None else None
        worded, keys = decisions.people_preference(context.wordings, answer, obs, keys, liked) or (None, keys)
    elif move:  # one act a turn: what it did not say is still to say (and a liked title named once)
        keys = [f"liked:{mention.id}"] if move == "name_liked" and mention is not None else []
    text = worded or (await context.reply.run(ReplyInput(obs.dialogue, preferences, answer.answer, fresh,
                                                         obs.item_noun, obs.episode_seed,
                                                         mention.title if mention else "", move, ask_about))).reply
    feedback = {r.item_id: r.reaction for r in reflection.reactions if r.reaction != "unsure"}
    about = [r.item_id for r in fresh.reactions]
    if people_mode(context, profile):  # a person gives feedback on what they talk about, not on the whole screen
        feedback = {i: k for i, k in feedback.items() if said_about(i, reflection, text)}
        # and may still react to what it said nothing of: the same films on screen the next turn
        # were otherwise never reacted to (13% of its turns reacted on tune_data; people: 34%)
        about = list(feedback)
    named = mention is not None and spoken_title(mention.title) in text
    action = SeekerReply(text=text, feedback=feedback, mentions=[mention.id] if named else [],
                         quit=move == "close", metadata={
        "has_preference": answer.has_preference, "fact": keys[0] if keys else None, "facts": keys,
        "claims": answer.claims, "reactions": [r.model_dump() for r in reflection.reactions],
        **({"move": move, "about": about} if move else {})})
    if not any(t.role == Role.seeker for t in obs.dialogue):  # first reply: log who the seeker is (for the judge)
        action.metadata["preferences"] = preferences.narrative
    return {"action": action, "stated": state["stated"] + keys,
            "reacted": reacted + about}


def unnamed_liked(profile: PepperProfile, stated: Sequence[str], dialogue: Sequence[Turn]) -> list[ItemCard]:
    """The items of its history it has not named yet (nor said in the person's opening) and
    did not dislike, in the order the person named them: what a person mentions of their own
    ("I loved Frozen")."""
    unsaid = talk.unsaid_titles([s.item.title for s in profile.seen], dialogue)
    return [s.item for s, fresh in zip(profile.seen, unsaid)
            if fresh and (s.rating is None or s.rating >= 3) and f"liked:{s.item.id}" not in stated]


def people_mode(context: PepperContext, profile: PepperProfile) -> bool:
    """Whether its reactions come from people's rates (`policy`; with `auto`, in grounded episodes)."""
    return context.policy is not None and (profile.conversation_id is not None or not context.grounded_only)


def people_move(obs: SeekerObservation, fresh: Reflection, answer: str, mention: ItemCard | None,
                policy: SeekerPolicy) -> tuple[str, str]:
    """The act people made next in this context (`agents.seekers.decisions`), among those it
    can make now, and for `ask_shown` how it refers to the item it asks about. Without it
    the seeker reacted to what was shown two turns in three, whatever was asked (84% of its
    turns on grounded ReDial against people's 36%)."""
    rnd = random.Random(f"{obs.episode_seed}-policy-{len(obs.dialogue)}")
    feasible = {"ask_more", "close", "chitchat", *(("react",) if fresh.reactions else ()),
                *(("ask_shown",) if obs.shown else ()), *(("name_liked",) if mention is not None else ()),
                *(("preference",) if answer and answer not in NOTHING_LEFT else ())}
    move = decisions.choose_family(policy, decisions.recommender_contexts(obs), decisions.seeker_turn(obs),
                                   sorted(feasible), rnd)
    if move != "ask_shown":
        return move, ""
    card = obs.shown[0]
    keys = (obs.episode_seed, obs.turn, card.id)
    return move, talk.refer(0, card.title, *keys, may_name=len(card.title.split()) <= 5)


def people_wording(bank: WordingBank | None, move: str, obs: SeekerObservation, mention: ItemCard | None) -> str | None:
    """The chosen act as a person of the training dialogues said it, for the acts whose words
    the seeker does not compose itself (a reaction's words come with the reaction, a
    preference from the answer step): naming a liked film, asking about or for more,
    chit-chat, closing. None: the reply step words it."""
    keys = (obs.episode_seed, len(obs.dialogue))
    shown = obs.shown[0] if obs.shown else None
    values = {"name_liked": {"title": mention.title if mention else None},
              "ask_shown": {"title": shown.title if shown else None, "kind": kind_of(shown) if shown else None},
              "ask_more": {"title": shown.title if shown else None}, "close": {}, "chitchat": {}}
    if move not in values:
        return None
    return decisions.people_said(bank, move, obs, keys, **values[move])


def said_about(item_id: str, reflection: Reflection, text: str) -> bool:
    """Whether the reply says its reaction to this item (its reason's words are in the text)."""
    reason = next((r.reason for r in reflection.reactions if r.item_id == item_id), "")
    return bool(reason) and reason.rstrip(".!").lower() in text.lower()


def people_reactions(reflection: Reflection, obs: SeekerObservation, policy: SeekerPolicy,
                     popularity: Mapping[str, float], bank: WordingBank | None = None) -> Reflection:
    """Items it has not seen, judged as people judged what they were suggested (seen as often
    as an item that popular was, liked at people's rate) rather than by its general
    preferences, which turned down film after film on grounded ReDial; its own items keep its
    rating of them."""
    cards = {card.id: (n, card) for n, card in enumerate(obs.shown)}
    out = []
    for reaction in reflection.reactions:
        if reaction.seen or reaction.item_id not in cards:
            out.append(reaction)
            continue
        position, card = cards[reaction.item_id]
        view = decisions.decide_reaction(card, position, target_id="", known=(), rates=policy.reactions,
                                         mentions=popularity, seed=obs.episode_seed)
        keys = (obs.episode_seed, obs.turn, card.id)
        ref = talk.refer(position, card.title, *keys, may_name=len(card.title.split()) <= 5)
        reason = decisions.people_said(bank, "react", obs, keys, reaction=decisions.reaction_wording(view, bank, keys),
                                       title=card.title) or talk.reaction(ref, *keys, seen=view.seen, like=view.like)
        out.append(ItemReaction(item_id=card.id, seen=view.seen, reaction="like" if view.like else "dislike",
                                reason=reason))
    return Reflection(reactions=out)


def pepper_memory(observation: Any, moves: Sequence[Turn]) -> dict[str, Any]:
    """Memory rebuilt from earlier seeker moves: what they stated and the items they reacted to."""
    reacted = [i for t in moves for i in (t.metadata["about"] if "about" in t.metadata
                                          else [r["item_id"] for r in t.metadata.get("reactions") or []])]
    return {**stated_in(observation, moves), "reacted": list(dict.fromkeys(reacted))}


async def _needs_preferences(state: PepperState) -> str:
    return "reply" if "facts" in state else "prepare"


def build_graph() -> Any:
    graph = StateGraph(PepperState, context_schema=PepperContext)
    graph.add_node("prepare", prepare)
    graph.add_node("reply", reply)
    graph.add_conditional_edges(START, _needs_preferences, ["prepare", "reply"])
    graph.add_edge("prepare", "reply")
    graph.add_edge("reply", END)
    return graph.compile(name="pepper_seeker")


def build(catalog: Catalog, llm: Any | None = None, *, embedding_model: str | None = None,
          no_preference_threshold: float = 0.35, dont_know_rate: float = 0.1, min_support: int = 2,
          card_weight: float = 0.5, react_share: float = 0.25, mention_liked: int = 0,
          encoder: Any | None = None, policy: str | None = "auto",
          wordings: str | None = "auto") -> GraphAgent[PepperContext]:
    """Hydra factory for `seeker=target_free` (`encoder`: a ready sentence encoder, for tests).
    `policy`: people's next acts and reaction rates for the items it has not seen (a fitted
    policy file or a shipped name; `auto`: agents/policies/redial.json in grounded episodes
    only; null: never). `wordings`: how those acts are said (`auto`: the bank beside the
    shipped policy; a file; null: crsim's frames)."""
    lexicon = ValueLexicon.for_catalog(catalog)
    people = {} if not policy else {
        "policy": load_policy(decisions.policy_path(decisions.GROUNDED_POLICY if policy == "auto" else policy)),
        "grounded_only": policy == "auto",
        "popularity": mentions_by_item(catalog.items),
        "wordings": decisions.load_bank(wordings)}
    return _agent(catalog, llm, lexicon, encoder or get_encoder(embedding_model), no_preference_threshold,
    dont_know_rate,
                  extract=ExtractPreferencesStep(llm, "seeker", lexicon=lexicon),
                  general=GeneralPreferencesStep(llm, "seeker", lexicon=lexicon, min_support=min_support,
                                                 card_weight=card_weight),
                  reflect=ReflectStep(llm, "seeker", lexicon=lexicon), react_share=react_share,
                  mention_liked=mention_liked, **people)


def build_target_biased(catalog: Catalog, llm: Any | None = None, *, embedding_model: str | None = None,
                        no_preference_threshold: float = 0.35, dont_know_rate: float = 0.1, mention_liked: int = 0,
                        encoder: Any | None = None) -> GraphAgent[PepperContext]:
    """Hydra factory for `seeker=target_biased_pepper` (needs `environment.disclose_targets=selected`)."""
    return _agent(catalog, llm, ValueLexicon.for_catalog(catalog), encoder or get_encoder(embedding_model),
    no_preference_threshold,
                  dont_know_rate, mention_liked=mention_liked)


def _agent(catalog: Catalog, llm: Any | None, lexicon: ValueLexicon, encoder: Any, threshold: float,
           dont_know_rate: float, **steps: Any) -> GraphAgent[PepperContext]:
    from environments.worlds.registry import DOMAINS

    domain = catalog.manifest.domain if catalog.manifest.domain in DOMAINS else None
    context = PepperContext(
        lexicon=lexicon, domain=domain,
        answer=SeekerAnswerStep(llm, "seeker", threshold=threshold, encoder=encoder,
                                dont_know_rate=dont_know_rate),
        reply=PepperReplyStep(llm, "seeker"), **steps)
    return GraphAgent("seeker", build_graph(), context, memory_keys=("preferences", "facts", "stated", "reacted"),
                      resume=pepper_memory)


__all__: Sequence[str] = ("build", "build_target_biased", "build_graph", "PepperContext", "preference_facts")
