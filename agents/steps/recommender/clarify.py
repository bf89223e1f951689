"""Ask a clarification question: which aspect should the recommender ask about next?

Offline, the recommender asks about the aspect that best splits its current top
candidates: the answer to that question prunes the most of what it is currently unsure
between. Aspects are the catalog's attributes and, when a vocabulary mined from the
reviews is given (`environments.search.aspects`), the aspects reviewers write about, so
a catalog without attributes still gets questions ("What kind of smell do you like, for
example light or fresh?"). An aspect's score is the (rank-weighted) share of candidates
it says something about times the entropy of what it says about them: an attribute most
items lack, or a mined aspect few reviews describe, helps little however varied its
values, and what the best-ranked candidates say counts most.
Aspects already asked are not asked again, nor one the seeker has already talked about
(its name, or one of a mined aspect's terms, is in what the seeker said), nor a mined
aspect that repeats an attribute.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
import functools
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from agents.steps.base import LanguageStep
from agents.steps.text import display_name, normalised, pick, render_dialogue, said_before
from environments.models import Item, Role, Turn
from environments.search.aspect_text import tokens
from environments.search.aspects import AspectVocabulary

QUESTION_FORMS = (
    "What {aspect} are you looking for?",
    "Do you have a preference for the {aspect}?",
    "Which {aspect} would suit you best?",
    "How about the {aspect}: anything in particular?",
)
# Mined aspects are nouns reviewers use ("smell", "battery life", "servers"): no article.
MINED_FORMS = (
    "What matters to you about {aspect}?",
    "How do you feel about {aspect}?",
    "Any wishes regarding {aspect}?",
    "What are you hoping for in terms of {aspect}?",
)
MINED_FORMS_WITH_VALUES = (
    "What kind of {aspect} do you like, for example {first} or {second}?",
    "Any preference on {aspect}? Say, {first} or {second}?",
    "When it comes to {aspect}, are you after something {first}, {second}, or something else?",
)
OPEN_QUESTION = "Is there anything else that matters to you?"
MISSING = "<none>"


class ClarifyingQuestion(BaseModel):
    question: str = Field(description="One short question to the seeker.")
    aspect: str | None = Field(default=None, description="The attribute it asks about, if any.")


@dataclass(frozen=True, slots=True)
class ClarifyInput:
    dialogue: Sequence[Turn]
    candidates: Sequence[Item]
    asked_aspects: Sequence[str]
    item_noun: str
    turn: int
    aspects: Sequence[str] = field(default_factory=tuple)
    mined: AspectVocabulary | None = None
    named: Sequence[Item] = field(default_factory=tuple)  # items the conversation has named (CRAG's links)


def normalized_values(item: Item, aspect: str) -> tuple[str, ...]:
    """An item's values for an aspect, lower-cased; a missing aspect counts as one value."""
    value = item.attributes.get(aspect)
    values = value if isinstance(value, list) else [value if value is not None else MISSING]
    return tuple(str(v).lower() for v in values)


def entropy_of(value_lists: Sequence[tuple[str, ...]], weights: Sequence[float] | None = None) -> float:
    """Shannon entropy (bits) of the values, each list counted with its weight (default 1)."""
    counts: Counter[str] = Counter()
    for position, values in enumerate(value_lists):
        weight = 1.0 if weights is None else weights[position]
        for value in values:
            counts[value] += weight
    total = sum(counts.values())
    if total <= 0:
        return 0.0
    return -sum((c / total) * math.log2(c / total) for c in counts.values() if c > 0)


def value_entropy(candidates: Sequence[Item], aspect: str) -> float:
    """Shannon entropy (bits) of an aspect's values over candidates; missing counts as a value."""
    return entropy_of([normalized_values(item, aspect) for item in candidates])


def rank_weights(n: int, decay: float) -> list[float]:
    """Weight of the candidate at each rank: 1 / rank**decay (0: all equal)."""
    return [1.0 / (rank ** decay) for rank in range(1, n + 1)]


def split_score(value_lists: Sequence[tuple[str, ...]], weights: Sequence[float] | None = None,
                known: Sequence[float] | None = None) -> float:
    """Expected share of candidates the answer speaks to, times the entropy of their values.

    `weights` let the best-ranked candidates, the likelier targets, count more; `known`
    is each candidate's chance that its value is known to someone who wants it (1 for a
    present attribute; for a mined aspect, the chance its reviews mention it). Unknown
    values (missing attribute, aspect not described) neither add information nor count
    as a value of their own. With equal weights and every value known this is the plain
    entropy of the values.
    """
    n = len(value_lists)
    weights = list(weights) if weights is not None else [1.0] * n
    known = list(known) if known is not None else [1.0] * n
    mass = [w * k if values and values != (MISSING,) else 0.0
            for w, k, values in zip(weights, known, value_lists)]
    total = sum(weights)
    if total <= 0 or sum(mass) <= 0:
        return 0.0
    return sum(mass) / total * entropy_of(value_lists, mass)


def _sparse_split_score(spoken: Sequence[tuple[tuple[str, ...], float]], total: float) -> float:
    """`split_score` from only the candidates whose values are known, as (values, mass) in rank
    order, and the sum of all candidates' weights. Zero-mass candidates add exactly 0.0 to
    every sum there, so leaving them out gives the same float, in a fraction of the time."""
    mass = sum(m for _, m in spoken)
    if total <= 0 or mass <= 0:
        return 0.0
    counts: dict[str, float] = {}
    for values, m in spoken:
        for value in values:
            counts[value] = counts.get(value, 0) + m
    value_total = sum(counts.values())
    if value_total <= 0:
        return 0.0
    return mass / total * -sum((c / value_total) * math.log2(c / value_total) for c in counts.values() if c > 0)


def _talked_about(terms: Sequence[str], said: set[str]) -> bool:
    """Whether the seeker already used one of these terms (every word of it)."""
    return any(_term_words(term) <= said for term in terms if term)


@cache
def _term_words(term: str) -> frozenset[str]:
    return frozenset(tokens(term))


def repeats_attribute(mined: str, attributes: Sequence[str]) -> bool:
    """Whether a mined aspect names an attribute ("prices" vs "price_range"): same word stem."""
    return _repeats_attribute(mined, tuple(attributes))


@cache
def _repeats_attribute(mined: str, attributes: tuple[str, ...]) -> bool:
    words = {w.rstrip("s") for w in tokens(mined)}
    return any(words & {w.rstrip("s") for w in tokens(display_name(a))} for a in attributes)


REPEATED_QUESTION = "you already asked this question; ask about something else"
NAMED_CANDIDATE = "you named a candidate ({title}); ask what the person wants, without naming any {noun}"
NAMED_ITEM = "you named {title}; ask what the person wants, without naming any {noun}"
DEFINITE_ITEM = "you asked about one {noun} as if it were known; ask what the person wants in a {noun}"


def asks_about_one_item(question: str, item_noun: str) -> str | None:
    """The singular noun when the question asks what one unnamed item is like ("What themes
    does the movie explore?", "What is the tone of the movie?"; not "the movie you want"): in
    CRAG the 1.5B recommender, refused for naming the film, asked about "the movie" instead,
    13 of its 50 questions."""
    noun = item_noun[:-1] if item_noun.endswith("s") else item_noun
    pattern = rf"\b(?:do you think|does|did|is|was|of) (?:the|this|that) {re.escape(noun)}\b(?! you)"
    return noun if noun and re.search(pattern, question, flags=re.IGNORECASE) else None


@functools.lru_cache(maxsize=256)
def question_about(aspects: tuple[str, ...]) -> type[BaseModel]:
    """What the model answers: the aspect first, one of `aspects` or null, then the question.
    Qwen2.5-1.5B asked about the cuisine four turns running, repairs included, with "cuisine"
    listed as already asked; a grammar-constrained model cannot pick an aspect outside the
    schema's enum, and choosing it before writing the question makes the question follow it."""
    kind: Any = Literal[aspects] | None if aspects else None  # type: ignore[valid-type]
    return create_model(
        "ClarifyingQuestion",
        aspect=(kind, Field(description="The attribute or topic you ask about, or null for an open question.")),
        question=(str, Field(description="One short question to the seeker about that aspect.")),
    )


class ClarifyStep(LanguageStep[ClarifyInput, ClarifyingQuestion]):
    name = "clarify_question"
    prompt_name = "clarify_question"
    output_model = ClarifyingQuestion

    def __init__(self, llm: object | None = None, role: str = "recommender", *, rank_decay: float = 0.5,
                 reviews_read: int = 10):
        super().__init__(llm, role)
        self.rank_decay = rank_decay  # candidate at rank r weighs 1 / r**rank_decay
        self.reviews_read = reviews_read  # how many of an item's reviews a person is assumed to know
        # Items are immutable during a run; normalising their values once keeps this step
        # off the per-turn profile (it runs every turn over the top candidates).
        self._values: dict[str, dict[str, tuple[str, ...]]] = {}  # aspect -> item id -> values
        self._mined: dict[int, tuple[AspectVocabulary, dict[str, list[tuple[str, tuple[str, ...], float]]]]] = {}

    def _spoken_values(self, candidates: Sequence[Item], aspect: str, weights: Sequence[float]
                       ) -> list[tuple[tuple[str, ...], float]]:
        """(values, weight) of the candidates that have the attribute, in rank order."""
        table = self._values.setdefault(aspect, {})
        spoken = []
        for item, weight in zip(candidates, weights):
            values = table.get(item.id)
            if values is None:
                values = table[item.id] = normalized_values(item, aspect)
            if values and values != (MISSING,):
                spoken.append((values, weight))
        return spoken

    def offline(self, inputs: ClarifyInput) -> ClarifyingQuestion:
        asked = {a for a in inputs.asked_aspects if a}
        said = set(tokens(" ".join(t.text for t in inputs.dialogue if t.role == Role.seeker)))
        attributes = list(inputs.aspects) or sorted({k for item in inputs.candidates for k in item.attributes})
        weights = rank_weights(len(inputs.candidates), self.rank_decay)
        total = sum(weights)
        best, best_score, best_values = None, 1e-9, []
        for aspect in attributes:
            if aspect not in asked and not _talked_about([display_name(aspect)], said):
                score = _sparse_split_score(self._spoken_values(inputs.candidates, aspect, weights), total)
                if score > best_score:
                    best, best_score, best_values = aspect, score, []
        for name, spoken in self._mined_options(inputs, asked | set(attributes), attributes, said, weights):
            score = _sparse_split_score(spoken, total)
            if score > best_score:
                best, best_score, best_values = name, score, [values for values, _ in spoken]
        if best is None:
            topic = self._open_topic(inputs, asked | set(attributes), attributes, said)
            if topic is None:
                return ClarifyingQuestion(question=OPEN_QUESTION, aspect=None)
            return ClarifyingQuestion(question=pick(MINED_FORMS, topic, inputs.turn).format(aspect=topic), aspect=topic)
        if best in attributes:
            form = pick(QUESTION_FORMS, best, inputs.turn)
            return ClarifyingQuestion(question=form.format(aspect=display_name(best)), aspect=best)
        pairs = inputs.mined.aspect(best).alternatives if inputs.mined is not None else ()
        return ClarifyingQuestion(question=mined_question(best, best_values, inputs.turn, pairs), aspect=best)

    def _mined_options(self, inputs: ClarifyInput, excluded: set[str], attributes: Sequence[str], said: set[str],
                       weights: Sequence[float]) -> list[tuple[str, list[tuple[tuple[str, ...], float]]]]:
        """(aspect, [(values, weight x chance they are known)] of the candidates that have values, in
        rank order) per askable mined aspect. Walks each candidate's few mentioned aspects
        (`_mentioned`) instead of every aspect x every candidate: this runs every turn."""
        mined = inputs.mined
        if mined is None:
            return []
        askable = [aspect.name for aspect in mined.aspects
                   if not (aspect.name in excluded or repeats_attribute(aspect.name, attributes)
                           or _talked_about(aspect.terms, said))]
        spoken: dict[str, list[tuple[tuple[str, ...], float]]] = {name: [] for name in askable}
        mentioned = self._mentioned(mined)
        for item, weight in zip(inputs.candidates, weights):
            for name, values, known in mentioned.get(item.id, ()):
                entries = spoken.get(name)
                if entries is not None:
                    entries.append((values, weight * known))
        return list(spoken.items())

    @staticmethod
    def _open_topic(inputs: ClarifyInput, excluded: set[str], attributes: Sequence[str], said: set[str],
                    top: int = 10) -> str | None:
        """With no aspect whose values split the candidates, an open question about the most
        talked-about mined aspect the top candidates' reviews mention ("What matters to you
        about the fit?") says more than "anything else?"; None when there is none left."""
        if inputs.mined is None:
            return None
        shown = [item.id for item in inputs.candidates[:top]]
        for aspect in inputs.mined.aspects:
            if (aspect.name in excluded or repeats_attribute(aspect.name, attributes)
                    or _talked_about(aspect.terms, said)):
                continue
            mentions = inputs.mined.mentions.get(aspect.name, {})
            if any(item_id in mentions for item_id in shown):
                return aspect.name
        return None

    def _mentioned(self, mined: AspectVocabulary) -> dict[str, list[tuple[str, tuple[str, ...], float]]]:
        """Item id -> (aspect, values, chance they are known) for each mined aspect its reviews give
        values for; built once per vocabulary (items and their reviews do not change in a run)."""
        table = self._mined.get(id(mined))
        if table is None or table[0] is not mined:
            by_item: dict[str, list[tuple[str, tuple[str, ...], float]]] = {}
            for aspect in mined.aspects:
                for item_id in mined.mentions.get(aspect.name, {}):
                    values = mined.values_of(aspect.name, item_id)
                    if values:
                        by_item.setdefault(item_id, []).append(
                            (aspect.name, values, mined.presence(aspect.name, item_id, self.reviews_read)))
            table = self._mined[id(mined)] = (mined, by_item)
        return table[1]

    def askable(self, inputs: ClarifyInput) -> tuple[list[str], list[str]]:
        """(attributes, mined topics) the recommender may still ask about: the offline step's
        rules (not asked yet, not already talked about by the seeker, a topic not repeating
        an attribute), so the model chooses among what the offline step would weigh."""
        asked = {a for a in inputs.asked_aspects if a}
        said = set(tokens(" ".join(t.text for t in inputs.dialogue if t.role == Role.seeker)))
        attributes = list(inputs.aspects) or sorted({k for item in inputs.candidates for k in item.attributes})
        open_attributes = [a for a in attributes if a not in asked and not _talked_about([display_name(a)], said)]
        excluded = asked | set(attributes)
        topics = [a.name for a in (inputs.mined.aspects if inputs.mined is not None else ())
                  if not (a.name in excluded or repeats_attribute(a.name, attributes) or _talked_about(a.terms, said))]
        return open_attributes, topics

    def answer_model(self, inputs: ClarifyInput) -> type[BaseModel]:
        attributes, topics = self.askable(inputs)
        return question_about(tuple(dict.fromkeys(attributes + topics)))

    def check(self, output: BaseModel, inputs: ClarifyInput) -> str | None:
        """A question already asked, word for word, is refused (Qwen2.5-1.5B asked one twice
        running), and so is one naming a candidate ("What is the cuisine of Kitchen on Bridge
        Street II?", which the person cannot know) or an item the conversation named (in CRAG
        it asked "What genre do you think Hugo's Promise fits into?" of a film the person had
        liked, five turns running, one aspect after another), or one asking what one unnamed
        item is like (`asks_about_one_item`); asking about an aspect again in other words the
        schema prevents."""
        question = getattr(output, "question", "")
        if said_before(question, inputs.dialogue, Role.recommender):
            return REPEATED_QUESTION
        words = normalised(question)
        for items, message in ((inputs.candidates[:10], NAMED_CANDIDATE), (inputs.named, NAMED_ITEM)):
            named = next((item.title for item in items if normalised(item.title) in words), None)
            if named is not None:
                return message.format(title=named, noun=inputs.item_noun)
        noun = asks_about_one_item(question, inputs.item_noun)
        return DEFINITE_ITEM.format(noun=noun) if noun else None

    def prompt_variables(self, inputs: ClarifyInput) -> dict[str, object]:
        mined = inputs.mined
        lines = []
        mined_aspects = mined.aspects if mined is not None else []
        attributes, topic_names = self.askable(inputs)
        open_topics = set(topic_names)
        for item in inputs.candidates[:10]:
            facts = [f"{display_name(k)}: {v if isinstance(v, str) else ', '.join(v)}"
                     for k, v in item.attributes.items()]
            for aspect in mined_aspects:
                values = mined.values_of(aspect.name, item.id) if mined is not None else None
                if values:
                    facts.append(f"{aspect.name}: {', '.join(values)} (from reviews)")
            lines.append(f"- {item.title} ({'; '.join(facts[:12])})")
        topics = [f"{a.name} (e.g. {', '.join(a.values[:3])})" if a.values else a.name
                  for a in mined_aspects if a.name in open_topics]
        return {
            "item_noun": inputs.item_noun,
            "dialogue": render_dialogue(inputs.dialogue),
            "candidates": "\n".join(lines) or "(none)",
            "asked_aspects": ", ".join(a for a in inputs.asked_aspects if a) or "(none)",
            "aspects": ", ".join(attributes) or "(none)",
            "review_aspects": "; ".join(topics) or "(none)",
        }


def mined_question(aspect: str, values: Sequence[tuple[str, ...]], turn: int,
                   alternatives: Sequence[tuple[str, str]] = ()) -> str:
    """A question about a mined aspect, offering two of the candidates' values that are alternatives.

    Two frequent values are not a choice ("usb or monster" cable: a kind and a brand, both
    true of one cable); only a pair the miner found describing different items is offered
    (`MinedAspect.alternatives`), the one the candidates split most evenly on. Without
    such a pair among the candidates the question is open.
    """
    counts = Counter(v for vs in values for v in vs)
    offered = [(min(counts[a], counts[b]), counts[a] + counts[b], -position, a, b)
               for position, (a, b) in enumerate(alternatives) if counts[a] and counts[b]]
    if offered:
        *_, first, second = max(offered)
        if counts[second] > counts[first]:
            first, second = second, first
        form = pick(MINED_FORMS_WITH_VALUES, aspect, turn)
        return form.format(aspect=aspect, first=first, second=second)
    return pick(MINED_FORMS, aspect, turn).format(aspect=aspect)
