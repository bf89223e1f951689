"""Generated worlds: deterministic, complete, and carrying the signal they promise."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path
from statistics import mean, median

import pytest

from environments.worlds import DOMAINS, GENERATOR_VERSION, World, generate_world
from environments.worlds.domain import names_value

N_ITEMS, N_USERS, MIN_REVIEWS = 200, 80, 10


@pytest.fixture(scope="module", params=sorted(DOMAINS))
def world(request: pytest.FixtureRequest) -> World:
    return generate_world(request.param, n_items=N_ITEMS, n_users=N_USERS, min_reviews_per_item=MIN_REVIEWS, seed=7)


def _values(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _files(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_same_arguments_give_identical_files(domain: str, tmp_path: Path) -> None:
    args = dict(n_items=60, n_users=40, min_reviews_per_item=5, seed=11)
    first = _files(generate_world(domain, **args).save(tmp_path / "a"))
    second = _files(generate_world(domain, **args).save(tmp_path / "b"))
    assert set(first) == {"catalog.json", "items.jsonl", "reviews.jsonl", "users.jsonl", "interactions.jsonl",
                          "truth/users.jsonl", "truth/reviews.jsonl", "truth/items.jsonl"}
    assert first == second
    other = _files(generate_world(domain, **{**args, "seed": 12}).save(tmp_path / "c"))
    assert other["items.jsonl"] != first["items.jsonl"]


def test_counts_and_ids(world: World) -> None:
    catalog = world.catalog
    prefix = catalog.manifest.domain[0]
    assert len(catalog.items) == N_ITEMS and len(catalog.users) == N_USERS == len(world.users)
    assert catalog.item_ids[0] == f"{prefix}00001" and catalog.item_ids[-1] == f"{prefix}{N_ITEMS:05d}"
    assert len({item.title for item in catalog.items}) == N_ITEMS
    assert [r.id for r in catalog.reviews] == [f"rv{k:06d}" for k in range(1, len(catalog.reviews) + 1)]
    first_item = [r.id for r in catalog.reviews if r.item_id == catalog.item_ids[0]]
    assert first_item != [f"rv{k:06d}" for k in range(1, len(first_item) + 1)]  # opaque: not numbered per item
    per_item = Counter(r.item_id for r in catalog.reviews)
    assert set(per_item) == set(catalog.item_ids)
    assert min(per_item.values()) >= MIN_REVIEWS
    counts = list(per_item.values())
    assert median(counts) < mean(counts) < max(counts) / 1.5  # skewed: a long tail of popularity
    assert min(Counter(r.user_id for r in catalog.reviews).values()) >= 10
    pairs = [(r.user_id, r.item_id) for r in catalog.reviews]
    assert len(pairs) == len(set(pairs))
    assert all(1 <= r.rating <= 5 and r.helpful_votes >= 0 and r.timestamp for r in catalog.reviews)


def test_items_hold_valid_attributes_and_no_latent_fields(world: World) -> None:
    spec = DOMAINS[world.catalog.manifest.domain]
    truth = {t.item_id: t for t in world.items}
    shown = wrong = total = 0
    for item in world.catalog.items:
        assert item.category == spec.category and item.extra == {}
        true = truth[item.id].attributes
        assert list(true) == [a.name for a in spec.aspects] and item.attributes == truth[item.id].shown
        for aspect in spec.aspects:
            value = true[aspect.name]
            if aspect.multi_valued:
                assert isinstance(value, list) and aspect.min_values <= len(value) <= aspect.max_values
            else:
                assert isinstance(value, str)
            assert set(_values(value)) <= set(aspect.by_value)
            total += 1
            if aspect.name in item.attributes:
                shown += 1
                assert set(_values(item.attributes[aspect.name])) <= set(aspect.by_value)
                wrong += not set(_values(item.attributes[aspect.name])) <= set(_values(value))
        assert item.title in item.description
        assert 1 <= len(re.findall(r"[.!?](?:\s|$)", item.description.replace("a.m.", "am"))) <= 3
    assert 0.35 < shown / total < 0.6 and 0.03 < wrong / shown < 0.15  # partial and noisy, the default


@pytest.mark.parametrize("visibility", ["full", "none"])
def test_visibility_changes_only_what_the_catalog_shows(visibility: str) -> None:
    args = dict(n_items=40, n_users=30, min_reviews_per_item=5, seed=3)
    partial, other = generate_world("restaurant", **args), generate_world("restaurant", **args,
                                                                          attribute_visibility=visibility)
    assert [t.attributes for t in other.items] == [t.attributes for t in partial.items]
    assert [r.text for r in other.catalog.reviews] == [r.text for r in partial.catalog.reviews]
    for item, truth in zip(other.catalog.items, other.items):
        assert item.attributes == (truth.attributes if visibility == "full" else {})


def test_near_duplicate_clusters_differ_in_signatures(world: World) -> None:
    spec = DOMAINS[world.catalog.manifest.domain]
    clusters: dict[int, list] = defaultdict(list)
    for truth in world.items:
        clusters[truth.cluster].append(truth)
    shared = [t for members in clusters.values() if len(members) > 1 for t in members]
    assert len(shared) > 0.4 * len(world.items)
    for members in clusters.values():
        signatures = [s for t in members for s in t.signatures]
        assert len(signatures) == len(set(signatures)) and all(1 <= len(t.signatures) <= 2 for t in members)
        for a, b in zip(members, members[1:]):
            same = sum(a.attributes[x.name] == b.attributes[x.name] for x in spec.aspects)
            assert same >= len(spec.aspects) - 4  # each member redraws at most two aspects of the base


def test_manifest_and_user_profiles(world: World) -> None:
    catalog = world.catalog
    manifest = catalog.manifest
    assert manifest.name == f"world-{manifest.domain}-s7" and manifest.source == "crsim.worlds"
    assert manifest.item_noun == DOMAINS[manifest.domain].item_noun
    assert manifest.extra["generator_version"] == GENERATOR_VERSION and manifest.extra["n_items"] == N_ITEMS
    by_user = defaultdict(dict)
    for review in catalog.reviews:
        by_user[review.user_id][review.id] = (review.item_id, review.rating)
    for profile in catalog.users:
        assert profile.preferences == {}
        assert {s.review_id: (s.item_id, s.rating) for s in profile.seen} == by_user[profile.user_id]


def test_user_truth_shape(world: World) -> None:
    for user in world.users:
        liked = [(a, v) for a, vs in user.likes.items() for v in vs]
        disliked = [(a, v) for a, vs in user.dislikes.items() for v in vs]
        assert 3 <= len(liked) <= 6 and 2 <= len(disliked) <= 4
        assert not set(liked) & set(disliked)
        assert all(user.weights[a][v] > 0 for a, v in liked) and all(user.weights[a][v] < 0 for a, v in disliked)


def test_ratings_follow_preferences(world: World) -> None:
    catalog, users = world.catalog, {u.user_id: u for u in world.users}
    truth = {t.item_id: t.attributes for t in world.items}
    liked, disliked = [], []
    for review in catalog.reviews:
        item, user = catalog.item(review.item_id), users[review.user_id]
        values = {(a, v) for a, val in truth[item.id].items() for v in _values(val)}
        likes = any((a, v) in values for a, vs in user.likes.items() for v in vs)
        dislikes = any((a, v) in values for a, vs in user.dislikes.items() for v in vs)
        if likes and not dislikes:
            liked.append(review.rating)
        elif dislikes and not likes:
            disliked.append(review.rating)
    assert len(disliked) >= 20
    assert mean(liked) - mean(disliked) >= 1.5
    assert len(liked) > len(disliked)  # people mostly go where they expect to like it


def test_sentence_labels_match_text_and_item(world: World) -> None:
    spec = DOMAINS[world.catalog.manifest.domain]
    reviews = world.catalog.review_by_id
    users = {u.user_id: u for u in world.users}
    items = {t.item_id: t for t in world.items}
    kinds: Counter[str] = Counter()
    assert [t.review_id for t in world.reviews] == [r.id for r in world.catalog.reviews]
    for truth in world.reviews:
        review, item, user = reviews[truth.review_id], items[truth.item_id], users[truth.user_id]
        assert (review.item_id, review.user_id) == (truth.item_id, truth.user_id)
        assert review.text == " ".join(s.text for s in truth.sentences)
        assert 1 <= len(truth.sentences) <= 9
        for sentence in truth.sentences:
            kinds[sentence.kind] += 1
            if sentence.kind == "chatter":
                assert sentence.aspect is None and sentence.polarity == 0 and sentence.text in spec.chatter
                continue
            if sentence.kind == "signature":
                assert sentence.signature in item.signatures and sentence.signature in sentence.text
                continue
            values = _values(item.attributes[sentence.aspect])
            assert (sentence.value in values) == sentence.present == (sentence.kind != "lacking")
            if sentence.kind == "generic":
                continue
            phrases = spec.by_aspect[sentence.aspect].by_value[sentence.value].phrases
            assert any(p.lower() in sentence.text.lower() for p in phrases), sentence.text
            if sentence.kind == "comparison":
                assert sentence.contrasted not in values and sentence.polarity == 1
            if sentence.kind == "hedge":
                assert sentence.polarity == 0
            if sentence.kind == "plain" and sentence.value in user.likes.get(sentence.aspect, []):
                assert sentence.polarity == 1
            if sentence.kind == "plain" and sentence.value in user.dislikes.get(sentence.aspect, []):
                assert sentence.polarity == -1
    n = sum(kinds.values())
    for kind in ("plain", "generic", "hedge", "comparison", "lacking", "signature", "chatter"):
        assert kinds[kind] > 0.02 * n, kind  # every kind of noise is there, none dominates but plain
    assert kinds["plain"] == max(kinds.values())


def test_reviews_often_avoid_the_canonical_word(world: World) -> None:
    labelled = [s for t in world.reviews for s in t.sentences if s.aspect is not None]
    implicit = [s for s in labelled if not names_value(s.text, s.value)]
    assert len(implicit) > 0.3 * len(labelled)
    assert any(s.aspect is None for t in world.reviews for s in t.sentences)


def test_rejects_impossible_sizes() -> None:
    with pytest.raises(ValueError, match="min_reviews_per_item"):
        generate_world("movie", n_items=10, n_users=5, min_reviews_per_item=10)
