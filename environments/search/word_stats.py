"""Where words stand across a corpus of review sentences, and the thresholds that read it.

`WordStats` counts, per word, how often it is the head of a noun phrase, comes before an
object, follows a copula ("is *bright*"), is capitalised mid-sentence ("Shure") or is the
reviewer's own ("*my* hips"); from that it tells a thing from a quality, a verb or a name,
picks candidate aspect terms and the values a mention offers. `MinerSettings` holds the
thresholds (and the miner's other knobs, so that one object keys the miner's cache).
Shared by the aspect miner (`aspects.py`, over a whole catalog) and the seeker's review
facts (`agents/steps/seeker/review_facts.py`, over one item's reviews), like the sentence
reader beneath both (`aspect_text.py`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

from environments.search.aspect_text import (
    COPULAS, GENERIC_NOUNS, INTENSIFIERS, OBJECT_STARTS, OWNERS, PRAISE, Mention, noun_positions,
)

# Descriptors that never say which item: true of any ("new", "different") or of the review
# rather than the item ("exact", "correct"). Not options to choose between.
VAGUE = frozenset("""
    new old different same similar other exact correct right wrong real actual true specific certain particular
    standard normal regular usual general main whole entire full original extra little big much many more less
    high higher low lower subjective decent solid quality overall total only single double main own
""".split())


@dataclass(frozen=True, slots=True)
class MinerSettings:
    """Knobs of the miner; all of them are part of the cache key."""

    max_aspects: int = 30
    max_terms: int = 300        # candidate terms embedded and grouped
    min_head_count: int = 3     # a term must stand in a noun position this often...
    min_head_share: float = 0.3  # ...and in this share of its occurrences
    min_items: int = 2          # an aspect (and a value) must be mentioned for this many items
    group_similarity: float = 0.6  # terms closer than this (cosine) are one aspect
    compound_share: float = 0.4  # "battery life": "life" heads after "battery" this often
    max_verb_share: float = 0.15  # a word followed by an object this often is a verb ("uses it")
    min_value_lift: float = 1.5  # a descriptor must be this much likelier with the aspect than overall
    max_values: int = 8         # most common descriptors kept per aspect
    values_per_item: int = 2
    min_value_items: int = 3    # a value must describe this many items (fewer: a fragment of one review's wording)
    max_value_lift_together: float = 1.0  # alternatives: on one item's reviews at most as often as chance
    max_value_together: float = 0.1  # ...and at most this share of its mentions names both at once
    min_name_share: float = 0.4  # a word capitalised mid-sentence this often is a name (brand), not a value
    min_quality_share: float = 0.035  # after a copula this often: a quality ("cheap"), else a kind ("condenser")
    # A thing reviewers call "my ..." this often is theirs, not the item's: "my hips", "my babysitter",
    # "my studio" (clothing 0.40, restaurant world 1.00, musical instruments 0.53; an item's own
    # "fabric", "tone", "price" at most 0.08). Asked "What kind of hips do you like?", or told
    # "My babysitter is a big thing for me", a reader sees nonsense.
    max_owned_share: float = 0.25
    # A term whose head spaCy's tagger reads as a noun in fewer of its sampled sentences than
    # this is no thing: "came", "goes" (musical instruments, 0.00), "fair", "instead" (restaurant
    # world, 0.00). Real aspects the tagger sometimes misreads stay: "mic" 0.48, "fit" 0.48.
    min_noun_share: float = 0.3
    noun_samples: int = 20      # sentences tagged per term head
    # An aspect is a kind of product ("amp", "cable") when at least this share of the items whose
    # reviews name it are named in at least `kind_review_share` of their reviews: then it is
    # theirs alone, not the cable's (`aspects._owned_by_its_kind`).
    kind_item_share: float = 0.2
    kind_review_share: float = 0.5
    max_kind_catalog_share: float = 0.25  # a kind is what some items are (as `vocabulary.MAX_KIND_SHARE`)
    kind_pointed_share: float = 0.1  # ...and what reviewers call the item they review ("this pedal")


@dataclass(slots=True)
class WordStats:
    """Where words stand across a corpus: how often, as a noun phrase head, before an object,
    right after a copula ("is *bright*"), and capitalised mid-sentence (names: "Shure")."""

    total: Counter[str]
    heads: Counter[str]
    verbish: Counter[str]
    pairs: Counter[tuple[str, str]]
    predicative: Counter[str] = field(default_factory=Counter)
    titled: Counter[str] = field(default_factory=Counter)  # filled by the caller, which has the raw text
    owned: Counter[str] = field(default_factory=Counter)  # heads right after "my" / "our"
    nouns: frozenset[str] = frozenset()  # words of the candidate aspect terms: things, not values

    @classmethod
    def count(cls, token_lists: Iterable[Sequence[str]]) -> WordStats:
        stats = cls(Counter(), Counter(), Counter(), Counter())
        for words in token_lists:
            stats.total.update(words)
            stats.verbish.update(w for w, nxt in zip(words, words[1:]) if nxt in OBJECT_STARTS)
            if not COPULAS.isdisjoint(words):
                stats.predicative.update(_after_copulas(words))
            for start, head in noun_positions(words):
                stats.heads[words[head]] += 1
                if start > 0 and words[start - 1] in OWNERS:
                    stats.owned[words[head]] += 1
                if head > start:
                    stats.pairs[(words[head - 1], words[head])] += 1
        return stats

    def proper_name(self, word: str, settings: MinerSettings) -> bool:
        """Mostly written capitalised inside a sentence: a brand or model ("Shure", "Elixir"), not a kind."""
        return self.titled[word] >= settings.min_name_share * self.total[word] > 0

    def quality(self, word: str, settings: MinerSettings) -> bool:
        """Said of things after a copula ("it is *cheap*"): a quality; else a kind ("*condenser* mic")."""
        return self.predicative[word] >= settings.min_quality_share * self.total[word]

    def reviewers_own(self, word: str, settings: MinerSettings) -> bool:
        """Mostly "my *word*": the reviewer's body, family or gear, not something an item has."""
        return self.owned[word] >= settings.max_owned_share * self.heads[word] > 0

    def verb_like(self, word: str, settings: MinerSettings) -> bool:
        return self.verbish[word] >= settings.max_verb_share * self.total[word]

    def noun_like(self, word: str, settings: MinerSettings, min_count: int | None = None) -> bool:
        """Often the head of a noun phrase, rarely followed by an object, not a participle."""
        return (self.heads[word] >= (settings.min_head_count if min_count is None else min_count)
                and self.heads[word] >= settings.min_head_share * self.total[word]
                and not self.verb_like(word, settings) and word not in GENERIC_NOUNS
                and "'" not in word and not (len(word) > 5 and word.endswith("ed")))

    def describes(self, word: str, settings: MinerSettings) -> bool:
        """Can `word` tell items apart on an aspect? Not a verb, a generic noun or praise."""
        return word not in GENERIC_NOUNS and not is_praise(word) and not self.verb_like(word, settings)

    def value_words(self, mention: Mention, settings: MinerSettings) -> list[str]:
        """The words a mention offers as the aspect's values: one-word predicates ("sound is *warm*"),
        else the modifier next to the term ("*warm* sound"; "home *recording* studio").

        One word each, so that two options never nest ("home" or "home recording"), and each
        must describe: not a word that mostly names things itself ("guitar body": guitar is
        an aspect of its own), nor one that says nothing about which item ("new", "different").
        """
        words = [p for p in mention.predicates if " " not in p] if mention.predicates else list(mention.modifiers[-1:])
        return [w for w in words if w not in VAGUE and not _inflected(w) and self.describes(w, settings)
                and not self.noun_like(w, settings) and not self.proper_name(w, settings)
                and w not in self.nouns]

    def candidate_terms(self, settings: MinerSettings, excluded: frozenset[str] = frozenset()) -> list[str]:
        """Words (and two-word compounds) that mostly stand where nouns stand, most frequent first."""
        terms = {w: n for w, n in self.heads.items() if w not in excluded and self.noun_like(w, settings)
                 and not self.reviewers_own(w, settings)}
        for (modifier, head), count in self.pairs.items():
            if (count >= settings.min_head_count and count >= settings.compound_share * self.heads[head]
                    and head not in excluded and modifier not in excluded and self.noun_like(modifier, settings)
                    and self.noun_like(head, settings, min_count=count)):
                terms[f"{modifier} {head}"] = count
                if count >= 0.8 * self.heads[head]:
                    terms.pop(head, None)  # "life" is only ever "battery life"
        return [t for t, _ in sorted(terms.items(), key=lambda tc: (-tc[1], tc[0]))][: settings.max_terms]


# Valence (VADER's lexicon, -4..4) from which a word is praise whatever it is said of:
# "superb", "gorgeous", "beautiful", "lovely" (2.8 and up) say how much a reviewer liked a
# thing, not what it is like, while "rich" (2.6, a rich tone), "comfortable" (2.3),
# "friendly" (2.2) and "cute" (2.0) still say which.
PRAISE_VALENCE = 2.7


def is_praise(word: str) -> bool:
    """A word of praise: no option to choose between ("superb or impeccable?"), no wish ("great color")."""
    return word in PRAISE or valence(word) >= PRAISE_VALENCE


@cache
def _valences() -> dict[str, float]:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return dict(SentimentIntensityAnalyzer().lexicon)


def valence(word: str) -> float:
    """VADER's valence of `word`, 0.0 if it has none."""
    return _valences().get(word, 0.0)


def _inflected(word: str) -> bool:
    """A plural or a verb form ("guitarists", "sounding", "tuned"): names or does, does not describe."""
    return (word.endswith("ing") or (word.endswith("s") and not word.endswith(("ss", "us", "is")))
            or (len(word) > 5 and word.endswith("ed")))


def _after_copulas(words: Sequence[str]) -> list[str]:
    """The word after each copula, past intensifiers ("is *bright*", "sounds really *warm*")."""
    found = []
    for i, word in enumerate(words):
        if word in COPULAS:
            j = i + 1
            while j < len(words) and words[j] in INTENSIFIERS:
                j += 1
            if j < len(words):
                found.append(words[j])
    return found
