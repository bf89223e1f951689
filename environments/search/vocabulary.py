"""Which words a catalog's items share, and what kind of product an item is.

A shopper knows the *kind* of product they want and the words people use for it across
products ("easy to read", "sturdy", "tuner"); they do not know the phrases one item's
reviewers happened to write ("lifeproof case", "music store threw"). On a real catalog
the target-biased seeker is therefore worded from words that many items' reviews use
(`CatalogVocabulary.shared`), and told its target's kind: from the item's metadata where
an importer kept one (a category path, a type), else the noun its reviews name most that
other items' reviews name too, but not most of them ("tuner" among instrument gear,
not "guitar" nor "lifeproof").

Word pairs are counted too: a described thing a shopper would say ("gig bag", "bright
display") is one that reviewers of several items wrote, word next to word; "size wall",
"special room" or "sweet tuner" were one reviewer's, and read as nonsense to blind raters.

Counts are per item (how many items' reviews use a word at least once), not per review,
so a word one prolific item repeats stays rare. A word reviewers mostly capitalise
mid-sentence is a name ("Fender", "Dunlop", "Planet Waves"), however many items share it:
never everyday vocabulary nor a kind (musical instruments: a first message naming "fender
fretboard" or "dunlop nylon standard" found its target in BM25's top 10). Computed once per
catalog, in a single pass over the reviews.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from environments.catalog.store import Catalog
from environments.models import Item
from environments.search.aspect_text import GENERIC_NOUNS, TITLED, is_content, noun_positions, sentences, tokens
from environments.search.word_stats import MinerSettings

MIN_SHARED_ITEMS = 10     # a word fewer items use than this (or than `MIN_SHARED_SHARE`) is the target's own
MIN_SHARED_SHARE = 0.05   # ("tubescreamer", "joyo": in a few dozen pedals' reviews of 900, too telling to be everyday)
MIN_SHARED_PAIR_ITEMS = 3  # a phrase fewer items' reviews write is one reviewer's ("size wall": 1 of 900)
MAX_THEME_SHARE = 0.5    # a word more items' reviews use is the catalog's theme ("guitar" in 79% of instrument gear)
MIN_KIND_SHARE = 0.01     # a kind is a noun between these shares of items ("tuner", "strap", "pedal"),
MAX_KIND_SHARE = 0.25     # not a brand few items have nor the catalog's theme ("guitar")
MIN_KIND_REVIEWS = 2      # ... and at least this many of the target's reviews name it
MIN_PLURAL_SHARE = 0.1   # a kind reviewers make plural less than this often is a mass noun ("swims": 2 of 53)
KIND_KEYS = ("type", "product_type", "kind", "category", "categories")


@dataclass(frozen=True, slots=True)
class CatalogVocabulary:
    """How many items' texts use each word; `shared` is what a seeker may say."""

    item_frequency: dict[str, int]
    n_items: int
    names: frozenset[str] = frozenset()
    pair_frequency: dict[str, int] = field(default_factory=dict)  # "gig bag" -> how many items' reviews write it

    @classmethod
    def of(cls, catalog: Catalog) -> CatalogVocabulary:
        frequency: Counter[str] = Counter()
        uses: Counter[str] = Counter()
        titled: Counter[str] = Counter()
        pairs: Counter[str] = Counter()
        for item in catalog.items:
            texts = [r.text for r in catalog.reviews_by_item.get(item.id, [])]
            words = item_words(item, texts)
            frequency.update(set(words))
            uses.update(words)
            pairs.update(content_pairs(texts))
            for text in texts:
                titled.update(w.lower() for w in TITLED.findall(text))
        share = MinerSettings().min_name_share  # a name as the aspect miner reads one
        names = frozenset(w for w, n in titled.items() if n >= share * uses[w] > 0)
        shared_pairs = {pair: n for pair, n in pairs.items() if n >= MIN_SHARED_PAIR_ITEMS}
        return cls(dict(frequency), len(catalog.items), names, shared_pairs)

    @property
    def min_items(self) -> int:
        return max(MIN_SHARED_ITEMS, math.ceil(MIN_SHARED_SHARE * self.n_items))

    def shared_words(self) -> dict[str, int]:
        """Words enough items use to be everyday vocabulary for this kind of catalog, with
        how many items use each."""
        return {w: n for w, n in self.item_frequency.items() if n >= self.min_items and w not in self.names}

    def shared_pairs(self) -> dict[str, int]:
        """Two words written next to each other in enough items' reviews to be a shopper's
        phrase ("mic stand", "light weight"), with how many items write each."""
        return {p: n for p, n in self.pair_frequency.items() if n >= MIN_SHARED_PAIR_ITEMS
                and not self.names & set(p.split())}

    def theme_words(self) -> frozenset[str]:
        """Words most items' reviews use: the catalog's theme ("guitar", "sound" among
        instrument gear), which tell no item apart. As a described thing's noun they say
        nothing: "a guitar sound", "a guitar body" were what blind raters flagged."""
        return frozenset(w for w, n in self.item_frequency.items() if n > MAX_THEME_SHARE * self.n_items)

    def countable(self, noun: str) -> bool:
        """Whether reviewers count the kind ("cables", "dresses") or never make it plural
        ("outerwear", "swim", "lounge": under `MIN_PLURAL_SHARE` as many items' reviews use
        the plural as the singular); a plural is counted."""
        noun = noun.lower()
        if is_plural(noun):
            return True
        singular = self.item_frequency.get(noun.split()[-1], 0)
        return self.item_frequency.get(pluralise(noun.split()[-1]), 0) >= MIN_PLURAL_SHARE * singular > 0

    def kind(self, item: Item, reviews: Sequence[str]) -> str | None:
        """What kind of product `item` is: its metadata's type or last category, else the noun
        most of its reviews name, among nouns a fair share of items' reviews use: the more
        items use it, the more of an everyday word for a kind of product it is."""
        listed = listed_kind(item)
        if listed is not None:
            return listed
        naming: Counter[str] = Counter()  # noun -> how many of the reviews use it as a noun phrase head
        for text in reviews:
            naming.update({words[head] for words in map(tokens, sentences(text)) for _, head in noun_positions(words)
                           if words[head].isalpha() and words[head] not in GENERIC_NOUNS})
        low, high = max(MIN_SHARED_ITEMS, MIN_KIND_SHARE * self.n_items), MAX_KIND_SHARE * self.n_items
        candidates = sorted(n for n, count in naming.items()
                            if count >= MIN_KIND_REVIEWS and low <= self.item_frequency.get(n, 0) <= high
                            and n not in self.names)
        return max(candidates, key=lambda n: naming[n] * math.log(self.item_frequency[n]), default=None)


def listed_kind(item: Item) -> str | None:
    """The kind of product an item's metadata names: its type, or its category path's last step."""
    for key in KIND_KEYS:
        value = item.attributes.get(key)
        named = value[-1] if isinstance(value, list) and value else value
        if isinstance(named, str) and named.strip():
            return named.strip().lower()
    return None


def listing_path(attributes: Mapping[str, object]) -> list[str]:
    """The steps of an item's category path, broadest first ("General Petite", "Bottoms", "Pants")."""
    path = attributes.get("categories")
    return [str(step) for step in path if str(step).strip()] if isinstance(path, list) else []


def item_words(item: Item, reviews: Iterable[str]) -> list[str]:
    """Content words of an item's description, attribute values and reviews (titles left out)."""
    values = " ".join(" ".join(v) if isinstance(v, list) else str(v) for v in item.attributes.values())
    return [w for w in tokens(" ".join([item.description, values, *reviews])) if is_content(w)]


def content_pairs(texts: Iterable[str]) -> set[str]:
    """Adjacent content words in one item's texts, within a sentence and clause ("gig bag")."""
    found: set[str] = set()
    for text in texts:
        for sentence in sentences(text):
            words = tokens(sentence)
            found.update(f"{a} {b}" for a, b in zip(words, words[1:]) if is_content(a) and is_content(b))
    return found


def is_plural(noun: str) -> bool:
    """"strings", "dresses" (not "glass", "bus", "chassis"): said with "some", not "a"."""
    last = noun.split()[-1].lower() if noun.split() else ""
    return last.endswith("s") and not last.endswith(("ss", "us", "is"))


_BEFORE_THE_HEAD = re.compile(r"\s(?:of|off|with|without|for|in|on|at|from|near|by|that|which|who|to)\s", re.I)


def is_plural_phrase(phrase: str) -> bool:
    """Whether a noun phrase is plural by its head: "some tight sleeves", not "a local spot off
    the main streets" (the last word is no head after a preposition) nor "a pair of shoes"."""
    words = phrase.strip().lower().split()
    if not words or words[0] in ("a", "an", "one"):
        return False
    return is_plural(_BEFORE_THE_HEAD.split(f" {phrase.strip()} ", maxsplit=1)[0])


# Words spelled with a vowel but said with a consonant ("a unique design", "a one-piece"), and
# the reverse ("an hour"): "an unique design" was said 46 times in 100 clothing episodes.
SAID_WITH_A = ("uni", "use", "usu", "usb", "uti", "ure", "eu", "one", "once", "ewe")
SAID_WITH_AN = ("hour", "honest", "honor", "honour", "heir")


# Letters whose name starts with a vowel sound: a word of consonants is spelled out ("an xlr input").
SPELLED_WITH_AN = frozenset("fhlmnrsx")


def indefinite_article(phrase: str) -> str:
    """"a" or "an" for `phrase`, by how its first word is said: "an amp", "a unique cut",
    "an hour", "a one-size fit", "an xlr input" (spelled out), "a dvd"."""
    word = phrase.lower().lstrip()
    first = word.split()[0] if word.split() else ""
    if word.startswith(SAID_WITH_AN) or (first[:1] in SPELLED_WITH_AN and not set(first) & set("aeiouy")):
        return "an"
    return "an" if word[:1] in "aeiou" and not word.startswith(SAID_WITH_A) else "a"


def pluralise(noun: str) -> str:
    """"patch cable" -> "patch cables", "strap" -> "straps", "box" -> "boxes", "battery" -> "batteries"."""
    if noun.endswith(("s", "x", "ch", "sh", "z")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u"):
        return noun[:-1] + "ies"
    return noun + "s"
