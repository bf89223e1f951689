"""Ranking metrics on the hidden target's rank, per episode and per turn.

Every metric here is a function of one number: the 1-based rank the environment gave the
target item in a turn's ranking (ties already broken with a seeded random draw, so a
recommender that scores everything equal gets a fair, not a lucky, rank). Keeping the
metrics this narrow means a logged episode can be re-scored at any time without the
recommender, and new cut-offs (`hits@3`, `hits@50`) need no new code: the names are parsed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from environments.models import Episode, TerminationReason

DEFAULT_KS: tuple[int, ...] = (1, 5, 10)
"""Cut-offs for `hits@K` when none are given."""

_HITS_RE = re.compile(r"^hits@([1-9][0-9]*)$")

HIGHER_IS_BETTER: dict[str, bool] = {"mrr": True, "avg_position": False}
"""Direction of the non-hits metrics; every `hits@K` is higher-is-better."""


def metric_names(ks: Iterable[int] = DEFAULT_KS) -> tuple[str, ...]:
    """Ordered metric names for the given cut-offs: `hits@K...`, `mrr`, `avg_position`.

    The order is the column order of every table and CSV, so it is fixed here once.
    """
    ks = tuple(ks)
    for k in ks:
        if not isinstance(k, int) or k < 1:
            raise ValueError(f"hits@K cut-offs must be positive integers, got {k!r}")
    return (*(f"hits@{k}" for k in ks), "mrr", "avg_position")


METRICS: tuple[str, ...] = metric_names()


def hits_cutoff(name: str) -> int | None:
    """K for a metric named `hits@K`, None for any other name."""
    match = _HITS_RE.match(name)
    return int(match.group(1)) if match else None


def higher_is_better(name: str) -> bool:
    """Whether a larger value of metric `name` is better (used to highlight winners)."""
    if hits_cutoff(name) is not None:
        return True
    if name not in HIGHER_IS_BETTER:
        raise ValueError(f"unknown metric {name!r}; expected hits@K, mrr or avg_position")
    return HIGHER_IS_BETTER[name]


def metric_value(name: str, rank: int) -> float:
    """Value of metric `name` for a target at 1-based `rank`."""
    if rank < 1:
        raise ValueError(f"target ranks are 1-based, got {rank}")
    k = hits_cutoff(name)
    if k is not None:
        return 1.0 if rank <= k else 0.0
    if name == "mrr":
        return 1.0 / rank
    if name == "avg_position":
        return float(rank)
    raise ValueError(f"unknown metric {name!r}; expected hits@K, mrr or avg_position")


def rank_metrics(rank: int, ks: Iterable[int] = DEFAULT_KS) -> dict[str, float]:
    """All metrics (in `metric_names(ks)` order) for one target rank."""
    return {name: metric_value(name, rank) for name in metric_names(ks)}


def is_scorable(episode: Episode) -> bool:
    """Whether an episode contributes to metrics at all.

    Crashed episodes are left out rather than scored as failures: a crash says something
    about the code or the language model backend, not about the recommender, and mixing
    the two would make a flaky endpoint look like a bad ranking. Callers count them apart.
    """
    return (
        episode.termination is not TerminationReason.error
        and episode.error is None
        and bool(episode.rankings)
    )


def episode_metrics(
    episode: Episode, max_turns: int, *, ks: Iterable[int] = DEFAULT_KS
) -> dict[int, dict[str, float]]:
    """Metrics of one episode at each turn 1..`max_turns`; {} if it is not scorable.

    Carry-forward: an episode that stopped before `max_turns` (the seeker accepted an item,
    quit, or ran out of budget) keeps its last ranking for the remaining turns. For an
    accepted episode this is the point: the seeker stopped because the item was found, so
    the state it left is the one that counts; dropping it would shrink later turns to the
    hard cases and make metrics fall with more turns for no real reason. The same holds for
    gaps between recorded turns. Turns before the first recorded ranking have no state to
    report and are absent from the result (the caller sees a smaller n there).
    If two records share a turn, the later one wins.
    """
    if max_turns < 1:
        raise ValueError(f"max_turns must be at least 1, got {max_turns}")
    if not is_scorable(episode):
        return {}
    names = metric_names(ks)
    rank_at: dict[int, int] = {}
    for record in episode.rankings:
        if 1 <= record.turn <= max_turns:
            rank_at[record.turn] = record.target_rank
    if not rank_at:
        return {}
    result: dict[int, dict[str, float]] = {}
    current: int | None = None
    for turn in range(1, max_turns + 1):
        current = rank_at.get(turn, current)
        if current is not None:
            result[turn] = {name: metric_value(name, current) for name in names}
    return result
