"""The music world: grouped tracks, heavy-tailed plays, noisy visible attributes, themes with goal sets."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from environments.catalog.interactions import load_interactions
from environments.worlds import load_item_truth, load_themes, load_truth, load_world, world_dir, world_names
from environments.worlds.domain import names_value
from environments.worlds.music import GENERATOR_VERSION, MusicWorld, generate_music_world
from environments.worlds.music_vocab import MUSIC_ASPECTS, SEEKER_MUSIC_WORDS
from environments.worlds.themes import MAX_GOAL, MIN_GOAL

ARGS = dict(n_items=600, n_users=80, seed=5, n_themes=20)


@pytest.fixture(scope="module")
def world() -> MusicWorld:
    return generate_music_world(**ARGS)


def _digest(directory: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted(directory.rglob("*.json*")))).hexdigest()


def test_registered_beside_the_review_worlds() -> None:
    assert {"restaurant", "movie", "music"} <= set(world_names())


def test_same_arguments_give_identical_files(tmp_path: Path) -> None:
    small = dict(ARGS, n_items=200, n_users=30, n_themes=5)
    first = _digest(generate_music_world(**small).save(tmp_path / "a"))
    assert _digest(generate_music_world(**small).save(tmp_path / "b")) == first
    assert _digest(generate_music_world(**{**small, "seed": 6}).save(tmp_path / "c")) != first


def test_tracks_are_grouped_by_artists_and_albums(world: MusicWorld) -> None:
    items = world.catalog.items
    assert all(item.category == "track" and item.attributes["artist"] and item.attributes["album"] for item in items)
    artist_of_album: dict[str, set[str]] = defaultdict(set)
    tracks_per_artist: dict[str, int] = defaultdict(int)
    for item in items:
        artist_of_album[item.extra["album_id"]].add(item.extra["artist_id"])
        tracks_per_artist[item.extra["artist_id"]] += 1
    assert all(len(artists) == 1 for artists in artist_of_album.values())  # an album is one artist's
    assert len(artist_of_album) < len(items) / 4 and max(tracks_per_artist.values()) >= 10


def test_versions_share_a_cluster_and_its_true_attributes(world: MusicWorld) -> None:
    by_cluster: dict[int, list] = defaultdict(list)
    for truth in world.items:
        by_cluster[truth.cluster].append(truth)
    versions = [group for group in by_cluster.values() if len(group) > 1]
    assert versions, "some tracks should be other versions of a song"
    for group in versions:
        assert len({tuple((a.name, t.attributes[a.name]) for a in MUSIC_ASPECTS) for t in group}) == 1


def test_play_counts_are_heavy_tailed(world: MusicWorld) -> None:
    plays = np.sort([item.extra["play_count"] for item in world.catalog.items])[::-1]
    top_tenth = plays[: len(plays) // 10].sum() / plays.sum()
    assert top_tenth > 0.5, top_tenth  # like real play counts: a few hits, a long tail
    assert plays[0] > 20 * np.median(plays)


def test_attributes_are_partly_shown_and_sometimes_wrong(world: MusicWorld) -> None:
    shown = hidden = wrong = 0
    for item, truth in zip(world.catalog.items, world.items):
        for aspect in MUSIC_ASPECTS:
            if aspect.name not in item.attributes:
                hidden += 1
                continue
            shown += 1
            wrong += item.attributes[aspect.name] != truth.attributes[aspect.name]
    assert 0.35 < shown / (shown + hidden) < 0.65
    assert 0.03 < wrong / shown < 0.2
    full = generate_music_world(**{**ARGS, "n_themes": 0, "attribute_visibility": "full"})
    assert all(item.attributes[a.name] == truth.attributes[a.name]
               for item, truth in zip(full.catalog.items, full.items) for a in MUSIC_ASPECTS)


def test_descriptions_paraphrase_true_values(world: MusicWorld) -> None:
    assert all(item.description for item in world.catalog.items)
    plain = sum(not any(names_value(item.description, str(truth.attributes[a.name])) for a in MUSIC_ASPECTS)
                for item, truth in zip(world.catalog.items, world.items))
    assert plain > len(world.items) / 3  # most descriptions avoid the canonical words


def test_listeners_play_what_suits_them(world: MusicWorld) -> None:
    truth = {t.item_id: t.attributes for t in world.items}
    taste = {u.user_id: u for u in world.users}
    liked = disliked = 0
    for play in world.plays:
        user = taste[play.user_id]
        attributes = truth[play.item_id]
        liked += sum(attributes[a] in vs for a, vs in user.likes.items())
        disliked += sum(attributes[a] in vs for a, vs in user.dislikes.items())
    assert liked > 3 * disliked
    assert all(20 <= len(user.seen) <= 60 for user in world.catalog.users)


def test_themes_have_goal_sets_that_fit_their_constraints(world: MusicWorld) -> None:
    truth = {t.item_id: t.attributes for t in world.items}
    assert len(world.themes) == ARGS["n_themes"]
    assert len({theme.name + theme.occasion + json.dumps(theme.constraints) for theme in world.themes}) == \
        len(world.themes)
    for theme in world.themes:
        assert MIN_GOAL <= len(theme.goal) <= MAX_GOAL and len(set(theme.goal)) == len(theme.goal)
        assert len(theme.goal) <= theme.n_fitting
        assert all(truth[t][a] == v for t in theme.goal for a, v in theme.constraints.items())
        assert theme.occasion in theme.name and theme.request
        assert not any(t in theme.request for t in theme.goal)


def test_seeker_words_differ_from_track_phrases() -> None:
    phrases = {p.lower() for aspect in MUSIC_ASPECTS for v in aspect.values for p in v.phrases}
    for aspect in MUSIC_ASPECTS:
        assert set(SEEKER_MUSIC_WORDS[aspect.name]) == {v.value for v in aspect.values}
        for words in SEEKER_MUSIC_WORDS[aspect.name].values():
            assert not phrases & {w.lower() for w in words}


def test_load_world_caches_it_with_its_truth_and_data_info_reads_it(tmp_path: Path) -> None:
    from simulators.cli.data import summarise

    args = dict(n_items=200, n_users=30, seed=1)
    catalog = load_world("music", cache_dir=tmp_path, **args)
    path = world_dir("music", cache_dir=tmp_path, **args)
    assert catalog.path == path and path.name.endswith(f"-v{GENERATOR_VERSION}")
    assert catalog.manifest.domain == "music" and catalog.item_noun == "tracks" and not catalog.reviews
    themes = load_themes(path)
    assert themes and all(t in catalog.item_index for theme in themes for t in theme.goal)
    assert set(load_item_truth(path)) == set(catalog.item_ids)
    users, reviews = load_truth(path)
    assert len(users) == 30 and reviews == []
    assert load_interactions(path / "interactions.jsonl").matrix.nnz > 0
    summary = summarise(path, validate=True, stats=True)
    assert summary["domain"] == "music" and summary["files"]["items"]["rows"] == 200
    assert dict(summary["aspects"])["artist"] == 1.0
    assert summary["stats"]["items"] == 200
    assert load_themes(tmp_path) == []  # not a music world
