"""Catalog shape statistics, on a catalog built by hand and through `crsim data info --stats`;
music statistics on a hand-built track catalog and on a small generated music world."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from environments.catalog import Catalog
from environments.catalog.stats import format_statistics, gini, play_counts, top_share
from environments.models import CatalogManifest, Item, Review
from environments.statistics import catalog_statistics
from environments.worlds.music import generate_music_world
from simulators.cli.data import summarise


def _catalog() -> Catalog:
    items = [Item(id="a", title="A", attributes={"color": "red", "size": "s"}),
             Item(id="b", title="B", attributes={"color": "red", "size": "s"}),
             Item(id="c", title="C", attributes={"color": "blue"})]
    reviews = [Review(id="r1", item_id="a", user_id="u1", rating=5, text="The color is bright. Size fits well."),
               Review(id="r2", item_id="a", user_id="u2", rating=4, text="Lovely color."),
               Review(id="r3", item_id="c", user_id="u1", rating=2, text="Too small. The size runs small. Meh.")]
    return Catalog(CatalogManifest(name="t"), items, reviews, [])


def test_statistics_count_what_they_say() -> None:
    stats = catalog_statistics(_catalog(), {"color": "color", "size": "size"})
    assert (stats.items, stats.reviews) == (3, 3)
    assert stats.reviews_per_item.mean == 1.0 and stats.reviews_per_item.median == 1.0
    assert stats.sentences_per_review.mean == 2.0 and stats.words_per_review.mean == round(16 / 3, 3)
    assert stats.aspects_per_review is not None and stats.aspects_per_review.mean == round(4 / 3, 3)  # 2, 1, 1 aspects
    assert stats.attributes_per_item.mean == round(5 / 3, 3)
    assert stats.unique_attribute_combinations == round(1 / 3, 4)  # a and b share everything
    assert catalog_statistics(_catalog()).aspects_per_review is None
    assert stats.music is None  # not a music catalog


def test_data_info_stats_on_a_catalog_directory(tmp_path) -> None:
    directory = _catalog().save(tmp_path / "c")
    summary = summarise(directory, stats=True)
    assert summary["stats"]["reviews"] == 3 and summary["stats"]["aspects_per_review"] is not None


def _tracks(plays: list[int] | None) -> Catalog:
    """Five tracks: t2 credits two artists, two albums are both called "Hits" (C's and D's), t5 has none."""
    rows = [("t1", ["A"], "X"), ("t2", ["A", "B"], "X"), ("t3", ["C"], "Hits"), ("t4", ["D"], "Hits"),
            ("t5", ["C"], "")]
    items = [Item(id=tid, title=tid, category="track",
                  attributes={"artist": artists, **({"album": album} if album else {})},
                  extra={"play_count": plays[i]} if plays else {})
             for i, (tid, artists, album) in enumerate(rows)]
    return Catalog(CatalogManifest(name="tracks", domain="track", item_noun="tracks"), items, [], [])


def test_music_statistics_by_hand() -> None:
    music = catalog_statistics(_tracks([1, 2, 3, 4, 10])).music
    assert music is not None
    assert (music.artists, music.albums) == (4, 3)  # A B C D; X, C's Hits, D's Hits
    assert music.tracks_per_artist.mean == 1.5 and music.tracks_per_artist.median == 1.5  # A 2, B 1, C 2, D 1
    assert music.tracks_per_album.mean == round(4 / 3, 3)  # X 2, Hits 1, Hits 1 (t5 has no album)
    assert music.play_source == "play_count"
    assert music.top_play_share == 0.5  # the top 10% of 5 tracks is one track: 10 of 20 plays
    assert music.play_gini == 0.4  # 2 * (1 + 4 + 9 + 16 + 50) / (5 * 20) - 6 / 5
    assert music.goal_playlists == 0 and music.goal_playlist_size is None  # not loaded from a directory
    silent = catalog_statistics(_tracks(None)).music
    assert silent is not None and silent.play_source is None and silent.top_play_share is None
    assert "  plays: none (no play_count and no interactions)" in format_statistics(catalog_statistics(_tracks(None)))


def test_skew_measures() -> None:
    assert gini(np.ones(8)) == pytest.approx(0.0) and top_share(np.ones(20)) == pytest.approx(0.1)
    assert gini(np.array([0.0, 0.0, 0.0, 4.0])) == pytest.approx(0.75)  # (n - 1) / n when one holds all
    assert top_share(np.zeros(3)) == 0.0 and gini(np.zeros(3)) == 0.0


def test_music_world_statistics(tmp_path: Path) -> None:
    world = generate_music_world(n_items=300, n_users=40, seed=5, n_themes=8)
    catalog = Catalog.load(world.save(tmp_path / "world"))
    stats = catalog_statistics(catalog)
    music = stats.music
    assert music is not None and stats.reviews == 0
    artists = Counter(item.extra["artist_id"] for item in catalog.items)
    albums = Counter(item.extra["album_id"] for item in catalog.items)
    assert (music.artists, music.albums) == (len(artists), len(albums))
    assert music.tracks_per_artist.mean == round(300 / len(artists), 3)
    assert music.tracks_per_album.median == float(np.median(list(albums.values())))
    plays = sorted((item.extra["play_count"] for item in catalog.items), reverse=True)
    assert music.play_source == "play_count" and music.top_play_share == round(sum(plays[:30]) / sum(plays), 4)
    assert music.top_play_share > 0.3 and music.play_gini > 0.5  # heavy-tailed, as the world is built
    assert list(play_counts(catalog)) == [item.extra["play_count"] for item in catalog.items]
    sizes = [len(theme.goal) for theme in world.themes]
    assert music.goal_playlists == len(sizes) == 8
    assert music.goal_playlist_size is not None and music.goal_playlist_size.mean == round(sum(sizes) / 8, 3)
    lines = format_statistics(stats)
    assert f"music: artists {len(artists)}, albums {len(albums)}, goal playlists 8" in lines
    assert any(line.startswith("  plays (from play_count): top 10% of tracks hold") for line in lines)
