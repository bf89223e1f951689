"""Which shown or catalog item a seeker's question is about, and what it asks of it.

People point at what they are shown in three ways: an ordinal of the last list ("the second
one", "#3"), a title (fuzzy-matched, year and leading article ignored), or a pointer ("it",
"that one") to the first item shown. `read_question` finds the item and the content words
asked; `ItemAnswerStep` (`item_answer.py`) answers from them. The lookups it needs are built
once per catalog (`CatalogIndex`), so a turn never scans the whole catalog.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from agents.steps.text import singular, split_sentences
from environments.catalog import Catalog
from environments.models import Role, Turn
from environments.search.aspect_text import GENERIC_NOUNS, is_content, non_content_words, sentences, tokens
from environments.search.titles import title_forms, title_tokens

ORDINALS = {"first": 0, "1st": 0, "top": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3,
            "fifth": 4, "5th": 4, "last": -1}
NUMBERS = {"one": 0, "two": 1, "three": 2, "four": 3, "five": 4, **{str(n): n - 1 for n in range(1, 10)}}
_ORDINAL = re.compile(r"\b(?:the|that|this)\s+(" + "|".join(ORDINALS) + r")\b")
_NUMBERED = re.compile(r"(?:#\s*|\bnumber\s+|\boption\s+|\bno\.\s*)(" + "|".join(NUMBERS) + r")\b")
_POINTER = re.compile(r"\b(?:it|that one|this one|that place|this place|that|this)\b")
# A question to the recommender rather than about an item ("Can you show me something else?"):
# a bare pointer in it ("is it possible...") names no item.
_REQUEST = re.compile(r"^\s*(?:can|could|would|will)\s+you\b|\b(?:do|does)\s+you\s+have\b"
                      r"|\b(?:show|give|find|get)\s+me\b|\b(?:something|anything|another|others|else)\b")
# Small talk with a pointer in it ("hows it going?", "how about you?") asks about no item.
_SMALL_TALK = re.compile(r"\bhow(?:'s| is|s)? it going\b|\bhow are (?:you|u|things)\b|\b(?:how|what) about you\b")
_ABOUT = re.compile(r"\bwhat(?:'s|s| is| was| are)\b.*\b(?:about|like)\b|\btell me (?:more )?about\b|\bdescribe\b"
                    r"|\bwhat kind of\b|\bwhat about\b|\bmore about\b")
_OPINION = re.compile(r"\bany good\b|\bgood\b|\bworth\b|\bhave you (?:ever )?(?:seen|tried|been|heard|read|watched)\b"
                      r"|\bwould you recommend\b|\bdo (?:people|you) like\b|\bhow is\b|\bthink (?:of|about)\b"
                      r"|\bopinion\b|\breviews?\b")
_SEEN = re.compile(r"\bhave you (?:ever )?(?:seen|tried|been|heard|read|watched|listened)\b")
# Words of a question that say how it asks, not what: never the thing asked about.
QUESTION_WORDS = frozenset("""
    like good any bad worth think seen tried watched heard read listened know tell built include includes included
    come comes got really kind sort type much many well okay ok fine great nice recommend recommended opinion people
    does have has one ones about describe place spot option pick choice number top first second third fourth fifth
    last 1st 2nd 3rd 4th 5th guess suppose wonder wondering curious actually exactly review reviews say said
    fit fits suit suits tick ticks box
    saw watch havent haven't never yet ever now still either
""".split())
# Words that say a wish is coming, not what it is ("X matters to me. Does the first one have it?").
WISH_WORDS = frozenset("matters matter thing important want wanted need needs after looking ideally mostly care".split())
TITLE_THRESHOLD = 90.0  # rapidfuzz partial_ratio (0-100) of a title form against the question
COMMON_TITLE_WORD = 200  # a word in more titles than this does not propose title candidates


@dataclass(frozen=True, slots=True)
class Asked:
    """What one question sentence asks: about which item, which words, and in what way."""

    item_id: str
    words: tuple[str, ...]
    sentence: str
    about: bool  # "what is it about / like": a description answers it
    opinion: bool  # "is it any good / have you seen it": ratings answer it
    seen: bool


@dataclass(slots=True)
class CatalogIndex:
    """Lookups built once per catalog (items and reviews do not change in a run)."""

    title_words: dict[str, list[int]] = field(default_factory=dict)  # title token -> item positions
    forms: list[list[str]] = field(default_factory=list)  # item position -> normalised title forms
    values: dict[str, dict[str, str]] = field(default_factory=dict)  # value word -> attribute -> value
    review_words: dict[str, list[tuple[int, list[str]]]] = field(default_factory=dict)  # item -> (review, words)

    @classmethod
    def build(cls, catalog: Catalog) -> CatalogIndex:
        """Title forms and words, and attribute value words, of every item (reviews on demand)."""
        index = cls()
        for position, item in enumerate(catalog.items):
            forms, _year = title_forms(item.title)
            index.forms.append(forms)
            for word in {w for form in forms for w in form.split()}:
                index.title_words.setdefault(word, []).append(position)
            for attribute, value in item.attributes.items():
                for v in value if isinstance(value, list) else [value]:
                    for word in tokens(str(v)):
                        if content_word(word):
                            index.values.setdefault(word, {}).setdefault(attribute, str(v))
        return index

    def words_of_reviews(self, catalog: Catalog, item_id: str) -> list[tuple[int, list[str]]]:
        """(review number, words) per sentence of the item's reviews, tokenised on first use."""
        found = self.review_words.get(item_id)
        if found is None:
            found = [(r, tokens(sentence)) for r, review in enumerate(catalog.reviews_by_item.get(item_id, []))
                     for sentence in sentences(review.text)]
            self.review_words[item_id] = found
        return found


def content_word(word: str) -> bool:
    """A word that can name what is asked: unlike `is_content`, adverb-looking words stay
    ("lively", "family"), since attribute values and questions use them."""
    return len(word) > 2 and word not in non_content_words() and not word[0].isdigit() and "'" not in word


def same_word(a: str, b: str) -> bool:
    """Equal up to a plural ending ("tuner" / "tuners", "dish" / "dishes")."""
    return a == b or a + "s" == b or b + "s" == a or a + "es" == b or b + "es" == a


def read_question(utterance: str, shown: Sequence[str], catalog: Catalog, item_noun: str,
                  index: CatalogIndex) -> Asked | None:
    """The first question sentence of the utterance that is about an item, or None.

    A question that names nothing it asks about ("Does the second one fit?", "Is the first
    one like that?") asks about what the utterance's other sentences say ("A midday meal is
    the thing."): those words are asked. A pointer ("Have you seen this one?") points at a
    title an earlier sentence wrote ("I really liked Enchanted (2007)."), before anything on
    screen."""
    said = split_sentences(utterance) or [utterance]
    for position, sentence in enumerate(said):
        if "?" not in sentence:
            continue
        found = _read(sentence, shown, catalog, item_noun, index,
                      earlier=[s for s in said[:position] if "?" not in s])
        if found is not None and not found.words and not (found.about or found.opinion or found.seen):
            context = [w for other in said if other is not sentence for w in tokens(other.lower())
                       if content_word(w) and w not in QUESTION_WORDS and w not in WISH_WORDS
                       and w not in GENERIC_NOUNS]
            found = replace(found, words=tuple(dict.fromkeys(context)))
        if found is not None:
            return found
    return None


def _read(sentence: str, shown: Sequence[str], catalog: Catalog, item_noun: str, index: CatalogIndex,
          earlier: Sequence[str] = ()) -> Asked | None:
    lower = sentence.lower().replace("’", "'")
    shown = [i for i in shown if i in catalog.item_index]
    item_id, reference = _ordinal(lower, shown), set[str]()
    if item_id is None:
        item_id, reference = _title(lower, shown, catalog, index, sentence)
    if item_id is None and not (_REQUEST.search(lower) or _SMALL_TALK.search(lower)) and _POINTER.search(lower):
        item_id = _last_title(earlier, catalog, index) or (shown[0] if shown else None)
    if item_id is None:
        return None
    noun = singular(item_noun.lower())
    words = tuple(dict.fromkeys(
        w for w in tokens(lower) if content_word(w) and w not in QUESTION_WORDS and w not in reference
        and not same_word(w, noun) and w not in GENERIC_NOUNS))
    return Asked(item_id, words, lower, bool(_ABOUT.search(lower)), bool(_OPINION.search(lower)),
                 bool(_SEEN.search(lower)))


def _ordinal(lower: str, shown: Sequence[str]) -> str | None:
    match = _ORDINAL.search(lower)
    position = ORDINALS[match.group(1)] if match else None
    if position is None:
        numbered = _NUMBERED.search(lower)
        position = NUMBERS[numbered.group(1)] if numbered else None
    if position is None or not shown or position >= len(shown):
        return None
    return shown[position]


def _title(lower: str, shown: Sequence[str], catalog: Catalog, index: CatalogIndex,
           sentence: str | None = None) -> tuple[str | None, set[str]]:
    """The item whose title the sentence names (shown items first among equals), and its title
    words. An item not on screen must be written as a title in `sentence` (`written_as_title`):
    "I like scary movies, can you make a suggestion?" named *Scary Movie* (2000) and got
    "I can't tell you about make suggestion for that one."
    """
    from rapidfuzz import fuzz

    text_tokens = title_tokens(lower)
    text = " ".join(text_tokens)
    skip = non_content_words()
    proposed = {p for w in set(text_tokens) if is_content(w, skip) or w.isdigit()
                for p in (index.title_words.get(w) or ()) if len(index.title_words[w]) <= COMMON_TITLE_WORD}
    shown_positions = {catalog.item_index[i] for i in shown}
    best: tuple[float, int, int, int] | None = None  # score, shown, form length, -position
    for position in proposed:
        for form in index.forms[position]:
            if len(form) < 4:
                continue
            if " " not in form and form not in text_tokens:
                continue  # a one-word title must be a whole word of the sentence ("heat" in "heated")
            score = fuzz.partial_ratio(form, text)
            if score >= TITLE_THRESHOLD and (sentence is None or position in shown_positions
                                             or written_as_title(sentence, form)):
                key = (score, position in shown_positions, len(form), -position)
                if best is None or key > best:
                    best = key
    if best is None:
        return None, set()
    position = -best[3]
    return catalog.item_ids[position], {w for form in index.forms[position] for w in form.split()}


def _last_title(sentences: Sequence[str], catalog: Catalog, index: CatalogIndex) -> str | None:
    """The item the last of `sentences` to write a title wrote (read only when a pointer needs it)."""
    for sentence in reversed(sentences):
        item_id = _title(sentence.lower().replace("’", "'"), (), catalog, index, sentence)[0]
        if item_id is not None:
            return item_id
    return None


def written_as_title(sentence: str, form: str) -> bool:
    """Whether `sentence` writes the title `form` as people write a title: its first two words
    capitalised ("The Shining", "Scary Movie"), or a one-word title capitalised mid-sentence
    ("we loved Heat"); a sentence's first word is capitalised anyway ("Scary movies, please")."""
    words = form.split()
    found = re.search(r"\b" + r"\W+".join(map(re.escape, words[:2])), sentence, re.IGNORECASE)
    if found is None:
        return False
    said = re.findall(r"\w+", found.group(0))
    if not all(w[:1].isupper() or w[:1].isdigit() for w in said):
        return False
    return len(said) > 1 or bool(sentence[:found.start()].strip(" \"'(“"))


def last_shown(dialogue: Sequence[Turn]) -> list[str]:
    """The items of the recommender's last move, in the order shown."""
    for turn in reversed(dialogue):
        if turn.role == Role.recommender:
            return list(turn.items_shown)
    return []
