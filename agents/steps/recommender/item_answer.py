"""Answer a seeker's question about an item the recommender showed (or one the seeker names).

People in ReDial and INSPIRED ask about what they are shown: "Does the second one have a
tuner built in?", "Is the first one loud?", "What is <title> about?", "Have you seen
<title>?". A recommender that only ranks and asks its next question ignores them, which
no person would; this step gives every offline recommender the same short answer to put
before its own question (`answer_first`).

Offline, the step reads the question sentences of the seeker's last utterance and finds
which item one is about — an ordinal of the last shown list ("the second one", "the top
one", "#3"), a title (of a shown item or any catalog item, fuzzy-matched, year and leading
article ignored), else a pointer ("it", "that one") to the first item shown — and what it
asks: its content words minus the reference and question words. It answers from the item's
attributes (a value or attribute name among the asked words; a value the item does not
have is a "no"), else from what its reviews say about an asked word (how many mention it and
the words they describe it with, never a copied sentence), else, for "what is it about /
is it any good" questions, from its description or its ratings; otherwise it says honestly
that it does not know. An utterance that asks nothing about an item gets an empty answer,
so a recommender prepending it says byte for byte what it said before, and the language
model is not called for it.

Per catalog, a title word index and an attribute value index are built once, and an item's
review sentences are tokenised the first time the item is asked about: a turn never scans
the whole catalog.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from agents.steps.base import LanguageStep
from agents.steps.recommender.item_reference import (
    Asked, CatalogIndex, last_shown, read_question, same_word,
)
from agents.steps.text import capitalised, display_name, pick, split_sentences
from environments.catalog import Catalog
from environments.models import Item, Role
from environments.search.aspect_text import DETERMINERS, NEGATIONS, PRAISE, find_mentions, term_index, tokens

# Words that make what follows a thing someone has ("a tuner", "any parking"), not a quality ("loud").
_NOUN_CUES = DETERMINERS | frozenset("a an any some much many its their good great nice decent".split())
_HAVE = frozenset("have has had got with come comes include includes offer offers".split())
MAX_ANSWER_WORDS = 20

YES_VALUE = ("Yes, it's {value}.", "Yes, its {attribute} is {value}.", "It is, yes: {value}.")
YES_LIST = ("Yes, its {attribute} include {value}.", "Yes, {value} is among its {attribute}.")
NO_VALUE = ("No, its {attribute} is {value}.", "Not really, it's {value}.", "No, it's {value}.")
NAMED_VALUE = ("Its {attribute} is {value}.", "The {attribute} is {value}.", "That one's {attribute} is {value}.")
NOUN_DESCRIBED = ("{count} {mention} the {word}; they say it's {descriptors}.",
                  "{count} {bring} up the {word}, calling it {descriptors}.",
                  "{count} {mention} the {word}: {descriptors}, they say.")
NOUN_BARE = ("{count} {mention} the {word}, without saying much about it.",
             "{count} {bring} up the {word}, but say little about it.")
QUALITY_YES = ("Yes, {count} {call} it {word}.", "{count} {describe} it as {word}.")
QUALITY_NO = ("{count} {say} it's not {word}.", "Not really: {count} {say} it isn't {word}.")
QUALITY_MIXED = ("{yes_count} {call} it {word}, but {no_count} {say} it isn't.",
                 "Opinions differ: {yes_count} {call} it {word}, {no_count} not.")
ABOUT = ("{description}", "In short: {description}", "Briefly: {description}")
ABOUT_ATTRIBUTES = ("It's {values}.", "In short, it's {values}.")
OPINION = ("Reviewers rate it {mean} out of {scale} on average, over {n} {reviews}.",
           "It averages {mean} of {scale} stars from {n} {reviews}.")
SEEN = ("I know it: reviewers rate it {mean} out of {scale}, over {n} {reviews}.",
        "I know it; it averages {mean} of {scale} stars from {n} {reviews}.")
UNKNOWN = ("I'm not sure about {asked} for that one.", "I don't know about {asked} for that one, sorry.",
           "I can't tell you about {asked} for that one.")
UNKNOWN_BARE = ("I'm not sure about that one.", "I don't know much about that one, sorry.")


class ItemAnswer(BaseModel):
    answer: str = Field(default="", description="One short answer, or \"\" when the message asks nothing "
                                                "about an item.")
    item_id: str | None = Field(default=None, description="Id of the item the question is about, or null.")


@dataclass(frozen=True, slots=True)
class ItemQuestion:
    """The seeker's last utterance and what it may refer to: the items of the recommender's last
    move (ids, in the order shown) and the recommender's own catalog view."""

    utterance: str
    shown: Sequence[str]
    catalog: Catalog
    item_noun: str
    turn: int = 0


def _value_text(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _count_phrase(n: int) -> tuple[str, bool]:
    """How many reviewers, in words, and whether the verb takes the singular."""
    if n == 1:
        return "one reviewer", True
    if n == 2:
        return "two reviewers", False
    if n == 3:
        return "a few reviewers", False
    return f"{n} reviewers", False


def _verbs(singular_subject: bool) -> dict[str, str]:
    base = {"mention": "mention", "bring": "bring", "call": "call", "describe": "describe", "say": "say"}
    if singular_subject:
        return {k: v + "s" if not v.endswith("y") else v[:-1] + "ies" for k, v in base.items()} | {"say": "says"}
    return base


def _short(text: str, limit: int = MAX_ANSWER_WORDS) -> str:
    words = text.split()
    return text if len(words) <= limit else " ".join(words[: limit - 2]).rstrip(",;:") + "…"


class ItemAnswerStep(LanguageStep[ItemQuestion, ItemAnswer]):
    name = "item_answer"
    prompt_name = "item_answer"
    output_model = ItemAnswer

    def __init__(self, llm: object | None = None, role: str = "recommender"):
        super().__init__(llm, role)
        self._indexes: dict[int, tuple[Catalog, CatalogIndex]] = {}
        self._last_read: tuple[ItemQuestion, Asked | None] | None = None

    async def run(self, inputs: ItemQuestion) -> ItemAnswer:
        """Nothing asked about an item: an empty answer without calling a model (the common case)."""
        if self._read_once(inputs) is None:
            return ItemAnswer()
        return await super().run(inputs)

    def _read_once(self, inputs: ItemQuestion) -> Asked | None:
        """`asked(inputs)`, read once for `run` and the `offline` it calls (title matching is the
        costly part; nothing awaits between the two, so concurrent episodes cannot interleave)."""
        if self._last_read is None or self._last_read[0] is not inputs:
            self._last_read = (inputs, self.asked(inputs))
        return self._last_read[1]

    def asked(self, inputs: ItemQuestion) -> Asked | None:
        """The first question sentence of the utterance that is about an item, or None
        (`read_question`; the catalog's index is built on the first question)."""
        if "?" not in inputs.utterance:
            return None
        return read_question(inputs.utterance, inputs.shown, inputs.catalog, inputs.item_noun,
                             self._index(inputs.catalog))

    # ----------------------------------------------------------------- answering
    def offline(self, inputs: ItemQuestion) -> ItemAnswer:
        asked = self._read_once(inputs)
        if asked is None:
            return ItemAnswer()
        item = inputs.catalog.item(asked.item_id)
        keys = (asked.item_id, " ".join(asked.words), inputs.turn)
        text = self._from_attributes(item, asked, inputs.catalog, keys) \
            or self._from_reviews(item, asked, inputs.catalog, keys)
        if text is None and asked.about:
            text = self._about(item, keys)
        if text is None and (asked.opinion or asked.seen):
            text = self._opinion(item, asked, inputs.catalog, keys)
        if text is None and not asked.words:
            text = self._about(item, keys)  # "what about the second one?"
        if text is None:
            text = pick(UNKNOWN, *keys).format(asked=" ".join(asked.words[:3])) if asked.words \
                else pick(UNKNOWN_BARE, *keys)
        return ItemAnswer(answer=_short(text), item_id=asked.item_id)

    def _from_attributes(self, item: Item, asked: Asked, catalog: Catalog, keys: tuple[object, ...]) -> str | None:
        """An asked word that is one of the item's values ("yes"), another item's value of an
        attribute this item has ("no, it's ..."), or an attribute's name (its value)."""
        for word in asked.words:
            for attribute, value in item.attributes.items():
                values = value if isinstance(value, list) else [value]
                hit = next((v for v in values if any(same_word(word, w) for w in tokens(str(v)))), None)
                if hit is not None:
                    forms = YES_LIST if isinstance(value, list) and len(value) > 1 else YES_VALUE
                    return pick(forms, *keys).format(attribute=display_name(attribute), value=hit)
        index = self._index(catalog)
        for word in asked.words:
            for attribute in (index.values.get(word) or {}):
                if attribute in item.attributes:
                    return pick(NO_VALUE, *keys).format(attribute=display_name(attribute),
                                                        value=_value_text(item.attributes[attribute]))
        for word in asked.words:
            for attribute, value in item.attributes.items():
                if any(same_word(word, w) for w in tokens(display_name(attribute))):
                    return pick(NAMED_VALUE, *keys).format(attribute=display_name(attribute), value=_value_text(value))
        return None

    def _from_reviews(self, item: Item, asked: Asked, catalog: Catalog, keys: tuple[object, ...]) -> str | None:
        """How many reviews mention the most-mentioned asked word, and what they call it."""
        if not asked.words:
            return None
        review_words = self._review_words(catalog, item.id)
        best: tuple[int, str] | None = None
        for word in asked.words:
            n = len({r for r, words in review_words if any(same_word(word, w) for w in words)})
            if n and (best is None or n > best[0]):
                best = (n, word)
        if best is None:
            return None
        n, word = best
        count, singular_subject = _count_phrase(n)
        verbs = _verbs(singular_subject)
        said = [words for _, words in review_words if any(same_word(word, w) for w in words)]
        if self._is_thing(word, asked.sentence):
            descriptors = _descriptors(word, said)
            if descriptors:
                form = pick(NOUN_DESCRIBED, *keys)
                return capitalised(form.format(count=count, word=word, descriptors=" and ".join(descriptors),
                                                **verbs))
            return capitalised(pick(NOUN_BARE, *keys).format(count=count, word=word, **verbs))
        no = sum(1 for words in said if _negated(word, words))  # sentences, as a proxy for reviewers
        yes = len(said) - no
        if not no:
            return capitalised(pick(QUALITY_YES, *keys).format(count=count, word=word, **verbs))
        no_count, no_singular = _count_phrase(no)
        if not yes:
            return capitalised(pick(QUALITY_NO, *keys).format(count=no_count, word=word, **_verbs(no_singular)))
        yes_count, yes_singular = _count_phrase(yes)
        return capitalised(pick(QUALITY_MIXED, *keys).format(
            yes_count=yes_count, no_count=no_count, word=word, call=_verbs(yes_singular)["call"],
            say=_verbs(no_singular)["say"]))

    @staticmethod
    def _is_thing(word: str, sentence: str) -> bool:
        """Whether the question asks about a thing the item has ("a tuner") rather than a quality ("loud")."""
        words = tokens(sentence)
        position = next((i for i, w in enumerate(words) if w == word), None)
        if position is None:
            return True
        return (position > 0 and words[position - 1] in _NOUN_CUES) or not _HAVE.isdisjoint(words[:position])

    @staticmethod
    def _about(item: Item, keys: tuple[object, ...]) -> str | None:
        """The description's first sentence, else the item's attribute values."""
        first = split_sentences(item.description)
        if first:
            return pick(ABOUT, *keys).format(description=_short(first[0], MAX_ANSWER_WORDS - 2))
        values = [_value_text(v) for v in item.attributes.values()][:3]
        if values:
            joined = values[0] if len(values) == 1 else ", ".join(values[:-1]) + " and " + values[-1]
            return pick(ABOUT_ATTRIBUTES, *keys).format(values=joined)
        return None

    @staticmethod
    def _opinion(item: Item, asked: Asked, catalog: Catalog, keys: tuple[object, ...]) -> str | None:
        reviews = catalog.reviews_by_item.get(item.id, [])
        if not reviews:
            return None
        ratings = [r.rating for r in reviews]
        scale = 10 if max(ratings) > 5 else 5
        mean = f"{sum(ratings) / len(ratings):.1f}"
        forms = SEEN if asked.seen else OPINION
        return pick(forms, *keys).format(mean=mean, scale=scale, n=len(ratings),
                                         reviews="review" if len(ratings) == 1 else "reviews")

    def _index(self, catalog: Catalog) -> CatalogIndex:
        cached = self._indexes.get(id(catalog))
        if cached is not None and cached[0] is catalog:
            return cached[1]
        index = CatalogIndex.build(catalog)
        self._indexes[id(catalog)] = (catalog, index)
        return index

    def _review_words(self, catalog: Catalog, item_id: str) -> list[tuple[int, list[str]]]:
        return self._index(catalog).words_of_reviews(catalog, item_id)

    # ----------------------------------------------------------------- language model
    def prompt_variables(self, inputs: ItemQuestion) -> dict[str, object]:
        asked = self._read_once(inputs)
        catalog = inputs.catalog
        shown = [i for i in inputs.shown if i in catalog.item_index]
        lines = [f"{n}. {self._card(catalog, item_id, asked)}" for n, item_id in enumerate(shown, 1)]
        named = self._card(catalog, asked.item_id, asked) if asked is not None and asked.item_id not in shown else ""
        return {"item_noun": inputs.item_noun, "utterance": inputs.utterance,
                "shown": "\n".join(lines) or "(none)", "named": named or "(none)"}

    def _card(self, catalog: Catalog, item_id: str, asked: Asked | None) -> str:
        """An item as the model reads it: id, title, attributes, description, a few review sentences
        (those with an asked word first)."""
        item = catalog.item(item_id)
        facts = "; ".join(f"{display_name(k)}: {_value_text(v)}" for k, v in item.attributes.items())
        said = [" ".join(words) for _, words in self._review_words(catalog, item_id)]
        wanted = asked.words if asked is not None else ()
        said.sort(key=lambda s: not any(same_word(w, x) for w in wanted for x in s.split()))
        reviews = " | ".join(said[:4])
        return f"[{item.id}] {item.title} ({facts}) {item.description[:300]} Reviews: {reviews or '(none)'}"

    def accept(self, output: ItemAnswer, inputs: ItemQuestion) -> ItemAnswer:
        """Keep the model's answer but never an item id the catalog does not have."""
        answer = " ".join(output.answer.split())
        if not answer:
            return ItemAnswer()
        item_id = output.item_id if output.item_id in inputs.catalog.item_index else None
        if item_id is None:
            asked = self.asked(inputs)
            item_id = asked.item_id if asked is not None else None
        return ItemAnswer(answer=answer, item_id=item_id)


def _negated(word: str, words: Sequence[str]) -> bool:
    """Whether a negation stands within three words before the word ("not loud", "isn't too loud")."""
    for i, w in enumerate(words):
        if same_word(word, w) and not NEGATIONS.isdisjoint(words[max(0, i - 3): i]):
            return True
    return False


def _descriptors(word: str, said: Sequence[Sequence[str]], limit: int = 2) -> list[str]:
    """The words reviews most often describe `word` with ("the tuner is *accurate*"), plain
    descriptions before praise; short, so no sentence is ever repeated whole."""
    terms = term_index({word: word, word + "s": word})
    counts: Counter[str] = Counter()
    for words in said:
        for mention in find_mentions(words, terms):
            if not mention.doubtful:
                for value in mention.values:
                    if value and len(value.split()) <= 2:
                        counts[value] += 1
    ranked = sorted(counts.items(), key=lambda kv: (kv[0] in PRAISE, -kv[1], kv[0]))
    return [value for value, _ in ranked[:limit]]


async def answer_first(step: ItemAnswerStep | None, observation: Any, catalog: Catalog, question: str,
                       metadata: dict[str, Any]) -> str:
    """`question` preceded by the answer to the seeker's question about an item, when their last
    utterance asked one; the item answered about goes into `metadata["answered"]`. Otherwise
    `question` and `metadata` are left exactly as they were (logs of such turns do not change)."""
    dialogue = observation.dialogue
    if step is None or not dialogue or dialogue[-1].role != Role.seeker:
        return question
    shown = last_shown(dialogue) or [card.id for card in observation.shown]
    answer = await step.run(ItemQuestion(dialogue[-1].text, shown, catalog, observation.item_noun, observation.turn))
    if not answer.answer:
        return question
    metadata["answered"] = answer.item_id
    said = answer.answer.rstrip()
    said = said if said[-1:] in (".", "!", "?") else f"{said}."  # a model may leave the full stop off
    return f"{said} {question}" if question else said
