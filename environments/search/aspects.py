"""The aspects reviewers write about, mined from a catalog's reviews, built once and cached.

A catalog without attributes (an Amazon review file imported without metadata) gives a
recommender nothing to ask about but its reviews. This reads them the way a person
skimming would: which things do reviewers keep naming ("scent", "battery life",
"servers"), which words do they use to describe them ("light", "lavender"), and which
items' reviews mention each. Terms are nouns by position (`aspect_text`), merged when
they share a stem and grouped by meaning with sentence embeddings ("smell", "scent",
"fragrance" are one aspect), so a question never asks about the same thing twice.

Per item and aspect the vocabulary keeps the item's strongest descriptors among the
aspect's most common ones: these are the item's *values* for a mined aspect, so the
clarification step can treat mined aspects like attributes (which aspect splits the
current candidates best?). Mining costs seconds per 10k reviews; the result is cached
on disk keyed by the catalog fingerprint, the settings and the encoder, and per turn
only dictionary look-ups remain.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from environments.search.aspect_text import (
    COPULAS, GENERIC_NOUNS, INTENSIFIERS, OBJECT_STARTS, PRAISE, Mention, find_mentions, noun_positions, sentences,
    term_index, tokens,
)
from environments.search.cache import cache_dir_for, content_key, write_file_atomic
from environments.search.embeddings import bulk_id, encode_bulk

if TYPE_CHECKING:
    from environments.catalog.store import Catalog
    from environments.search.embeddings import Encoder

# A capitalised word after a lower-case one: a name ("my new Shure mic"), not a sentence start.
_TITLED = re.compile(r"(?<=[a-z0-9,;] )[A-Z][a-z]+")
VOCABULARY_VERSION = 2  # 2: aspects list their alternatives
MINER_VERSION = 5  # bump when mining changes what it finds: part of the cache key
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


class MinedAspect(BaseModel):
    name: str = Field(description="Display name: the aspect's most widely used term.")
    terms: list[str] = Field(description="Surface terms grouped into it, most widely used first.")
    n_items: int = Field(description="Items whose reviews mention it.")
    values: list[str] = Field(default_factory=list, description="Its most common descriptors.")
    alternatives: list[tuple[str, str]] = Field(
        default_factory=list, description="Pairs of values that are a choice between kinds of it, most common first.")


class AspectVocabulary(BaseModel):
    """What a catalog's reviewers write about, and which items' reviews say what."""

    version: int = Field(default=VOCABULARY_VERSION, description="Miner output format.")
    fingerprint: str = Field(description="Fingerprint of the catalog it was mined from.")
    aspects: list[MinedAspect] = Field(default_factory=list, description="Most widely mentioned first.")
    mentions: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="Aspect -> item id -> reviews mentioning it.")
    review_counts: dict[str, int] = Field(default_factory=dict, description="Item id -> reviews mined.")
    item_values: dict[str, dict[str, list[str]]] = Field(
        default_factory=dict, description="Aspect -> item id -> the item's descriptors among the aspect's values.")

    @property
    def names(self) -> list[str]:
        return [aspect.name for aspect in self.aspects]

    def terms(self) -> dict[str, str]:
        """Surface term -> aspect name."""
        return {term: aspect.name for aspect in self.aspects for term in aspect.terms}

    def aspect(self, name: str) -> MinedAspect | None:
        return next((a for a in self.aspects if a.name == name), None)

    def add(self, group: _Group, item_ids: Sequence[str], overall: Counter[str], total: int,
            stats: WordStats, settings: MinerSettings) -> None:
        """Add one grouped aspect: its coverage and values (descriptors likelier with it than overall)."""
        name = group.terms[0]
        own = Counter(d for counter in group.values.values() for d in counter.elements())
        own_total = max(1, sum(own.values()))
        support = Counter(d for counter in group.values.values() for d in counter)
        own_words = {w for term in group.terms for w in term.split()}
        lifted = [d for d, n in sorted(support.items(), key=lambda dn: (-dn[1], dn[0]))
                  if n >= max(settings.min_items, settings.min_value_items) and d not in own_words
                  and (own[d] / own_total) >= settings.min_value_lift * (overall[d] / total)]
        pairs = alternatives(group, lifted[: settings.max_values], stats, settings)
        # Only values that are one side of a choice tell items apart in a question worth asking.
        chosen = {v for pair in pairs for v in pair}
        common = [d for d in lifted[: settings.max_values] if d in chosen]
        rank = {d: r for r, d in enumerate(common)}
        self.aspects.append(MinedAspect(name=name, terms=group.terms, n_items=len(group.items), values=common,
                                        alternatives=pairs))
        self.mentions[name] = {item_ids[p]: len(reviews) for p, reviews in sorted(group.items.items())}
        values = {}
        for position, counter in sorted(group.values.items()):
            ordered = sorted((d for d in counter if d in rank), key=lambda d: (-counter[d], rank[d]))
            if ordered:
                values[item_ids[position]] = ordered[: settings.values_per_item]
        self.item_values[name] = values

    def presence(self, name: str, item_id: str, reviews_read: int) -> float:
        """Chance that someone who read `reviews_read` of the item's reviews saw the aspect mentioned."""
        reviews = self.review_counts.get(item_id, 0)
        share = min(1.0, self.mentions.get(name, {}).get(item_id, 0) / reviews) if reviews else 0.0
        return 1.0 - (1.0 - share) ** reviews_read

    def values_of(self, name: str, item_id: str) -> tuple[str, ...] | None:
        """The item's values for a mined aspect; () if mentioned without one, None if not mentioned."""
        if item_id not in self.mentions.get(name, {}):
            return None
        return tuple(self.item_values.get(name, {}).get(item_id, ()))


def mine_aspects(catalog: Catalog, *, encoder: Encoder | None = None, settings: MinerSettings | None = None,
                 cache_dir: Path | str | None = None, persist: bool = True) -> AspectVocabulary:
    """The catalog's aspect vocabulary, from the cache or mined (and cached) now.

    `encoder` groups terms by meaning; without one only inflections are merged.
    """
    settings = settings or MinerSettings()
    encoder_id = bulk_id(encoder) if encoder is not None else "none"  # terms are grouped by bulk rows
    key = content_key(catalog.fingerprint, json.dumps(asdict(settings), sort_keys=True), encoder_id,
                      f"{VOCABULARY_VERSION}.{MINER_VERSION}")
    path = cache_dir_for("aspects", cache_dir) / f"{key}.json" if persist else None
    if path is not None and path.exists():
        try:
            return AspectVocabulary.model_validate_json(path.read_bytes())
        except (OSError, ValidationError):
            path.unlink(missing_ok=True)  # unusable: rebuilt below
    vocabulary = _mine(catalog, encoder, settings)
    if path is not None:
        write_file_atomic(path, lambda tmp: tmp.write_text(vocabulary.model_dump_json(), encoding="utf-8"))
    return vocabulary


def _mine(catalog: Catalog, encoder: Encoder | None, settings: MinerSettings) -> AspectVocabulary:
    reviews = catalog.reviews_by_item
    # item -> review -> sentence -> words. A sentence repeated across reviews ("Great food.")
    # is tokenised once and shared, and every word is one interned string: at 500k reviews
    # the fresh lists of fresh strings held ~2 GB, the shared tuples a fraction of it.
    tokenised: dict[str, tuple[str, ...]] = {}
    titled: Counter[str] = Counter()  # words capitalised mid-sentence, per distinct sentence

    def words_of(sentence: str) -> tuple[str, ...]:
        words = tokenised.get(sentence)
        if words is None:
            words = tokenised[sentence] = tuple(map(sys.intern, tokens(sentence)))
            titled.update(w.lower() for w in _TITLED.findall(sentence))
        return words

    item_reviews = [[[words_of(s) for s in sentences(review.text)] for review in reviews.get(item.id, ())]
                    for item in catalog.items]
    tokenised.clear()
    excluded = _item_words(catalog.item_noun)
    stats = WordStats.count(words for item in item_reviews for review in item for words in review)
    stats.titled = titled
    terms = stats.candidate_terms(settings, excluded)
    stats.nouns = frozenset(w for term in terms for w in term.split())
    index = term_index({term: term for term in terms})
    term_items: dict[str, dict[int, set[int]]] = defaultdict(dict)  # term -> item -> its reviews that mention it
    term_values: dict[str, dict[int, Counter[str]]] = defaultdict(dict)
    term_together: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)  # values named in one mention
    for position, item in enumerate(item_reviews):
        for number, review in enumerate(item):
            named: set[str] = set()
            for words in review:
                for mention in find_mentions(words, index, excluded):
                    named.add(mention.term)
                    values = stats.value_words(mention, settings) if not mention.doubtful else []
                    if values:
                        term_values[mention.term].setdefault(position, Counter()).update(values)
                        if len(values) > 1:  # "bright and clear": qualities together, not alternatives
                            term_together[mention.term].update(_pairs(values))
            for term in named:
                term_items[term].setdefault(position, set()).add(number)
    kept = [t for t in terms if len(term_items[t]) >= settings.min_items]
    groups = group_terms(kept, {t: len(term_items[t]) for t in kept}, encoder, settings.group_similarity)
    merged = [_merge(group, term_items, term_values, term_together) for group in groups]
    merged = sorted((m for m in merged if len(m.items) >= settings.min_items),
                    key=lambda m: (-len(m.items), m.terms[0]))[: settings.max_aspects]
    overall = Counter(d for m in merged for counter in m.values.values() for d in counter.elements())
    total = max(1, sum(overall.values()))
    vocabulary = AspectVocabulary(fingerprint=catalog.fingerprint,
                                  review_counts={item.id: len(r) for item, r in zip(catalog.items, item_reviews)})
    for group in merged:
        vocabulary.add(group, catalog.item_ids, overall, total, stats, settings)
    return vocabulary


@dataclass(slots=True)
class _Group:
    terms: list[str]
    items: dict[int, set[int]]         # item position -> its reviews that mention the aspect
    values: dict[int, Counter[str]]    # item position -> descriptor counts
    together: Counter[tuple[str, str]]  # (value, value) -> mentions naming both


def _merge(group: Sequence[str], term_items: dict[str, dict[int, set[int]]],
           term_values: dict[str, dict[int, Counter[str]]],
           term_together: dict[str, Counter[tuple[str, str]]]) -> _Group:
    merged = _Group(list(group), defaultdict(set), defaultdict(Counter), Counter())
    for term in group:
        for position, reviews in term_items[term].items():
            merged.items[position] |= reviews
        for position, counter in term_values[term].items():
            merged.values[position].update(counter)
        merged.together.update(term_together.get(term, {}))
    return merged


def _pairs(values: Sequence[str]) -> list[tuple[str, str]]:
    """Each unordered pair of distinct values once, as a sorted tuple."""
    unique = sorted(set(values))
    return [(a, b) for i, a in enumerate(unique) for b in unique[i + 1:]]


def alternatives(group: _Group, common: Sequence[str], stats: WordStats, settings: MinerSettings
                 ) -> list[tuple[str, str]]:
    """Pairs of `common` values that are alternatives of the aspect, in `common` order.

    Two values are offered together only if each can stand for what an item is like where
    the other does not: they must describe different items (an item's reviews naming both,
    "usb" and "monster" of one cable, say they are parts or brands of the same thing, not a
    choice), rarely be named in the same breath ("bright and clear" adds up, "bright or
    warm" chooses), be the same sort of word (two qualities, "bright"/"warm", or two kinds,
    "acoustic"/"electric"; not "condenser or cheap") and not be one word twice ("cheap", "cheaper").
    """
    items = {v: {p for p, counter in group.values.items() if counter[v]} for v in common}
    described = max(1, len(group.values))  # items with any value: chance co-occurrence is |A||B| / this
    counts = {v: sum(counter[v] for counter in group.values.values()) for v in common}
    pairs = []
    for i, first in enumerate(common):
        for second in common[i + 1:]:
            if _same_word(first, second) or stats.quality(first, settings) != stats.quality(second, settings):
                continue  # "condenser or cheap": a kind and a quality are not one choice
            both = len(items[first] & items[second])
            together = group.together[(first, second) if first < second else (second, first)]
            # An item's reviews may name both by chance ("wide" and "narrow" feet when every shoe has
            # a hundred reviews); more often than chance they say the same of it ("fair", "reasonable"
            # price) or name two things it has ("usb", "monster" cable).
            chance = len(items[first]) * len(items[second]) / described
            if (both <= settings.max_value_lift_together * chance
                    and together <= settings.max_value_together * min(counts[first], counts[second])):
                pairs.append((first, second))
    return pairs


def _same_word(first: str, second: str) -> bool:
    """One word inflected ("cheap", "cheaper") or the same stem: not two options."""
    short, long = sorted((first, second), key=len)
    return long.startswith(short[: max(4, len(short) - 1)])


def _item_words(item_noun: str) -> frozenset[str]:
    """The catalog's own noun ("products", "restaurants") names no aspect of an item."""
    words = set(tokens(item_noun))
    return frozenset(words | {w[:-1] for w in words if w.endswith("s")})


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
                if head > start:
                    stats.pairs[(words[head - 1], words[head])] += 1
        return stats

    def proper_name(self, word: str, settings: MinerSettings) -> bool:
        """Mostly written capitalised inside a sentence: a brand or model ("Shure", "Elixir"), not a kind."""
        return self.titled[word] >= settings.min_name_share * self.total[word] > 0

    def quality(self, word: str, settings: MinerSettings) -> bool:
        """Said of things after a copula ("it is *cheap*"): a quality; else a kind ("*condenser* mic")."""
        return self.predicative[word] >= settings.min_quality_share * self.total[word]

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
        return word not in GENERIC_NOUNS and word not in PRAISE and not self.verb_like(word, settings)

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
        terms = {w: n for w, n in self.heads.items() if w not in excluded and self.noun_like(w, settings)}
        for (modifier, head), count in self.pairs.items():
            if (count >= settings.min_head_count and count >= settings.compound_share * self.heads[head]
                    and head not in excluded and modifier not in excluded and self.noun_like(modifier, settings)
                    and self.noun_like(head, settings, min_count=count)):
                terms[f"{modifier} {head}"] = count
                if count >= 0.8 * self.heads[head]:
                    terms.pop(head, None)  # "life" is only ever "battery life"
        return [t for t, _ in sorted(terms.items(), key=lambda tc: (-tc[1], tc[0]))][: settings.max_terms]


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


def group_terms(terms: Sequence[str], coverage: dict[str, int], encoder: Encoder | None,
                similarity: float) -> list[list[str]]:
    """Terms grouped into aspects: same stem always, close in meaning when an encoder is given.

    Each group lists its terms by coverage, so its first term names it. Groups come in
    the order of their best term.
    """
    import Stemmer  # PyStemmer, as BM25 uses

    stemmer = Stemmer.Stemmer("english")
    by_stem: dict[str, list[str]] = defaultdict(list)
    for term in terms:
        by_stem[" ".join(stemmer.stemWords(term.split()))].append(term)
    stems = [sorted(group, key=lambda t: (-coverage[t], t)) for group in by_stem.values()]
    stems.sort(key=lambda g: (-coverage[g[0]], g[0]))
    if encoder is None or len(stems) < 2:
        return stems
    from sklearn.cluster import AgglomerativeClustering

    vectors = np.asarray(encode_bulk(encoder, [group[0] for group in stems]), dtype=np.float32)
    labels = AgglomerativeClustering(n_clusters=None, metric="cosine", linkage="average",
                                     distance_threshold=1.0 - similarity).fit_predict(vectors)
    merged: dict[int, list[str]] = {}
    for label, group in zip(labels.tolist(), stems):
        merged.setdefault(label, []).extend(group)
    groups = [sorted(g, key=lambda t: (-coverage[t], t)) for g in merged.values()]
    return sorted(groups, key=lambda g: (-coverage[g[0]], g[0]))
