"""Seeded generation of a synthetic world: items, users, ratings and labelled reviews.

The world is built so that its data carry signal a recommender can find and a simulator
can check, without handing it over: users have latent likes and dislikes over aspect
values, visit mostly (not only) places that suit them, rate by how many liked and
disliked values an item has, and write reviews about the item's actual values.

What makes it hard, as on Yelp or Amazon (see `noise.py` for the sentences):
- the catalog shows only part of each item's attributes, some of them wrong
  (`attribute_visibility`: full, partial or none), so reviews are the main evidence;
- items come in clusters of near-duplicates that share most values and differ in
  signature facts (a dish, a scene) only a few reviews mention;
- reviews compare with other places, name values the item lacks, hedge, praise in
  words any value fits, and sometimes disagree with their stars.

Every property is labelled under `truth/` (items, users, reviews). Every step draws from
its own named random stream, so changing, say, the review wording does not reshuffle who
reviewed what, and the same arguments always give byte-identical files. Popularity stays
latent (only visible through review counts). Review ids are opaque (a seeded
permutation): consecutive ids per item would show which items lost a withheld review.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from environments.catalog.interactions import INTERACTIONS, Interaction
from environments.catalog.jsonl import write_jsonl
from environments.catalog.store import Catalog
from environments.models import CatalogManifest, Item, Review, SeenItem, UserProfile
from environments.worlds.domain import AspectSpec, DomainSpec
from environments.worlds.noise import (
    comparison_sentence, generic_sentence, hedge_sentence, lacking_sentence, shown_attributes, signature_sentence,
)
from environments.worlds.registry import get_domain
from environments.worlds.signatures import SIGNATURES
from environments.worlds.text import aspect_sentence, chatter_sentences, describe, make_titles
from environments.worlds.truth import ItemTruth, ReviewTruth, SentenceLabel, UserTruth

GENERATOR_VERSION = 2
MIN_REVIEWS_PER_USER = 10
TRUTH_DIR = "truth"
VISIBILITY = ("full", "partial", "none")

_ZIPF_EXPONENT = 0.8  # long tail of item popularity
_EXTRA_REVIEW_SHARE = 0.5  # mean reviews per item = min_reviews_per_item * (1 + share)
_AFFINITY_BIAS = 0.8  # how strongly users seek out items that suit them
_RATING_BASE, _RATING_SLOPE, _RATING_NOISE = 2.5, 1.0, 0.6  # stars = base + slope * affinity + noise
_EPOCH = 1_420_070_400  # 2015-01-01 UTC; reviews spread over the following eight years
_SPAN = 8 * 365 * 86_400
_CLUSTER_GROWS = 0.6  # chance the next item is a near-duplicate of the current cluster (mean size 2.5)
_MAX_CLUSTER = 5
_SIGNATURE_SHARE = 0.25  # chance a review mentions one of its item's signatures
_LACKING_SHARE = 0.35  # chance a review names a value its item lacks
_FLIP_SHARE = 0.15  # chance an incidental mention disagrees with the stars
# How an aspect mention is worded: generic, hedged, compared with another value, else plain.
_GENERIC, _HEDGE, _COMPARISON = 0.15, 0.1, 0.15

Feature = tuple[str, str]  # (aspect, value)


@dataclass
class World:
    """A generated catalog plus the latent truth that produced it."""

    catalog: Catalog
    users: list[UserTruth]
    reviews: list[ReviewTruth]
    items: list[ItemTruth]

    def save(self, directory: Path) -> Path:
        """Write the catalog files, `interactions.jsonl` and `truth/{users,reviews,items}.jsonl`."""
        directory = Path(directory)
        self.catalog.save(directory)
        write_jsonl(directory / INTERACTIONS, [
            Interaction(user_id=r.user_id, item_id=r.item_id, value=r.rating, source="world")
            for r in self.catalog.reviews])
        write_jsonl(directory / TRUTH_DIR / "users.jsonl", self.users)
        write_jsonl(directory / TRUTH_DIR / "reviews.jsonl", self.reviews)
        write_jsonl(directory / TRUTH_DIR / "items.jsonl", self.items)
        return directory


def generate_world(
    domain: str, *, n_items: int = 3000, n_users: int = 1200, min_reviews_per_item: int = 10, seed: int = 0,
    attribute_visibility: str = "partial",
) -> World:
    """Generate a world for `domain` ('restaurant' or 'movie'); deterministic in its arguments."""
    spec = get_domain(domain)
    if n_items < 1 or n_users < 1 or min_reviews_per_item < 0:
        raise ValueError("n_items and n_users must be >= 1 and min_reviews_per_item >= 0")
    if min_reviews_per_item > n_users:
        raise ValueError(f"min_reviews_per_item={min_reviews_per_item} needs at least that many users")
    if attribute_visibility not in VISIBILITY:
        raise ValueError(f"attribute_visibility={attribute_visibility!r}; expected one of {', '.join(VISIBILITY)}")

    item_rnd, user_rnd, text_rnd, shown_rnd = (random.Random(f"crsim-world-{seed}-{stream}")
                                               for stream in ("items", "users", "text", "shown"))
    rng = np.random.default_rng([seed, GENERATOR_VERSION])

    attributes, clusters, signatures = _clustered_items(spec, n_items, item_rnd)
    shown = [shown_attributes(spec.aspects, attrs, attribute_visibility, shown_rnd) for attrs in attributes]
    titles = make_titles(spec, n_items, item_rnd)
    items = [
        Item(
            id=f"{spec.name[0]}{i + 1:05d}",
            title=titles[i],
            category=spec.category,
            attributes=shown[i],
            description=describe(spec, titles[i], attributes[i], item_rnd),
        )
        for i in range(n_items)
    ]
    preferences = [_sample_preferences(spec, user_rnd) for _ in range(n_users)]
    user_ids = [f"u{u + 1:05d}" for u in range(n_users)]

    item_features = [_features(attrs) for attrs in attributes]
    affinity = _affinity(spec, item_features, preferences)
    reviewed, popularity = _assign_reviewers(affinity, min_reviews_per_item, rng)
    pair_items, pair_users = np.nonzero(reviewed)  # row-major: grouped by item, users ascending
    n_reviews = len(pair_items)
    quality = rng.normal(0.0, 0.3, n_items)
    leniency = rng.normal(0.0, 0.35, n_users)
    raw = (_RATING_BASE + _RATING_SLOPE * affinity[pair_items, pair_users]
           + quality[pair_items] + leniency[pair_users])
    ratings = np.clip(np.rint(raw + rng.normal(0.0, _RATING_NOISE, n_reviews)), 1, 5).astype(int)
    timestamps = rng.integers(_EPOCH, _EPOCH + _SPAN, n_reviews)
    votes = rng.geometric(0.55, n_reviews) - 1
    review_numbers = rng.permutation(n_reviews) + 1

    reviews: list[Review] = []
    review_truth: list[ReviewTruth] = []
    history: list[list[tuple[int, str, str, float]]] = [[] for _ in range(n_users)]
    for k in range(n_reviews):
        i, u = int(pair_items[k]), int(pair_users[k])
        rating = int(ratings[k])
        sentences = _review_sentences(spec, attributes[i], item_features[i], signatures[i], preferences[u],
                                      rating, text_rnd)
        review_id = f"rv{int(review_numbers[k]):06d}"
        reviews.append(
            Review(
                id=review_id, item_id=items[i].id, user_id=user_ids[u], rating=float(rating),
                text=" ".join(s.text for s in sentences), helpful_votes=int(votes[k]),
                timestamp=int(timestamps[k]),
            )
        )
        review_truth.append(
            ReviewTruth(review_id=review_id, item_id=items[i].id, user_id=user_ids[u], sentences=sentences)
        )
        history[u].append((int(timestamps[k]), review_id, items[i].id, float(rating)))
    order = sorted(range(n_reviews), key=lambda k: reviews[k].id)
    reviews = [reviews[k] for k in order]
    review_truth = [review_truth[k] for k in order]

    users = [
        UserProfile(
            user_id=user_ids[u],
            seen=[SeenItem(item_id=item_id, rating=rating, review_id=review_id)
                  for _, review_id, item_id, rating in sorted(history[u])],
        )
        for u in range(n_users)
    ]
    manifest = CatalogManifest(
        name=f"world-{spec.name}-s{seed}",
        domain=spec.name,
        item_noun=spec.item_noun,
        source="crsim.worlds",
        extra={
            "generator_version": GENERATOR_VERSION,
            "n_items": n_items,
            "n_users": n_users,
            "min_reviews_per_item": min_reviews_per_item,
            "seed": seed,
            "attribute_visibility": attribute_visibility,
        },
    )
    truth = [_user_truth(spec, user_ids[u], preferences[u]) for u in range(n_users)]
    item_truth = [
        ItemTruth(item_id=items[i].id, attributes=attributes[i], shown=shown[i], cluster=clusters[i],
                  signatures=signatures[i], popularity=round(float(popularity[i]), 8))
        for i in range(n_items)
    ]
    return World(catalog=Catalog(manifest, items, reviews, users), users=truth, reviews=review_truth,
                 items=item_truth)


def generate(domain: str, **arguments: object) -> World:
    """The registry's entry point (see `registry.generator_module`)."""
    return generate_world(domain, **arguments)  # type: ignore[arg-type]


def _clustered_items(
    spec: DomainSpec, n_items: int, rnd: random.Random
) -> tuple[list[dict[str, str | list[str]]], list[int], list[list[str]]]:
    """Attributes, cluster ids and signatures of `n_items` items, in a shuffled order.

    A cluster starts from freshly drawn values; each further member copies them and
    redraws one or two aspects, and gets signatures no other member has. The order is
    shuffled afterwards so that neighbouring item ids say nothing about clusters.
    """
    bank = SIGNATURES[spec.name]
    drawn: list[tuple[dict[str, str | list[str]], int, list[str]]] = []
    base: dict[str, str | list[str]] = {}
    cluster, size, used = -1, 0, set[str]()
    for _ in range(n_items):
        if not base or size >= _MAX_CLUSTER or rnd.random() >= _CLUSTER_GROWS:
            base, cluster, size, used = _sample_attributes(spec, rnd), cluster + 1, 0, set()
            attrs = dict(base)
        else:
            fresh = _sample_attributes(spec, rnd)
            attrs = dict(base)
            for name in rnd.sample([a.name for a in spec.aspects], rnd.randint(1, 2)):
                attrs[name] = fresh[name]
        size += 1
        own = rnd.sample([s for s in bank if s not in used], rnd.randint(1, 2))
        used.update(own)
        drawn.append((attrs, cluster, sorted(own)))
    rnd.shuffle(drawn)
    return [d[0] for d in drawn], [d[1] for d in drawn], [d[2] for d in drawn]


def _sample_attributes(spec: DomainSpec, rnd: random.Random) -> dict[str, str | list[str]]:
    """Values drawn by their weights; multi-valued aspects keep the spec's value order."""
    attributes: dict[str, str | list[str]] = {}
    for aspect in spec.aspects:
        weights = [value.weight for value in aspect.values]
        if not aspect.multi_valued:
            attributes[aspect.name] = rnd.choices(aspect.values, weights)[0].value
            continue
        chosen = _weighted_sample(list(range(len(aspect.values))), weights,
                                  rnd.randint(aspect.min_values, aspect.max_values), rnd)
        attributes[aspect.name] = [aspect.values[j].value for j in sorted(chosen)]
    return attributes


def _weighted_sample(options: list, weights: list[float], k: int, rnd: random.Random) -> list:
    """`k` distinct options, each draw proportional to weight among those left."""
    options, weights, chosen = list(options), list(weights), []
    for _ in range(min(k, len(options))):
        j = rnd.choices(range(len(options)), weights)[0]
        chosen.append(options.pop(j))
        weights.pop(j)
    return chosen


def _sample_preferences(spec: DomainSpec, rnd: random.Random) -> dict[Feature, float]:
    """3-6 liked and 2-4 disliked values, weighted by how much people care about each aspect.

    Likes favour common values (many people like italian food); dislikes only come from
    aspects where disliking makes sense (nobody dislikes that vegan options exist).
    Strengths are rounded so the truth file shows exactly what drove the ratings.
    """
    pool = [(aspect, value) for aspect in spec.aspects for value in aspect.values]
    prefs: dict[Feature, float] = {}
    per_aspect: dict[str, int] = {}

    def draw(n: int, candidates: list, weights: list[float], cap: Callable[[AspectSpec], int],
             low: float, high: float, sign: int) -> None:
        candidates, weights = list(candidates), list(weights)
        while n > 0 and candidates:
            j = rnd.choices(range(len(candidates)), weights)[0]
            aspect, value = candidates.pop(j)
            weights.pop(j)
            feature = (aspect.name, value.value)
            if feature in prefs or per_aspect.get(f"{sign}{aspect.name}", 0) >= cap(aspect):
                continue
            per_aspect[f"{sign}{aspect.name}"] = per_aspect.get(f"{sign}{aspect.name}", 0) + 1
            prefs[feature] = sign * round(rnd.uniform(low, high), 2)
            n -= 1

    aspect_mass = {a.name: sum(v.weight for v in a.values) for a in spec.aspects}
    draw(rnd.randint(3, 6), pool, [a.salience * v.weight / aspect_mass[a.name] for a, v in pool],
         lambda a: a.max_likes, 0.6, 1.5, 1)
    dislikable = [(a, v) for a, v in pool if a.dislikable]
    draw(rnd.randint(2, 4), dislikable, [a.salience / len(a.values) for a, _ in dislikable],
         lambda a: min(2, len(a.values) - 1), 0.8, 1.8, -1)
    return prefs


def _assign_reviewers(
    affinity: np.ndarray, min_per_item: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Boolean (items, users) matrix of who reviewed what, and the items' latent popularity.

    Each item gets `min_per_item` reviews plus a Zipf-distributed share of extra ones, from
    users drawn without replacement in proportion to activity x exp(bias x affinity); then
    users with fewer than `MIN_REVIEWS_PER_USER` reviews get topped up the same way.
    """
    n_items, n_users = affinity.shape
    popularity = 1.0 / (rng.permutation(n_items) + 1.0) ** _ZIPF_EXPONENT
    popularity /= popularity.sum()
    extra = rng.multinomial(int(round(n_items * min_per_item * _EXTRA_REVIEW_SHARE)), popularity)
    counts = np.minimum(min_per_item + extra, max(min_per_item, n_users // 3))
    appeal = np.exp(_AFFINITY_BIAS * affinity)
    activity = rng.lognormal(0.0, 0.7, n_users)
    reviewed = np.zeros((n_items, n_users), dtype=bool)
    for i in range(n_items):
        p = appeal[i] * activity
        reviewed[i, rng.choice(n_users, size=int(counts[i]), replace=False, p=p / p.sum())] = True
    need = min(MIN_REVIEWS_PER_USER, n_items)
    per_user = reviewed.sum(axis=0)
    for u in np.flatnonzero(per_user < need):
        p = popularity * appeal[:, u]
        p[reviewed[:, u]] = 0.0
        reviewed[rng.choice(n_items, size=int(need - per_user[u]), replace=False, p=p / p.sum()), u] = True
    return reviewed, popularity


def _affinity(
    spec: DomainSpec, item_features: list[set[Feature]], preferences: list[dict[Feature, float]]
) -> np.ndarray:
    """(items, users) matrix: summed strength of liked minus disliked values each item has."""
    column = {(a.name, v.value): j for j, (a, v) in enumerate((a, v) for a in spec.aspects for v in a.values)}
    present = np.zeros((len(item_features), len(column)))
    for i, feats in enumerate(item_features):
        present[i, [column[f] for f in feats]] = 1.0
    weights = np.zeros((len(preferences), len(column)))
    for u, prefs in enumerate(preferences):
        for feature, weight in prefs.items():
            weights[u, column[feature]] = weight
    return present @ weights.T


def _review_sentences(
    spec: DomainSpec,
    attributes: dict[str, str | list[str]],
    item_features: set[Feature],
    signatures: list[str],
    prefs: dict[Feature, float],
    rating: int,
    rnd: random.Random,
) -> list[SentenceLabel]:
    """One review, shuffled: 1-4 aspect mentions, the reviewer's own likes/dislikes
    present in the item first (that is what people write about), then other actual
    values with the rating's polarity (sometimes not); each mention worded plainly,
    generically, hedged or as a comparison; maybe a value the item lacks, a signature,
    and 0-3 off-topic sentences."""
    felt = sorted((f for f in prefs if f in item_features), key=lambda f: (-abs(prefs[f]), f))
    n_aspect = rnd.randint(1, 4)
    mentions: list[tuple[str, str, int]] = [(a, v, 1 if prefs[(a, v)] > 0 else -1) for a, v in felt[:n_aspect]]
    others = [a.name for a in spec.aspects if attributes[a.name] and a.name not in {m[0] for m in mentions}]
    rnd.shuffle(others)
    for name in others[: max(0, n_aspect - len(mentions))]:
        val = attributes[name]
        value = val if isinstance(val, str) else rnd.choice(val)
        polarity = 1 if rating >= 4 else -1 if rating <= 2 else rnd.choice((1, -1))
        if rnd.random() < _FLIP_SHARE:
            polarity = -polarity
        mentions.append((name, value, polarity))
    used: set[str] = set()
    sentences = [_mention(spec, a, v, p, rnd, used) for a, v, p in mentions]
    if rnd.random() < _LACKING_SHARE:
        aspect = rnd.choice(spec.aspects)
        lacked = [v.value for v in aspect.values if (aspect.name, v.value) not in item_features]
        if lacked:
            sentences.append(lacking_sentence(spec, aspect.name, rnd.choice(lacked), rnd))
    if signatures and rnd.random() < _SIGNATURE_SHARE:
        sentences.append(signature_sentence(spec, rnd.choice(signatures), rnd))
    sentences += chatter_sentences(spec, rnd.choice((0, 1, 1, 2, 3)), rnd)
    rnd.shuffle(sentences)
    return sentences


def _mention(spec: DomainSpec, aspect: str, value: str, polarity: int, rnd: random.Random,
             used: set[str]) -> SentenceLabel:
    """One mention of an item's value, worded one of four ways (see `noise.py`)."""
    draw = rnd.random()
    if draw < _GENERIC:
        return generic_sentence(spec, aspect, value, polarity, rnd)
    if draw < _GENERIC + _HEDGE:
        return hedge_sentence(spec, aspect, value, rnd)
    others = [v.value for v in spec.by_aspect[aspect].values if v.value != value]
    if draw < _GENERIC + _HEDGE + _COMPARISON and polarity > 0 and not spec.by_aspect[aspect].multi_valued:
        return comparison_sentence(spec, aspect, value, rnd.choice(others), rnd)
    return aspect_sentence(spec, aspect, value, polarity, rnd, used)


def _features(attributes: dict[str, str | list[str]]) -> set[Feature]:
    return {(name, v) for name, val in attributes.items() for v in ([val] if isinstance(val, str) else val)}


def _user_truth(spec: DomainSpec, user_id: str, prefs: dict[Feature, float]) -> UserTruth:
    """Likes/dislikes per aspect in spec order, strongest first, with their strengths."""
    likes: dict[str, list[str]] = {}
    dislikes: dict[str, list[str]] = {}
    weights: dict[str, dict[str, float]] = {}
    for aspect in spec.aspects:
        mine = sorted(((v, w) for (a, v), w in prefs.items() if a == aspect.name),
                      key=lambda vw: (-abs(vw[1]), vw[0]))
        for value, weight in mine:
            (likes if weight > 0 else dislikes).setdefault(aspect.name, []).append(value)
            weights.setdefault(aspect.name, {})[value] = weight
    return UserTruth(user_id=user_id, likes=likes, dislikes=dislikes, weights=weights)

