"""Offline playlist curators: CPCD's query, what they show and add, scorers, diversity."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

from agents.recommenders.curator import Curator, build, card_text, play_counts
from agents.recommenders.playlist_query import query_parts
from crsim_testing import HashEncoder
from environments.base import SeekerReply
from environments.catalog import Catalog
from environments.errors import CrsimError
from environments.models import CatalogManifest, Item, Role
from environments.playlist import Curation, PlaylistSetup
from environments.playlist.goals import PlaylistGoal, theme_brief

SEEKER, CURATOR = Role.seeker.value, Role.recommender.value


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    moods = ["upbeat", "sad", "upbeat", "chill", "upbeat", "sad"]
    items = [Item(id=f"t{i}", title=f"Song {i}", category="track",
                  attributes={"artist": [f"Band {i % 2}"], "album": f"Album {i}", "mood": moods[i]},
                  description=f"A {moods[i]} tune.", extra={"play_count": 10 * (6 - i), "cluster_id": f"c{i}"})
             for i in range(6)]
    items.append(Item(id="t6", title="Song 0 (Live)", category="track",
                      attributes={"artist": ["Band 0"], "album": "Live", "mood": "upbeat"},
                      extra={"play_count": 1, "cluster_id": "c0"}))
    Catalog(CatalogManifest(name="tiny-music", domain="track", item_noun="tracks"), items, [], []).save(tmp_path)
    return Catalog.load(tmp_path)


def _setup(catalog: Catalog) -> PlaylistSetup:
    goal = ("t0", "t2", "t4")
    brief = theme_brief("upbeat", "Something upbeat please", goal, {i: catalog.item(i).attributes for i in goal})
    return PlaylistSetup(catalog, [PlaylistGoal("g1", "upbeat", "Something upbeat please", goal, brief)], top_k=4)


def _turn(agent, env):
    return asyncio.run(agent.respond(env.observe(CURATOR), {}))[0]


def test_query_interleaves_utterances_with_liked_tracks() -> None:
    text = {"a": "A by X", "b": "B by Y"}.get
    assert query_parts(["hi", "more", "last"], [["a"], [], ["b"]], "user+items", text) == ["last", "more", "A by X",
                                                                                          "hi"]
    assert query_parts(["hi", "more"], [["a"]], "user", text) == ["more", "hi"]
    with pytest.raises(ValueError, match="query mode"):
        query_parts(["hi"], [], "items", text)


def test_card_text_and_play_counts(catalog: Catalog) -> None:
    assert card_text(catalog.item("t1")) == "Song 1 by Band 1 from Album 1. sad A sad tune."
    assert play_counts(catalog).tolist()[:3] == [60.0, 50.0, 40.0]


def test_bm25_curator_shows_what_was_asked_adds_top_k_and_liked_ones(catalog: Catalog, tmp_path: Path) -> None:
    setup = _setup(catalog)
    env = setup.new_episode()
    env.reset(seed=0, options={"episode_index": 0})
    agent = build(catalog, scorer="bm25", shown=4, add_per_turn=1, cache_dir=str(tmp_path / "cache"))
    first = _turn(agent, env)
    assert isinstance(first, Curation) and set(first.shown[:3]) == {"t0", "t2", "t4"}  # the upbeat ones
    assert first.add == first.shown[:1]
    env.step(CURATOR, first)
    liked, disliked = first.shown[1], first.shown[3]
    env.step(SEEKER, SeekerReply("Yes to that one, more upbeat", feedback={liked: "like", disliked: "dislike"}))
    second = _turn(agent, env)
    assert second.shown[0] == liked and second.add[0] == liked  # a liked track comes back to be added
    assert len(second.add) == 2 and second.add[1] not in first.shown  # ... plus one new (top-k)
    assert first.add[0] not in second.shown and disliked not in second.shown
    assert not ({"t0", "t6"} <= set(env.items.item_set()) | set(second.add))  # one version of a song


def test_popularity_ignores_the_talk_and_diversity_caps_artists(catalog: Catalog) -> None:
    setup = _setup(catalog)
    env = setup.new_episode()
    env.reset(seed=0, options={"episode_index": 0})
    agent = build(catalog, scorer="popularity", shown=4, add_per_turn=3, max_per_artist=1)
    move = _turn(agent, env)
    assert move.shown == ["t0", "t1", "t2", "t3"]
    assert move.add == ["t0", "t1"]  # t2 is Band 0's second track: the cap keeps it out


def test_dense_curator_with_an_injected_encoder(catalog: Catalog, tmp_path: Path) -> None:
    setup = _setup(catalog)
    env = setup.new_episode()
    env.reset(seed=0, options={"episode_index": 0})
    agent = build(catalog, scorer="dense", encoder=HashEncoder(), shown=3, cache_dir=str(tmp_path / "cache"))
    assert set(_turn(agent, env).shown) <= {"t0", "t2", "t4", "t6"}


def test_unknown_scorer_or_document_is_a_clear_error(catalog: Catalog) -> None:
    with pytest.raises(CrsimError, match="scorer"):
        build(catalog, scorer="magic")
    with pytest.raises(CrsimError, match="document"):
        build(catalog, scorer="popularity", document="lyrics")


def test_curator_policy_without_a_playlist_attribute(catalog: Catalog) -> None:
    """A curator also answers a plain recommender observation (no `item_set`)."""
    from environments.base import RecommenderObservation
    from environments.models import Turn

    curator = Curator(catalog, lambda parts: np.arange(len(catalog.items), dtype=float), shown=2, add_per_turn=1)
    observation = RecommenderObservation(1, (Turn(index=0, role=SEEKER, text="hi"),), (), catalog.item_ids,
                                         "tracks", 0)
    move = curator.respond(observation)
    assert move.shown == ["t6", "t5"] and move.add == ["t6"]
