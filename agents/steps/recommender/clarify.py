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
(its name, one of its values, or one of a mined aspect's terms, is in what the seeker
said), nor one an answered attribute settles (the state once the city is known), nor a
mined aspect that repeats an attribute.

Questions read like the ones people ask each other. An attribute question offers two of
the candidates' values ("What genre do you like? Comedy? Horror?", as ReDial's
recommenders did), and an attribute whose values few candidates share (a film's writer)
weighs less: nobody asks for a film by its writer before knowing the film, and of the
1,132 questions ReDial's recommenders asked in its training conversations, 226 named a
kind or genre, at most 12 an actor, 2 a director, none a writer. With nothing left to
ask, the recommender asks an open question once and then what the seeker makes of what it
shows ("Have you seen any of these?"; "have you seen ...?" is the question ReDial's
recommenders asked most), not "anything else?" every turn.
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
from agents.steps.text import display_name, fill_form, normalised, pick, render_dialogue, said_before
from environments.models import Item, Role, Turn
from environments.search.aspect_text import non_content_words, tokens
from environments.search.aspects import AspectVocabulary, MinedAspect

QUESTION_FORMS = (
    "What {aspect} are you looking for?",
    "Do you have a preference for the {aspect}?",
    "Any {aspect} in mind?",
    "What {aspect} do you like?",
)
# Two of the candidates' values, most often as people offer them: after the question.
QUESTION_FORMS_WITH_VALUES = (
    "What {aspect} do you like? {First}? {Second}?",
    "Any {aspect} in mind, like {first} or {second}?",
    "Any favourite {aspect}? {First}, {second}?",
    "Do you have a preference for the {aspect}, say {first} or {second}?",
)
# An attribute the candidates with this share of the rank weight have is asked before any
# mined aspect (a sparse one, known for two of six, still competes with them).
LISTED_SHARE = 0.5
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
# Once the open question was asked: what the seeker makes of what is shown, without naming it
# (a title in the recommender's words is a mention to CRAG's linker, and a mentioned item is
# not recommended again: "Have you seen Heat?" took Heat off CRAG's list).
SHOWN_FORMS = ("Do any of these look good?", "Anything here you like?", "How do these look?")
SEEN_FORMS = ("Have you seen any of these?", "Do any of these sound good?", "Seen any of these?")
WATCHED_NOUNS = frozenset({"movie", "movies", "film", "films", "show", "shows", "series"})
MISSING = "<none>"
Columns = dict[str, list[tuple[str, ...]]]  # attribute -> the candidates' values, kept for one turn
# Values that cannot show which attribute the seeker talked about ("yes", "no", "4").
_UNINFORMATIVE_VALUE_WORDS = frozenset({"yes", "no", "true", "false", "none", "other"})


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


def _open_mined(mined: AspectVocabulary, excluded: set[str], attributes: Sequence[str], said: set[str]
                ) -> list[MinedAspect]:
    """The mined aspects still worth asking about: not asked, not an attribute again, and not
    settled by what the seeker said (`_still_open`)."""
    with_singulars = said | _singulars(said) if any(aspect.kind for aspect in mined.aspects) else said
    return [aspect for aspect in mined.aspects
            if not (aspect.name in excluded or repeats_attribute(aspect.name, attributes))
            and _still_open(aspect, said, with_singulars)]


def _still_open(aspect: MinedAspect, said: set[str], with_singulars: set[str]) -> bool:
    """An aspect the seeker named is settled; a kind of product (`MinedAspect.kind`) the other
    way round: it is asked about only once the seeker has named it, which one they want
    ("I need a cable": "What kind of cable, patch or audio?"), until they say ("a patch
    cable"). 0.2.16 asked the candidates' other kinds instead, whichever their reviews
    mention: "Any preference on amp? Say, headphone or tube?" after "I need a cable", or
    "Any preference on mic?" of someone after picks (254 of 262 such questions in 100
    Musical Instruments episodes went to a seeker whose target was another kind)."""
    if aspect.kind:  # named in the plural too: "some jackets"
        return _talked_about(aspect.terms, with_singulars) and bool(aspect.values) and said.isdisjoint(aspect.values)
    return not _talked_about(aspect.terms, said)


def _singulars(words: set[str]) -> set[str]:
    """What plural-looking words could be in the singular ("jackets", "dresses", "accessories")."""
    return {_stem(w) for w in words} | {w[:-2] for w in words if len(w) > 4 and w.endswith("es")}


@cache
def _term_words(term: str) -> frozenset[str]:
    return frozenset(tokens(term))


def _stem(word: str) -> str:
    """"comedies" -> "comedy", "thrillers" -> "thriller": a value said in the plural still counts."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@cache
def _value_words(value: str) -> frozenset[str]:
    """A value's words, stemmed; empty when none could show the attribute ("yes", "4", "the")."""
    words = [w for w in tokens(value) if re.fullmatch(r"[a-z][a-z'-]*", w)]
    if all(w in non_content_words() or w in _UNINFORMATIVE_VALUE_WORDS for w in words):
        return frozenset()
    return frozenset(_stem(w) for w in words)


def shared_share(spoken: Sequence[tuple[tuple[str, ...], float]]) -> float:
    """The share of the candidates' mass with a value another candidate has too. A value
    only one candidate has (a film's writer) is one no seeker brings to the conversation:
    they learn it with the item. Aspects with no shared value at all are still ranked by
    the plain split score (a pool of two can share nothing)."""
    counts = Counter(v for values, _ in spoken for v in set(values))
    mass = sum(m for _, m in spoken)
    if mass <= 0:
        return 0.0
    return sum(m for values, m in spoken if any(counts[v] > 1 for v in values)) / mass


def _question_score(spoken: Sequence[tuple[tuple[str, ...], float]], total: float) -> tuple[float, float]:
    """How good a question about an aspect is: its split score weighed by `shared_share`,
    then the plain split score to break ties."""
    plain = _sparse_split_score(spoken, total)
    return plain * shared_share(spoken), plain


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
                 reviews_read: int = 10, catalog_items: Sequence[Item] = ()):
        super().__init__(llm, role)
        # The catalog's items, for every value an attribute can take: the seeker's "horror" answers
        # the genre though none of the current candidates is a horror film (indexed on first use).
        self._catalog_items = catalog_items
        self._catalog_values: dict[str, dict[str, list[frozenset[str]]]] | None = None
        self.rank_decay = rank_decay  # candidate at rank r weighs 1 / r**rank_decay
        self.reviews_read = reviews_read  # how many of an item's reviews a person is assumed to know
        # Items are immutable during a run; normalising their values once keeps this step
        # off the per-turn profile (it runs every turn over the top candidates).
        self._values: dict[str, dict[str, tuple[str, ...]]] = {}  # aspect -> item id -> values
        self._mined: dict[int, tuple[AspectVocabulary, dict[str, list[tuple[str, tuple[str, ...], float]]]]] = {}

    def _column(self, candidates: Sequence[Item], aspect: str, columns: Columns) -> list[tuple[str, ...]]:
        """The candidates' values of one attribute, in rank order, kept in `columns` for the
        turn: every open attribute is read several times a turn (answered? settled by a known
        one? how well does it split?), and this step runs every turn."""
        column = columns.get(aspect)
        if column is None:
            table = self._values.setdefault(aspect, {})
            column = columns[aspect] = []
            for item in candidates:
                values = table.get(item.id)
                if values is None:
                    values = table[item.id] = normalized_values(item, aspect)
                column.append(values)
        return column

    @staticmethod
    def _spoken_values(column: Sequence[tuple[str, ...]], weights: Sequence[float]
                       ) -> list[tuple[tuple[str, ...], float]]:
        """(values, weight) of the candidates that have the attribute, in rank order."""
        return [(values, weight) for values, weight in zip(column, weights) if values and values != (MISSING,)]

    def _answered(self, column: Sequence[tuple[str, ...]], aspect: str, said: set[str]) -> bool:
        """Whether the seeker named a value of the attribute, one of the candidates' or any in
        the catalog ("horror" answers the genre, "comedies" too)."""
        for values in set(column):
            for value in values:
                words = _value_words(value)
                if words and words <= said:
                    return True
        index = self._value_index().get(aspect, {})
        return any(words <= said for word in said for words in index.get(word, ()))

    def _value_index(self) -> dict[str, dict[str, list[frozenset[str]]]]:
        """Attribute -> a word -> the catalog's values (as word sets) filed under that word, each
        value under one of its words: a value is named only if all its words are said, so
        looking up each said word finds it."""
        if self._catalog_values is None:
            index: dict[str, dict[str, set[frozenset[str]]]] = {}
            for item in self._catalog_items:
                for aspect, raw in item.attributes.items():
                    for value in raw if isinstance(raw, list) else [raw]:
                        words = _value_words(str(value).lower()) if value is not None else frozenset()
                        if words:
                            index.setdefault(aspect, {}).setdefault(min(words), set()).add(words)
            self._catalog_values = {a: {w: sorted(v, key=sorted) for w, v in by.items()} for a, by in index.items()}
        return self._catalog_values

    def _settled_by(self, candidates: Sequence[Item], aspect: str, known: Sequence[str], columns: Columns,
                    sizes_of: dict[str, Counter[tuple[str, ...]]]) -> bool:
        """Whether an attribute already asked or answered fixes this one among the candidates
        (the state once the city is known): the candidates sharing a value of the known
        attribute, at least half of those that have both, have one value of this per group.
        Every open attribute is checked against every known one: `sizes_of` keeps each known
        attribute's value counts for the turn, as `columns` its values."""
        this = self._column(candidates, aspect, columns)
        for other in known:
            if other == aspect:
                continue
            key_column = self._column(candidates, other, columns)
            groups: dict[tuple[str, ...], set[tuple[str, ...]]] = {}
            for key, values in zip(key_column, this):
                if key != (MISSING,) and values != (MISSING,):
                    groups.setdefault(key, set()).add(values)
            sizes = sizes_of.get(other)
            if sizes is None:
                sizes = sizes_of[other] = Counter(key_column)
            both = sum(sizes[key] for key in groups)
            grouped = [key for key in groups if sizes[key] > 1]
            if grouped and all(len(groups[key]) == 1 for key in grouped) and 2 * sum(sizes[k] for k in grouped) >= both:
                return True
        return False

    @staticmethod
    def _options(candidates: Sequence[Item], aspect: str, weights: Sequence[float]) -> tuple[str, str] | None:
        """The two values most of the (rank-weighted) candidates have, in the catalog's own
        spelling, when at least two values are each shared by two candidates or more."""
        mass: Counter[str] = Counter()
        seen: Counter[str] = Counter()
        spelling: dict[str, str] = {}
        for item, weight in zip(candidates, weights):
            raw = item.attributes.get(aspect)
            for value in raw if isinstance(raw, list) else [raw] if raw is not None else []:
                key = str(value).lower()
                if _value_words(key):
                    mass[key] += weight
                    seen[key] += 1
                    spelling.setdefault(key, str(value))
        shared = [key for key, _ in mass.most_common() if seen[key] > 1]
        return (spelling[shared[0]], spelling[shared[1]]) if len(shared) > 1 else None

    def _open_attributes(self, inputs: ClarifyInput, columns: Columns
                         ) -> tuple[set[str], set[str], list[str], list[str]]:
        """(asked, words the seeker said, every attribute, the attributes still open): not
        asked, not named or answered by the seeker, not settled by a known attribute."""
        asked = {a for a in inputs.asked_aspects if a}
        said = set(tokens(" ".join(t.text for t in inputs.dialogue if t.role == Role.seeker)))
        said_stems = {_stem(word) for word in said}
        candidates = inputs.candidates
        attributes = list(inputs.aspects) or sorted({k for item in candidates for k in item.attributes})
        answered = [a for a in attributes
                    if a not in asked and self._answered(self._column(candidates, a, columns), a, said_stems)]
        known = [a for a in attributes if a in asked] + answered
        sizes_of: dict[str, Counter[tuple[str, ...]]] = {}
        open_attributes = [a for a in attributes
                           if not (a in asked or a in answered or _talked_about([display_name(a)], said)
                                   or self._settled_by(candidates, a, known, columns, sizes_of))]
        return asked, said, attributes, open_attributes

    def offline(self, inputs: ClarifyInput) -> ClarifyingQuestion:
        """The open attribute that best splits the candidates; a mined aspect only when no
        attribute most candidates have (`LISTED_SHARE`) splits them: a catalog's own facets
        come first, as a shop assistant's would. A mined aspect is a guess at a facet from
        review words, and on the default restaurant world none of the 12 mined-aspect
        questions in 30 episodes ("What kind of evening do you like, for example warm or
        three-course?") got an answer about it, where the listed attributes got 47 of 108."""
        columns: Columns = {}
        asked, said, attributes, open_attributes = self._open_attributes(inputs, columns)
        weights = rank_weights(len(inputs.candidates), self.rank_decay)
        total = sum(weights)
        best, best_score, best_values = None, (0.0, 1e-9), []
        listed = False  # an open attribute most candidates have splits them: no mined aspect is asked
        for aspect in open_attributes:
            spoken = self._spoken_values(self._column(inputs.candidates, aspect, columns), weights)
            score = _question_score(spoken, total)
            listed = listed or score[1] > 0 and sum(m for _, m in spoken) >= LISTED_SHARE * total
            if score > best_score:
                best, best_score, best_values = aspect, score, []
        mined = [] if listed else self._mined_options(inputs, asked | set(attributes), attributes, said, weights)
        for name, spoken in mined:
            score = _question_score(spoken, total)
            if score > best_score:
                best, best_score, best_values = name, score, [values for values, _ in spoken]
        if best is None:
            topic = self._open_topic(inputs, asked | set(attributes), attributes, said)
            if topic is not None:
                return ClarifyingQuestion(question=pick(MINED_FORMS, topic, inputs.turn).format(aspect=topic),
                                          aspect=topic)
            return ClarifyingQuestion(question=self._last_question(inputs), aspect=None)
        if best in attributes:
            options = self._options(inputs.candidates, best, weights)
            if options is None:
                form = pick(QUESTION_FORMS, best, inputs.turn)
                return ClarifyingQuestion(question=form.format(aspect=display_name(best)), aspect=best)
            form = pick(QUESTION_FORMS_WITH_VALUES, best, inputs.turn)
            question = fill_form(form, aspect=display_name(best), first=options[0], second=options[1])
            return ClarifyingQuestion(question=question, aspect=best)
        pairs = inputs.mined.aspect(best).alternatives if inputs.mined is not None else ()
        return ClarifyingQuestion(question=mined_question(best, best_values, inputs.turn, pairs), aspect=best)

    @staticmethod
    def _last_question(inputs: ClarifyInput) -> str:
        """The open question, once; then what the seeker thinks of what is shown, not in the
        words the recommender used last turn."""
        if not said_before(OPEN_QUESTION, inputs.dialogue, Role.recommender):
            return OPEN_QUESTION
        forms = SEEN_FORMS if inputs.item_noun.lower() in WATCHED_NOUNS else SHOWN_FORMS
        last = next((t.text for t in reversed(inputs.dialogue) if t.role == Role.recommender), "")
        fresh = [form for form in forms if normalised(form) not in normalised(last)]
        return pick(fresh or forms, inputs.turn)

    def _mined_options(self, inputs: ClarifyInput, excluded: set[str], attributes: Sequence[str], said: set[str],
                       weights: Sequence[float]) -> list[tuple[str, list[tuple[tuple[str, ...], float]]]]:
        """(aspect, [(values, weight x chance they are known)] of the candidates that have values, in
        rank order) per askable mined aspect. Walks each candidate's few mentioned aspects
        (`_mentioned`) instead of every aspect x every candidate: this runs every turn."""
        mined = inputs.mined
        if mined is None:
            return []
        askable = [aspect.name for aspect in _open_mined(mined, excluded, attributes, said)]
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
        for aspect in _open_mined(inputs.mined, excluded, attributes, said):
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
        rules (not asked yet, not already talked about or answered by the seeker, not settled
        by a known attribute, a topic not repeating an attribute), so the model chooses among
        what the offline step would weigh."""
        asked, said, attributes, open_attributes = self._open_attributes(inputs, {})
        excluded = asked | set(attributes)
        topics = [a.name for a in _open_mined(inputs.mined, excluded, attributes, said)] if inputs.mined else []
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
