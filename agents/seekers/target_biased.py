"""The target-biased seeker (SnipRec §4.2 / PEPPER A.3 style).

It knows its target's values (on a synthetic world the truth, not the partial catalog;
see `environments.target_facts`), its signature details, a summary of the target's
positive reviews and one review written by "its" user (withheld from the recommender's
catalog by the environment). It speaks in its own words (never the catalog's), one to
three aspects a turn, sometimes vaguely or by what it does not want, is sometimes unsure,
and never names the target (`agents.steps.seeker.answer` has the turn policy). Once
everything is said, a question about something said before is answered again; having had
nothing left to say twice, it ends the conversation (`quit`) rather than stall: on a small
review-only catalog the seeker used to repeat "That's about all I can think of." for the
rest of the episode.

Besides answering, it talks as people do (`agents.steps.seeker.talk`): once items are
shown it sometimes reacts to one (its target: it looks right; another: not it, and why,
with `dislike` feedback), asks the recommender about one ("is the second one quiet?"), or
names an item it liked before (its reviewer's other favourites; a grounded person's named
items). On a real catalog it first says what kind of product it wants, and everything it
says is in words many items share (`TargetBiasedProfile.shared_words`).

In grounded episodes (a real person's conversation) it decides as people did instead of by
hand-set rates (`policy: auto`; any episode with `seeker.policy=FILE`): its next act comes
from a policy fitted on people's training dialogues, given what the recommender just did,
and its view of every item on screen (seen or not, liked or not; its target taken; a film
the person named themselves liked) from what it knows (`agents.seekers.decisions`).

Graph per turn: `prepare` (first turn only: summarise the reviews and turn the profile
into facts) → `answer` (pick and phrase what to say) → END.
"""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agents.base import GraphAgent, TurnState
from agents.seekers import decisions
from agents.steps.recommender.clarify import OPEN_QUESTION
from agents.steps.seeker import talk
from agents.steps.seeker.answer import (
    GIVING_UP, NOTHING_LEFT, TERSE_ANSWER, AnswerInput, Fact, SeekerAnswer, SeekerAnswerStep, Wording,
)
from agents.steps.seeker.move import MoveInput, SeekerMoveStep
from agents.steps.seeker.review_facts import facts_from_reviews, says_what_it_is_like
from agents.steps.seeker.wishes import ARTICLES, wish
from agents.steps.seeker.summarize import SummarizeInput, SummarizeReviewsStep
from agents.steps.text import fill_form, normalised, pick, singular, split_sentences
from environments.acts.answer_wordings import AnswerWordings
from environments.acts.policy import SeekerPolicy, load_policy
from environments.acts.wordings import COUNT_KINDS, WordingBank, plural_kind
from environments.base import ItemCard, SeekerObservation, SeekerReply
from environments.models import Role, Turn
from environments.search.vocabulary import indefinite_article, is_plural, listing_path
from environments.single_target import TargetBiasedProfile
from environments.single_target.grounded import KIND_ASPECT, attribute_list, plain_singular
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
# What kind of product it is after, said first on a real catalog.
KIND_FORMS = (
    "I need {k}.", "Looking for {k}.", "Shopping for {k}.", "I'm after {k}.", "After {k}, please.",
    "Trying to find {k}.", "I want to get {k}.", "I'd like {k}.",
)
ACKNOWLEDGE_ANSWER = 0.5  # how often it takes in the answer to its question before going on
LIKE_TARGET = 0.6  # how often it says so when its target is on screen (it never says which by name)
# A grounded person's own taste words ("comedies", "scary"), said their way.
# A taste is said as a plural ("comedies", "scary movies"): "I'm into scary" and "Something
# comedies would be nice" were what 0.2.14's forms made of an adjective and of a noun.
TASTE_FORMS = (
    "I'm into {w}.", "I like {w}.", "I love {w}.", "Big on {w} lately.", "Some {w} would be nice.",
    "I usually go for {w}.", "Any good {w}?", "{W}, mostly.", "I'm in the mood for {w}.", "Really like {w}.",
)
ASKS_KIND = re.compile(r"\b(categor(y|ies)|kinds?|types?|sorts?)\b", re.IGNORECASE)  # "what category of ...?"
MAX_TITLE_WORDS = 5  # a longer title (a product's listing name) is referred to by its position


@dataclass(frozen=True, slots=True)
class TalkRates:
    """How often, once items are shown, a turn reacts to one, asks about one, or names a liked item."""

    react: float = 0.25
    ask: float = 0.15
    name: float = 0.05


class SeekerState(TurnState, total=False):
    facts: list[Fact]
    stated: list[str]
    reacted: list[str]  # shown items already reacted to or asked about


@dataclass(frozen=True, slots=True)
class SeekerContext:
    answer: SeekerAnswerStep
    summarize: SummarizeReviewsStep
    own_review_sentences: int
    rates: TalkRates = TalkRates()
    move: SeekerMoveStep = field(default_factory=SeekerMoveStep)
    policy: SeekerPolicy | None = None  # fitted on people (`seeker.policy`): replaces `rates`
    grounded_policy: SeekerPolicy | None = None  # `policy: auto`: used in grounded episodes only
    wordings: WordingBank | None = None  # how people said each act (`seeker.wordings`), used with a policy
    answer_wordings: AnswerWordings | None = None  # how people word a wanted thing (`seeker.answer_wordings`)


@dataclass(frozen=True, slots=True)
class TalkMove:
    """A talk move: the reply as the offline seeker words it, the move in words for a
    language model (`task`), and what its message must name (any one of `refs`)."""

    reply: SeekerReply
    task: str
    refs: tuple[str, ...] = ()


def profile_facts(profile: TargetBiasedProfile, summary: str, own_review_sentences: int,
                  item_noun: str = "items", wishes: AnswerWordings | None = None) -> list[Fact]:
    """Its target's values and signatures, then what its own review, the summary and the
    positive reviews say (paraphrased, never quoted). With `wishes`, a wanted thing that is
    a noun phrase is said in a wording people used (`agents.steps.seeker.wishes`)."""
    knowledge = profile.knowledge if profile.knowledge.facts else plain_knowledge(profile.attributes)
    facts = [value_fact(fact, profile.target_id, wishes) for fact in knowledge.facts]
    facts += [Fact(f"sig:{s}", s, frame(pick(SIGNATURE_FORMS, s, profile.target_id), s=s), None,
                   ("signature", s, 1), salience=0.6) for s in knowledge.signatures]
    # A mined value an attribute already says ("prices: cheap" beside price range "cheap") is said once.
    valued = {normalised(str(f.claim[1])) for f in facts if f.claim is not None}
    # A mined value is said only if a review fact's descriptor could be: "a built stand" (reviews'
    # "well built") is no wish.
    mined = [(aspect, values[0]) for aspect, values in profile.described if normalised(values[0]) not in valued
             and all(says_what_it_is_like(w) for w in values[0].split())]
    facts += [described_fact(aspect, value, profile.target_id, wishes) for aspect, value in mined]
    described = {aspect for aspect, _ in mined}
    own = " ".join(split_sentences(profile.own_review)[:own_review_sentences])
    facts.extend(f for f in facts_from_reviews(
        [own, summary, *profile.positive_reviews], shared=profile.shared_words,
        critical=profile.critical_reviews if profile.shared_words is not None else (), wishes=wishes,
        shared_pairs=profile.shared_pairs, theme=profile.theme_words)
        if f.aspect not in described)
    facts += [taste_fact(word, profile.target_id, item_noun) for word in profile.tastes]
    if profile.kind:
        # An attribute whose value is the kind ("Dresses" as a clothing catalog's class) is the kind
        # fact's claim, not a second way to say it ("Ideally Dresses. Looking for some dresses.").
        # The steps above it in the listing's path are the store's labels, which the kind says too:
        # "I want to get some pants. I'm thinking Bottoms.", "General Petite, if possible".
        kind_said = singular(profile.kind.lower())
        path = [singular(step.lower()) for step in listing_path(profile.attributes)]
        steps = [f for f in facts if f.key.startswith("attr:") and f.claim is not None
                 and singular(str(f.claim[1]).lower()) in {kind_said, *path}]
        same = next((f for f in steps if singular(str(f.claim[1]).lower()) in {kind_said, *path[-1:]}), None)
        facts = [f for f in facts if f not in steps]
        kind = with_article(profile.kind, profile.kind_countable)
        facts.insert(0, Fact("kind", f"kind of product: {profile.kind}", pick(KIND_FORMS, profile.target_id).format(
            k=kind), "kind", same.claim if same is not None else None, salience=1.0, phrase=kind))
    return facts


def taste_fact(word: str, seed_key: str, item_noun: str) -> Fact:
    """A grounded person's own taste word ("comedies", "scary") as a wish of its own, said
    as a plural ("comedies", "scary movies", "kids movies": "Really like kids" was a kind's
    plural only in looks)."""
    said = word if word.endswith("s") and plain_singular(word) in COUNT_KINDS else plural_kind(word, item_noun)
    # Matched as the kind of item it likes: asked "Any favourite genre?", a person who likes
    # funny movies says so, not "No strong feelings there. I like funny movies."
    return Fact(f"taste:{word}", f"{KIND_ASPECT}: likes {said}", frame(pick(TASTE_FORMS, seed_key, word), w=said),
                f"taste:{word}", ("taste", word, 1), salience=1.0, phrase=word)


def with_article(noun: str, countable: bool = True) -> str:
    """"a tuner", "an amp", "some strings" (a plural takes no "a"), "some outerwear" (nor a
    noun reviewers never count: "an outerwear", "a layering" were what the kinds of a
    clothing catalog's listing made)."""
    if is_plural(noun) or not countable:
        return f"some {noun}"
    return f"{indefinite_article(noun)} {noun}"


def described_fact(aspect: str, value: str, target_id: str, wishes: AnswerWordings | None = None) -> Fact:
    """A value the target's reviews give a mined aspect ("hard" case), said as a wish ("A
    hard case would be great."): the answer to a recommender asking about that aspect."""
    key = f"mined:{aspect}={value}"
    phrase = with_article(f"{value} {aspect}")
    said = wish(wishes, phrase, key, target_id) or frame(pick(WANT_FORMS, key, target_id), p=phrase)
    return Fact(key, f"{aspect}: {value}", said, aspect, (aspect, value, 1), salience=0.5, phrase=phrase)


def value_fact(fact: TargetFact, target_id: str, wishes: AnswerWordings | None = None) -> Fact:
    """A target value with a plain wording and its vague and negative alternatives; a value
    said as a noun phrase ("a date spot") in people's wording when `wishes` is given."""
    key = f"attr:{fact.aspect}={fact.value}"
    phrase = pick(fact.says, target_id, key)
    noun_phrase = phrase.lower().startswith(ARTICLES)
    plain = (wish(wishes, phrase, key, target_id) if noun_phrase else None) or frame(pick(WANT_FORMS, key, target_id),
                                                                                      p=phrase)
    claim = (fact.aspect, fact.value, 1)
    vague = [Wording(frame(pick(VAGUE_FORMS, phrase, target_id), p=phrase), claim) for phrase in fact.vague]
    avoid = [Wording(frame(pick(AVOID_FORMS, other, target_id), p=pick(says, target_id)), (fact.aspect, other, -1))
             for other, says in fact.avoid]
    return Fact(key, f"{fact.aspect_display}: {fact.says[0]}", plain, fact.aspect, claim, tuple(vague + avoid),
                fact.salience, phrase)


def frame(form: str, **fill: str) -> str:
    """Fill a frame; `{P}` is the filler capitalised (a sentence may start with it)."""
    return fill_form(form, **fill)


def never_name(text: str, title: str) -> str:
    """The seeker must not name its target, whoever wrote the sentence (LLM or template)."""
    if not title.strip():
        return text
    return re.sub(re.escape(title), "that one", text, flags=re.IGNORECASE)


async def prepare(state: SeekerState, runtime: Runtime[SeekerContext]) -> dict[str, Any]:
    profile: TargetBiasedProfile = state["observation"].profile
    summary = await runtime.context.summarize.run(
        SummarizeInput(profile.positive_reviews, state["observation"].item_noun))
    wishes = runtime.context.answer_wordings if profile.person is None else None  # a grounded person: its own words
    return {"facts": profile_facts(profile, summary.summary, runtime.context.own_review_sentences,
                                   state["observation"].item_noun, wishes),
            "stated": list(state.get("stated", []))}


async def answer(state: SeekerState, runtime: Runtime[SeekerContext]) -> dict[str, Any]:
    obs: SeekerObservation = state["observation"]
    context = runtime.context
    last = obs.dialogue[-1]
    profile: TargetBiasedProfile = obs.profile
    open_question = bool(last.metadata.get("opening")) or last.text.strip() == OPEN_QUESTION
    stated, reacted = list(state["stated"]), list(state.get("reacted", []))
    offline = context.answer.llm is None
    policy = context.policy or (context.grounded_policy if profile.person is not None else None)
    if policy is not None and not last.metadata.get("opening"):
        move = policy_move(obs, state["facts"], stated, reacted, policy, context.wordings)
    elif obs.shown and not last.metadata.get("opening"):
        asked = None if last.text.strip() == OPEN_QUESTION else context.answer.asked_fact(last.text, state["facts"])
        move = talk_move(obs, state["facts"], stated, reacted, context.rates, asked=asked)
    else:
        move = None
    if move is not None:
        worded = await context.move.run(MoveInput(
            move.task, move.reply.text, obs.dialogue, obs.item_noun, profile.title,
            [card.title for card in obs.shown], move.refs))
        text = (talk.styled(worded.text, obs.episode_seed, len(obs.dialogue)) if context.move.llm is None
                else never_name(worded.text, profile.title))
        reply = replace(move.reply, text=text)
        return {"action": reply, "stated": stated + reply.metadata["facts"],
                "reacted": reacted + reply.metadata["about"]}
    result = await context.answer.run(AnswerInput(
        question=last.text, facts=state["facts"], stated=frozenset(stated), dialogue=obs.dialogue,
        item_noun=obs.item_noun, target_title=profile.title, open_question=open_question, seed=obs.episode_seed,
        liked=[t for t in profile.liked if talk.speakable(t)], shown=[card.title for card in obs.shown],
        may_not_know=policy is None or bool(last.metadata.get("opening")),
        examples=people_examples(context.wordings, obs) if not offline else (),
        terse_rate=TERSE_ANSWER if policy is None else 0.0,
    ))
    if offline:  # a language model is given the kind among its facts and says it its own way
        result = with_kind(result, state["facts"], stated, open_question, obs.episode_seed, last.text)
    keys = result.fact_keys or ([result.fact_key] if result.fact_key else [])
    text = never_name(result.answer, profile.title)
    if offline and policy is not None:
        liked = next(iter(unsaid_liked(profile.liked, stated, obs.dialogue)), None)
        offered = (liked, f"liked:{liked}", (profile.liked_kinds or {}).get(liked, ())) if liked else None
        text, keys = decisions.people_preference(context.wordings, result, obs, keys, offered) or (text, keys)
    stalled = text in NOTHING_LEFT and any(t.role == Role.seeker and said_nothing(t.text) for t in obs.dialogue)
    if stalled:  # nothing left to say, twice: a person leaves rather than repeat it a third time
        text = pick(GIVING_UP, last.text)
    if offline:
        text = talk.styled(text, obs.episode_seed, len(obs.dialogue))
    reply = SeekerReply(text=text, quit=stalled,
                        metadata={"has_preference": result.has_preference, "fact": keys[0] if keys else None,
                                  "facts": keys, "claims": result.claims})
    if policy is not None and obs.shown:
        log_decisions(reply, decided_views(obs, [(i, c) for i, c in enumerate(obs.shown) if c.id not in reacted],
                                           policy))
    return {"action": reply, "stated": stated + keys, "reacted": reacted}


def people_examples(bank: WordingBank | None, obs: SeekerObservation) -> list[str]:
    """A few preferences people stated in the bank's corpus, for a language model's tone; only
    when that corpus is about the same kind of item: ReDial's film talk shown to the
    restaurant seeker came back as "I'm looking for Indian food to watch"."""
    if bank is None or bank.item_noun.lower() != obs.item_noun.lower():
        return []
    return bank.examples("preference", seed_keys=(obs.episode_seed, len(obs.dialogue)))


_NOTHING_LEFT_TYPED = frozenset(line.rstrip(".").lower() for line in NOTHING_LEFT)


def said_nothing(text: str) -> bool:
    """Whether a logged turn was a NOTHING_LEFT line (in whatever case and punctuation it was typed)."""
    return text.rstrip(".").lower() in _NOTHING_LEFT_TYPED


def with_kind(result: SeekerAnswer, facts: Sequence[Fact], stated: Sequence[str], open_question: bool,
              seed: int, question: str = "") -> SeekerAnswer:
    """On the opening question a shopper first says what kind of product it wants.

    Asked an open question ("How can I help?"), it starts vaguer half the time, the kind
    coming later unprompted; asked which category or kind (`ASKS_KIND`, the environment's
    default opening), it names it: "Just a reasonable price." to "What category of products
    are you looking for?" is what blind raters called vague most often (9 of the 39 Musical
    Instruments replies of 0.2.19 they did not call sensible)."""
    kind = next((f for f in facts if f.key == "kind"), None)
    keys = result.fact_keys or ([result.fact_key] if result.fact_key else [])
    if kind is None or not open_question or kind.key in stated or kind.key in keys:
        return result
    draw = zlib.crc32(f"{seed}-kind".encode()) % 4
    if result.has_preference and draw < 2 and not ASKS_KIND.search(question):
        return result
    if not result.has_preference or draw == 2:
        return SeekerAnswer(answer=kind.utterance, has_preference=True, fact_key=kind.key, fact_keys=[kind.key])
    return result.model_copy(update={"answer": talk.join([kind.utterance, result.answer]), "has_preference": True,
                                     "fact_key": kind.key, "fact_keys": [kind.key, *keys]})


def talk_move(obs: SeekerObservation, facts: Sequence[Fact], stated: Sequence[str], reacted: Sequence[str],
              rates: TalkRates, *, asked: Fact | None = None) -> TalkMove | None:
    """A reaction to a shown item, a question about one, or a liked item named; None: answer.

    With nothing left to say, a move is taken whenever one is possible (people go on
    reacting to suggestions long after they have said what they want). When the
    recommender asked about something the seeker has a view on (`asked`, the fact its
    question is about), a move says that ("Not the first one, I'm after cheap.") instead of
    another wish, and no move leaves the question unanswered (taking in an answer, naming a
    liked item): on the default restaurant world a move answered 5 of 59 such questions,
    as a person skipping the question would."""
    profile: TargetBiasedProfile = obs.profile
    rnd = random.Random(f"{obs.episode_seed}-talk-{len(obs.dialogue)}")
    keys = (obs.episode_seed, len(obs.dialogue))
    own = [t for t in obs.dialogue if t.role == Role.seeker]
    # What it was asked about, if a move can say it. Not the kind of product: asked which
    # stand, "None of these, I'm after a stand" turned down the stands on screen for being stands.
    answers = asked is not None and bool(asked.phrase) and asked.key != "kind"
    if (own and own[-1].metadata.get("move") == "ask" and rnd.random() < ACKNOWLEDGE_ANSWER and not answers
            and not asks_something(obs.dialogue)):  # "Fair enough." to a new question answers none
        return _reply(talk.acknowledge(*keys), "acknowledge", [],  # it asked; the recommender answered
                      task="briefly thank the recommender for answering your question")
    fresh = [(i, card) for i, card in enumerate(obs.shown) if card.id not in reacted]
    others = [(i, card) for i, card in fresh if card.id != profile.target_id]
    unsaid = [f for f in facts if f.key not in stated and f.phrase and f.key != "kind"]  # a reason, not the kind
    liked = unsaid_liked(profile.liked, stated, obs.dialogue)
    exhausted = not any(f.key not in stated for f in facts)
    target = next(((i, card) for i, card in fresh if card.id == profile.target_id), None)
    if target is not None and (rnd.random() < LIKE_TARGET or exhausted):
        ref = talk.refer(target[0], "", *keys, may_name=False)
        return _reply(talk.like_shown(ref, *keys), "like", [target[1]],
                      task=f"tell the recommender: {ref} looks good to me", refs=(ref,))
    draw = rnd.random()
    together = bool(others) and not any(_may_name(card) for _, card in others)  # see `react_to_all`
    about = [card for _, card in others] if together else [others[0][1]] if others else []
    passable = not (answers and asked.claim is not None and any(_has(card, asked.claim) for card in about))
    if others and passable and (draw < rates.react or exhausted and (draw < 0.6 or not liked and draw < 0.8)):
        if together:
            return react_to_all(about, facts, unsaid, rnd, keys, asked=asked if answers else None)
        return react(others[0], facts, unsaid, profile, rnd, keys, asked=asked if answers else None)
    if others and (draw < rates.react + rates.ask or exhausted and (draw < 0.75 or not liked)):
        position, card = others[0]
        fact = asked if answers else rnd.choice(unsaid) if unsaid and rnd.random() < 0.8 else None
        if together:
            task = (f"ask the recommender whether any of these has {fact.phrase}" if fact
                    else "ask the recommender one question about these")
            return _reply(talk.ask_all(*keys, want=fact.phrase if fact else ""), "ask", about, fact=fact, task=task)
        ref = _ref(position, card, keys)
        text = talk.ask_shown(ref, *keys, want=fact.phrase if fact else "")
        task = (f"ask the recommender if {ref} has {fact.phrase}" if fact
                else f"ask the recommender one question about {ref}")
        return _reply(text, "ask", [card], fact=fact, task=task, refs=_refs(ref, card))
    if liked and not answers and (draw < rates.react + rates.ask + rates.name or exhausted):
        title = talk.spoken_title(liked[0])
        return _reply(talk.name_liked(liked[0], *keys), "name", [], keys=[f"liked:{liked[0]}"],
                      task=f"tell the recommender: I liked {title}", refs=(title,))
    return None


def policy_move(obs: SeekerObservation, facts: Sequence[Fact], stated: Sequence[str], reacted: Sequence[str],
                policy: SeekerPolicy, bank: WordingBank | None = None) -> TalkMove | None:
    """The next move as people made it (`agents.seekers.decisions`); None: say a preference.
    With a wording `bank`, said as people of the training dialogues said it."""
    profile: TargetBiasedProfile = obs.profile
    rnd = random.Random(f"{obs.episode_seed}-policy-{len(obs.dialogue)}")
    keys = (obs.episode_seed, len(obs.dialogue))
    fresh = [(i, card) for i, card in enumerate(obs.shown) if card.id not in reacted]
    unsaid = [f for f in facts if f.key not in stated and f.phrase]
    liked = unsaid_liked(profile.liked, stated, obs.dialogue)
    feasible = {"ask_more", "close", "chitchat", *(("react", "ask_shown") if fresh else ()),
                *(("name_liked",) if liked else ()), *(("preference",) if unsaid else ())}
    family = decisions.choose_family(policy, decisions.recommender_contexts(obs), decisions.seeker_turn(obs),
                                     sorted(feasible), rnd)
    views = decided_views(obs, fresh, policy)

    def said(frame: str, **values: Any) -> str:
        return decisions.people_said(bank, family, obs, keys, **values) or frame

    if family == "react":  # the target first, when it is on screen
        card = next((c for _, c in fresh if c.id == profile.target_id), fresh[0][1])
        move = reaction_move(views[card.id], keys, bank, obs)
    elif family == "ask_shown":
        position, card = fresh[0]
        ref = _ref(position, card, keys)
        text = said(talk.ask_shown(ref, *keys), title=_nameable(card, profile), kind=kind_of(card))
        move = _reply(text, "ask", [card], task=f"ask the recommender one question about {ref}", refs=_refs(ref, card))
    elif family == "name_liked":
        title = talk.spoken_title(liked[0])
        move = _reply(said(talk.name_liked(liked[0], *keys), title=liked[0]), "name", [], keys=[f"liked:{liked[0]}"],
                      task=f"tell the recommender: I liked {title}", refs=(title,))
    elif family == "preference":
        return None
    elif family == "close":
        move = _reply(said(talk.close(*keys)), "close", [], task="thank the recommender and say goodbye")
        move = replace(move, reply=replace(move.reply, quit=True))
    elif family == "ask_more":
        shown = _nameable(fresh[0][1], profile) if fresh else None
        move = _reply(said(talk.ask_more(*keys), title=shown), "ask_more", [],
                      task="ask the recommender for other suggestions")
    else:
        people = decisions.people_said(bank, family, obs, keys)
        if people is None and asks_something(obs.dialogue):
            return None  # "Okay, makes sense." takes in an answer: to a question it reads as none (blind raters)
        move = _reply(people or talk.acknowledge(*keys), "acknowledge", [], task="say something short and friendly")
    log_decisions(move.reply, views)
    return move


def asks_something(dialogue: Sequence[Turn]) -> bool:
    """Whether the recommender's last turn asks the seeker something."""
    last = next((t for t in reversed(dialogue) if t.role == Role.recommender), None)
    return last is not None and "?" in last.text


def unsaid_liked(liked: Sequence[str], stated: Sequence[str], dialogue: Sequence[Turn]) -> list[str]:
    """The liked titles it can name and has not: neither named by a move (`liked:` keys) nor
    said in an earlier seeker turn, the person's own opening included ("Have you tried
    Mastermind?" after an opening that was "Mastermind (1976)")."""
    return [t for t, unsaid in zip(liked, talk.unsaid_titles(liked, dialogue))
            if unsaid and f"liked:{t}" not in stated and talk.speakable(t)]


def _nameable(card: ItemCard, profile: TargetBiasedProfile) -> str | None:
    """A shown item's title as the corpus's people wrote it, unless it is the target (never named)."""
    return None if card.id == profile.target_id else card.title


def kind_of(card: ItemCard) -> str | None:
    """The item's kind ("horror"), for a wording that names it ("is it a {kind}?")."""
    kinds = attribute_list(card.attributes.get(KIND_ASPECT))
    return str(kinds[0]).lower() if kinds else None


def decided_views(obs: SeekerObservation, fresh: Sequence[tuple[int, ItemCard]],
                  policy: SeekerPolicy) -> dict[str, decisions.Reaction]:
    """Its view of every new item on screen, said or not (what a questionnaire would record)."""
    profile: TargetBiasedProfile = obs.profile
    known = profile.person.named if profile.person is not None else ()
    return {card.id: decisions.decide_reaction(card, position, target_id=profile.target_id, known=known,
                                               rates=policy.reactions, mentions=profile.popularity or {},
                                               seed=obs.episode_seed) for position, card in fresh}


def log_decisions(reply: SeekerReply, views: dict[str, decisions.Reaction]) -> None:
    """Log its view of each new item on screen (private: only the evaluator reads metadata)."""
    reply.metadata["decisions"] = {i: {"seen": v.seen, "like": v.like} for i, v in views.items()}


def reaction_move(reaction: decisions.Reaction, keys: tuple[object, ...], bank: WordingBank | None = None,
                  obs: SeekerObservation | None = None) -> TalkMove:
    """Say the reaction: the target is taken (never by name); any other: seen or not, liked or not."""
    card = reaction.item
    ref = (talk.refer(reaction.position, "", *keys, may_name=False) if reaction.accept
           else _ref(reaction.position, card, keys))
    text = talk.reaction(ref, *keys, seen=reaction.seen, like=reaction.like, accept=reaction.accept)
    if obs is not None:
        wording = decisions.reaction_wording(reaction, bank, (*keys, card.id))
        text = decisions.people_said(bank, "react", obs, (*keys, card.id), reaction=wording,
                                     title=None if reaction.accept else card.title) or text
    verdict = "I will take it" if reaction.accept else (
        f"I have {'' if reaction.seen else 'not '}seen it and I {'like' if reaction.like else 'do not like'} it")
    move = _reply(text, "accept" if reaction.accept else "react", [card], like=reaction.like,
                  dislike=not reaction.like, task=f"tell the recommender about {ref}: {verdict}",
                  refs=(ref,) if reaction.accept else _refs(ref, card))
    move.reply.metadata["seen"] = {card.id: reaction.seen}
    return replace(move, reply=replace(move.reply, accept=reaction.accept))


def react(shown: tuple[int, ItemCard], facts: Sequence[Fact], unsaid: Sequence[Fact], profile: TargetBiasedProfile,
          rnd: random.Random, keys: tuple[object, ...], *, asked: Fact | None = None) -> TalkMove:
    """Not this one: because of what was just asked about (`asked`), because it contradicts a
    wanted value, or to say something else wanted; with nothing to say, not known (an item
    people have not seen) or just not it."""
    position, card = shown
    reason = _pass_reason([card], facts, unsaid, rnd, asked)
    ref = _ref(position, card, keys)
    if reason is not None:
        return _reply(talk.pass_shown(ref, *keys, want=reason.phrase), "pass", [card], fact=reason, dislike=True,
                      task=f"tell the recommender: {ref} is not it for me, I want {reason.phrase}",
                      refs=_refs(ref, card))
    if any(map(talk.speakable, profile.liked)) and rnd.random() < 0.5:
        return _reply(talk.unknown_shown(ref, *keys), "unknown", [card],
                      task=f"tell the recommender: I do not know {ref}", refs=_refs(ref, card))
    return _reply(talk.pass_shown(ref, *keys), "pass", [card], dislike=True,
                  task=f"tell the recommender: {ref} is not for me", refs=_refs(ref, card))


def react_to_all(cards: Sequence[ItemCard], facts: Sequence[Fact], unsaid: Sequence[Fact], rnd: random.Random,
                 keys: tuple[object, ...], *, asked: Fact | None = None) -> TalkMove:
    """None of the items on screen, when none can be named (a catalog whose titles are product
    codes): a person says "none of these" rather than point at "the first one" every other
    turn (48% of the turns of 0.2.18's seeker on Musical Instruments; people's, about 1%).
    Each is disliked, as `react` dislikes the one it names; the reason is chosen as there."""
    reason = _pass_reason(cards, facts, unsaid, rnd, asked)
    if reason is not None:
        return _reply(talk.pass_all(*keys, want=reason.phrase), "pass", cards, fact=reason, dislike=True,
                      task=f"tell the recommender: none of these is it for me, I want {reason.phrase}")
    return _reply(talk.pass_all(*keys), "pass", cards, dislike=True,
                  task="tell the recommender: none of these is for me")


def _pass_reason(cards: Sequence[ItemCard], facts: Sequence[Fact], unsaid: Sequence[Fact], rnd: random.Random,
                 asked: Fact | None) -> Fact | None:
    """Why the seeker turns `cards` down: what it was just asked about, else a wanted value one
    of them contradicts, else something it has not said yet (drawn); None: nothing to say."""
    reason = asked or next((f for f in facts if f.claim is not None and f.phrase
                            and any(_contradicts(card, f.claim) for card in cards)), None)
    if reason is None and unsaid:
        reason = rnd.choice(unsaid)
    return reason


def _shown_values(card: ItemCard, aspect: str) -> list[str]:
    shown = card.attributes.get(aspect)
    return [shown] if isinstance(shown, str) else list(shown or [])


def _has(card: ItemCard, claim: tuple[str, str, int]) -> bool:
    """Whether `card` shows the value a wish names: turning it down for lacking it is nonsense
    ("The first one won't do, I'm after somewhere quiet" of a quiet place)."""
    aspect, value, sign = claim
    return sign > 0 and value in _shown_values(card, aspect)


def _contradicts(card: ItemCard, claim: tuple[str, str, int]) -> bool:
    aspect, value, sign = claim
    values = _shown_values(card, aspect)
    return sign > 0 and bool(values) and value not in values


def _may_name(card: ItemCard) -> bool:
    """Whether a person could say the item's title: words ("Sakura Garden"), not a product
    code, and not a listing's long name."""
    return len(card.title.split()) <= MAX_TITLE_WORDS and talk.speakable(talk.spoken_title(card.title))


def _ref(position: int, card: ItemCard, keys: tuple[object, ...]) -> str:
    return talk.refer(position, card.title, *keys, may_name=len(card.title.split()) <= MAX_TITLE_WORDS)


def _refs(ref: str, card: ItemCard) -> tuple[str, ...]:
    """How a message may point at a shown item other than the target: as the move says, or by
    its title (told "the first one", the 1.5B seeker named the film instead, and 26 of its 85
    moves on grounded ReDial fell back to the offline wording for it)."""
    title = talk.spoken_title(card.title)
    return (ref, title) if talk.speakable(title) and title != ref else (ref,)


def _reply(text: str, move: str, about: Sequence[ItemCard], *, task: str, refs: tuple[str, ...] = (),
           fact: Fact | None = None, dislike: bool = False, like: bool = False, keys: Sequence[str] = ()) -> TalkMove:
    facts = [*keys, *([fact.key] if fact else [])]
    claims = [list(fact.claim)] if fact is not None and fact.claim is not None else []
    feedback = {card.id: "dislike" if dislike else "like" for card in about} if dislike or like else {}
    return TalkMove(SeekerReply(text=text, feedback=feedback, metadata={
        "has_preference": fact is not None, "fact": facts[0] if facts else None, "facts": facts, "claims": claims,
        "move": move, "about": [card.id for card in about]}), task, refs)


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
          vague_share: float = 0.2, react_rate: float = 0.25, ask_rate: float = 0.15,
          name_rate: float = 0.05, policy: str | None = "auto",
          wordings: str | None = "auto", answer_wordings: str | None = "sgd") -> GraphAgent[SeekerContext]:
    """Hydra factory for `seeker=target_biased`; the `*_rate`s are `TalkRates`, unused when a
    fitted `policy` (a file, or the name of one shipped in agents/policies/) is given; `auto`:
    the shipped ReDial policy in grounded episodes (a real person's), the rates elsewhere.
    `wordings`: how the acts the policy chooses are said (`auto`: the bank fitted beside the
    shipped policy; a file from `crsim data wordings`; null: crsim's own frames).
    `answer_wordings`: how a wanted thing is said outside grounded episodes (`sgd`: the shipped
    bank, agents/policies/sgd_answer_wordings.json; a file from `crsim data answer-wordings`;
    null: crsim's own frames)."""
    from environments.search.encoders import get_encoder

    encoder = get_encoder(embedding_model)
    context = SeekerContext(
        answer=SeekerAnswerStep(llm, "seeker", encoder=encoder, threshold=no_preference_threshold,
                                dont_know_rate=dont_know_rate, wording_mix=(negative_share, vague_share)),
        summarize=SummarizeReviewsStep(llm, "seeker"),
        own_review_sentences=own_review_sentences,
        rates=TalkRates(react_rate, ask_rate, name_rate),
        move=SeekerMoveStep(llm, "seeker"),
        policy=load_policy(decisions.policy_path(policy)) if policy and policy != "auto" else None,
        grounded_policy=load_policy(decisions.policy_path(decisions.GROUNDED_POLICY)) if policy == "auto" else None,
        wordings=decisions.load_bank(wordings) if policy else None,
        answer_wordings=decisions.load_answer_bank(answer_wordings),
    )
    return GraphAgent(Role.seeker, build_graph(), context, memory_keys=("facts", "stated", "reacted"),
                      resume=stated_in)


def stated_in(observation: Any, moves: Sequence[Turn]) -> dict[str, Any]:
    """Memory rebuilt from earlier seeker moves: the facts they stated (not said again) and
    the shown items they reacted to."""
    return {"stated": [key for t in moves for key in (t.metadata.get("facts") or
                                                      ([t.metadata["fact"]] if t.metadata.get("fact") else []))],
            "reacted": [item for t in moves for item in t.metadata.get("about", [])]}
