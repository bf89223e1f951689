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

How words stand across the reviews (a thing, a quality, a verb, a name) is counted by
`word_stats.WordStats`, which the seeker's review facts use too; `MinerSettings` and
`WordStats` still import from here.
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, Field, ValidationError

from environments.search.aspect_text import TITLED, find_mentions, sentences, term_index, tokens
from environments.search.cache import cache_dir_for, content_key, write_file_atomic
from environments.search.embeddings import bulk_id, encode_bulk
from environments.search.word_stats import VAGUE, MinerSettings, WordStats  # noqa: F401 (VAGUE: its old home)

if TYPE_CHECKING:
    from environments.catalog.store import Catalog
    from environments.search.embeddings import Encoder

VOCABULARY_VERSION = 2  # 2: aspects list their alternatives
MINER_VERSION = 8  # bump when mining changes what it finds: part of the cache key


class MinedAspect(BaseModel):
    name: str = Field(description="Display name: the aspect's most widely used term.")
    terms: list[str] = Field(description="Surface terms grouped into it, most widely used first.")
    n_items: int = Field(description="Items whose reviews mention it.")
    values: list[str] = Field(default_factory=list, description="Its most common descriptors.")
    alternatives: list[tuple[str, str]] = Field(
        default_factory=list, description="Pairs of values that are a choice between kinds of it, most common first.")
    kind: bool = Field(default=False, description="A kind of product (\"amp\", \"cable\"): mentions and values are "
                                                  "its own items' alone.")


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
            stats: WordStats, settings: MinerSettings, kind: bool = False) -> None:
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
                                        alternatives=pairs, kind=kind))
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

    def kind_of(self, item_id: str) -> str | None:
        """The kind of product the item is among the mined kinds (`MinedAspect.kind`): the one
        whose own items it is, named in most of its reviews if several."""
        owners = [(self.mentions.get(a.name, {}).get(item_id, 0), a.name) for a in self.aspects if a.kind]
        count, name = max(owners, default=(0, None))
        return name if count else None

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
            titled.update(w.lower() for w in TITLED.findall(sentence))
        return words

    item_reviews = [[[words_of(s) for s in sentences(review.text)] for review in reviews.get(item.id, ())]
                    for item in catalog.items]
    tokenised.clear()
    excluded = _item_words(catalog.item_noun)
    stats = WordStats.count(words for item in item_reviews for review in item for words in review)
    stats.titled = titled
    terms = _tagged_nouns(stats.candidate_terms(settings, excluded), catalog, settings)
    stats.nouns = frozenset(w for term in terms for w in term.split())
    index = term_index({term: term for term in terms})
    term_items: dict[str, dict[int, set[int]]] = defaultdict(dict)  # term -> item -> its reviews that mention it
    term_values: dict[str, dict[int, Counter[str]]] = defaultdict(dict)
    term_together: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)  # values named in one mention
    term_said: Counter[str] = Counter()  # mentions, and those that point at the item reviewed ("this amp")
    term_pointed: Counter[str] = Counter()
    for position, item in enumerate(item_reviews):
        for number, review in enumerate(item):
            named: set[str] = set()
            for words in review:
                for mention in find_mentions(words, index, excluded):
                    if mention.owned:
                        continue  # "into my tube amp": a cable's reviewer's amp, not something the cable has
                    named.add(mention.term)
                    term_said[mention.term] += 1
                    term_pointed[mention.term] += mention.pointed
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
    review_counts = [len(reviews) for reviews in item_reviews]
    listed = _listed_kinds(catalog)
    owned = [_owned_by_its_kind(group, review_counts, listed, _share(term_pointed, term_said, group.terms), settings)
             for group in merged]  # after the cut
    overall = Counter(d for m, _ in owned for counter in m.values.values() for d in counter.elements())
    total = max(1, sum(overall.values()))
    vocabulary = AspectVocabulary(fingerprint=catalog.fingerprint,
                                  review_counts={item.id: len(r) for item, r in zip(catalog.items, item_reviews)})
    for group, kind in owned:
        vocabulary.add(group, catalog.item_ids, overall, total, stats, settings, kind)
    return vocabulary


def _tagged_nouns(terms: Sequence[str], catalog: Catalog, settings: MinerSettings) -> list[str]:
    """`terms` whose head a part-of-speech tagger reads as a noun often enough in the reviews
    (`parsing.noun_shares`); a head it could not judge stays."""
    from environments.search.parsing import noun_shares

    texts = (review.text for item in catalog.items for review in catalog.reviews_by_item.get(item.id, ()))
    shares = noun_shares(texts, {term.split()[-1] for term in terms}, settings.noun_samples)
    return [term for term in terms if shares.get(term.split()[-1], 1.0) >= settings.min_noun_share]


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


def _listed_kinds(catalog: Catalog) -> dict[str, set[int]]:
    """Stem of a kind of product the items' metadata names ("dresses" -> "dress") -> the
    positions of its items."""
    from environments.search.vocabulary import listed_kind

    kinds: dict[str, set[int]] = defaultdict(set)
    for position, item in enumerate(catalog.items):
        kind = listed_kind(item)
        if kind is not None:
            kinds[_stem_of(kind)].add(position)
    return kinds


@cache
def _stem_of(term: str) -> str:
    """The last word's stem ("dresses" -> "dress", "patch cables" -> "cabl"), as `group_terms` merges them."""
    import Stemmer  # PyStemmer, as BM25 uses

    return Stemmer.Stemmer("english").stemWord(term.split()[-1])


def _share(part: Counter[str], whole: Counter[str], terms: Sequence[str]) -> float:
    """The share of `terms`' counts in `whole` that `part` counts."""
    return sum(part[t] for t in terms) / max(1, sum(whole[t] for t in terms))


def _owned_by_its_kind(group: _Group, review_counts: Sequence[int], listed: dict[str, set[int]],
                       pointed_share: float, settings: MinerSettings) -> tuple[_Group, bool]:
    """A mined aspect that is a kind of product is an aspect of those products alone.

    Musical Instruments' reviews name the amp a cable plugs into, the strings a capo
    clamps and the stand a mic sits on, and describe them ("my tube amp"): asked of the
    candidates after "I need a cable", "Any preference on amp? Say, headphone or tube?"
    split them best, and 0.2.16 asked it (262 of the 500 questions of 100 episodes were
    about amp, strings, cable, stand, mic, pedal, case, bag or box, 254 of them to a seeker
    whose target was another kind). The products the aspect names are the items whose
    reviews mostly name it (`kind_review_share`). It is a kind when they are a fair share
    of the items mentioning it at all (`kind_item_share`: amp 0.24, strings 0.37, mic 0.46;
    price 0.16, tone 0.10), only some of the catalog (`max_kind_catalog_share`: what most
    items' reviews dwell on, "sound" among headphones, is what they all have), and
    reviewers call the item they review by it (`kind_pointed_share` of its mentions say
    "*this* pedal": amp 0.15, mic 0.11, pedal 0.30; price 0.05, tone 0.01, and a color a
    few items' reviews always name, 0.00). Where the items' metadata names kinds (a
    category path's last step, as the seeker is told its target's kind), an aspect that is
    one of them is that kind, its products the items listed so (clothing's "pants", 30
    items by their class, 0.14 by the reviews' rule).
    """
    most = settings.max_kind_catalog_share * len(review_counts)
    listed_owners = next((listed[stem] for stem in map(_stem_of, group.terms)
                          if settings.min_items <= len(listed.get(stem, ())) <= most), None)
    if listed_owners is not None:
        return _only(group, listed_owners), True
    owners = {position for position, reviews in group.items.items()
              if len(reviews) >= settings.kind_review_share * review_counts[position]}
    if (pointed_share >= settings.kind_pointed_share
            and max(settings.min_items, settings.kind_item_share * len(group.items)) <= len(owners) <= most):
        return _only(group, owners), True
    return group, False


def _only(group: _Group, positions: set[int]) -> _Group:
    """`group` with the mentions and values of the items at `positions` alone."""
    return _Group(group.terms, {p: r for p, r in group.items.items() if p in positions},
                  {p: c for p, c in group.values.items() if p in positions}, group.together)


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
