"""Catalog statistics a synthetic world and a real catalog can be compared on: the records
and the measures that need nothing but the catalog.

A world is only a fair stand-in for Yelp or Amazon if its shape is in the same range:
how many reviews an item has, how long reviews are, how many aspects one review talks
about, how much of each item's attributes the catalog shows, and how many items an
attribute combination alone singles out (on the first world 2,997 of 3,000 restaurants
had a unique combination: five answers named the target).

A music catalog (the music world, domain "music", or a CPCD import, domain "track") has no
reviews to measure; what makes a playlist task easy or hard there is how tracks group
(tracks per artist and per album: "more by them" needs an artist with more than one track),
how concentrated listening is (a popularity curator wins when a few tracks hold most plays)
and how large the goal playlists are. `MusicStats` records those, with the same reading of
play counts the popularity curator uses (`play_counts`).

Measuring a catalog (`catalog_statistics`, `music_statistics`) reads review text the way the
aspect miner does and goal playlists the way the playlist protocol loads them, so it lives
above both, in `environments.statistics`; the old names here still resolve until 0.3.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from environments.catalog.store import Catalog
from environments.moved import moved_names


class Distribution(BaseModel):
    mean: float
    median: float
    p10: float
    p90: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Distribution:
        if not len(values):
            return cls(mean=0.0, median=0.0, p10=0.0, p90=0.0)
        array = np.asarray(values, dtype=float)
        p10, median, p90 = np.percentile(array, [10, 50, 90])
        return cls(mean=round(float(array.mean()), 3), median=float(median), p10=float(p10), p90=float(p90))


MUSIC_DOMAINS = ("music", "track")  # the music world's domain; CPCD imports say "track"
TOP_SHARE = 0.1  # play skew: share of all plays held by the most played 10% of tracks

PlaySource = Literal["play_count", "interactions"]


class MusicStats(BaseModel):
    """How a music catalog's tracks group, how skewed its plays are, and its goal playlists' sizes."""

    artists: int
    albums: int
    tracks_per_artist: Distribution = Field(description="A track counts for each artist it credits.")
    tracks_per_album: Distribution = Field(description="Tracks with an album; an album is one artist's.")
    play_source: PlaySource | None = Field(default=None, description=(
        "Where plays were read: items' extra.play_count, else summed interactions (CPCD: likes); None if neither."))
    top_play_share: float | None = Field(default=None, description=(
        f"Share of all plays held by the most played {TOP_SHARE:.0%} of tracks."))
    play_gini: float | None = Field(default=None, description="Gini coefficient of plays over all tracks.")
    goal_playlists: int = 0
    goal_playlist_size: Distribution | None = Field(default=None, description=(
        "Tracks per goal playlist, as the playlist protocol loads them (world themes or conversations)."))


class CatalogStats(BaseModel):
    items: int
    reviews: int
    users: int
    reviews_per_item: Distribution
    reviews_per_user: Distribution
    sentences_per_review: Distribution
    words_per_review: Distribution
    aspects_per_review: Distribution | None = Field(default=None, description="Mined aspects named per review.")
    attributes_per_item: Distribution
    unique_attribute_combinations: float = Field(description="Share of items no other item shares all attributes with.")
    music: MusicStats | None = Field(default=None, description="Only for music catalogs (see `MUSIC_DOMAINS`).")


def play_counts_and_source(catalog: Catalog) -> tuple[np.ndarray, PlaySource | None]:
    """Plays per track (catalog order) and where they were read: the items' `play_count`
    (the music world shows it), else summed interactions (a CPCD import has only likes);
    zeros and None without either."""
    counts = np.array([float(item.extra.get("play_count") or 0) for item in catalog.items])
    if counts.any():
        return counts, "play_count"
    matrix = catalog.interactions() if catalog.has_interactions else None
    if matrix is None:
        return counts, None
    sums = np.asarray(matrix.matrix.sum(axis=0)).ravel()
    counts = np.array([sums[matrix.item_index[i]] if i in matrix.item_index else 0.0 for i in catalog.item_ids])
    return counts, "interactions"


def play_counts(catalog: Catalog) -> np.ndarray:
    """Plays per track: the catalog's `play_count`, else summed interactions (zeros without either)."""
    return play_counts_and_source(catalog)[0]


def top_share(counts: np.ndarray, share: float = TOP_SHARE) -> float:
    """Share of the total held by the largest `share` of values (at least one value)."""
    total = float(counts.sum())
    if not len(counts) or total <= 0:
        return 0.0
    top = max(1, math.ceil(share * len(counts)))
    return float(np.sort(counts)[::-1][:top].sum()) / total


def gini(counts: np.ndarray) -> float:
    """Gini coefficient: 0 when every value is equal, towards 1 when one holds everything."""
    total = float(counts.sum())
    if not len(counts) or total <= 0:
        return 0.0
    ordered = np.sort(np.asarray(counts, dtype=float))
    n = len(ordered)
    ranks = np.arange(1, n + 1)
    return float((2.0 * (ranks * ordered).sum()) / (n * total) - (n + 1.0) / n)


def format_statistics(stats: CatalogStats) -> list[str]:
    """Lines for `crsim data info --stats` and the fidelity report."""
    lines = [f"items {stats.items:,}, reviews {stats.reviews:,}, users {stats.users:,}"]
    for name in ("reviews_per_item", "reviews_per_user", "sentences_per_review", "words_per_review",
                 "aspects_per_review", "attributes_per_item"):
        dist = getattr(stats, name)
        if dist is not None:
            lines.append(_distribution_line(name, dist))
    lines.append(f"  unique attribute combinations: {stats.unique_attribute_combinations:.1%} of items")
    if stats.music is not None:
        lines += _format_music(stats.music)
    return lines


def _format_music(music: MusicStats) -> list[str]:
    lines = [f"music: artists {music.artists:,}, albums {music.albums:,}, goal playlists {music.goal_playlists:,}"]
    for name in ("tracks_per_artist", "tracks_per_album", "goal_playlist_size"):
        dist = getattr(music, name)
        if dist is not None:
            lines.append(_distribution_line(name, dist))
    if music.play_source is None:
        lines.append("  plays: none (no play_count and no interactions)")
    else:
        lines.append(f"  plays (from {music.play_source}): top {TOP_SHARE:.0%} of tracks hold "
                     f"{music.top_play_share:.1%}, Gini {music.play_gini:.3f}")
    return lines


def _distribution_line(name: str, dist: Distribution) -> str:
    return (f"  {name.replace('_', ' '):<22} mean {dist.mean:>7.2f}   median {dist.median:>6.1f}"
            f"   p10 {dist.p10:>6.1f}   p90 {dist.p90:>6.1f}")


# `environments.catalog.stats.catalog_statistics` (and `music_statistics`) still resolve, with a warning,
# until 0.3.
__getattr__ = moved_names(__name__, "environments.statistics", globals())
