"""Ranking metrics over the targets' ranks in a turn's `TurnEvaluation.ranks`.

Ranks are 1-based and come with ties already broken by a seeded random draw (the
environment's job), so a recommender that scores everything equal gets a fair, not a
lucky, rank. With one target (single-target recommendation) every metric here reduces to
the textbook one; with many (preference elicitation, collaborative recommendation):
`hits@K` counts a hit when any target is in the top K, `mrr` uses the best-ranked
target, `avg_position` averages the targets' ranks, `recall@K` is the share of
targets in the top K — PEPPER's and CRAG's Recall@(t, K) when read per turn — and
`ndcg@K` is binary-gain NDCG: each target ranked r ≤ K adds 1/log2(r + 1), divided by
the best possible, min(K, number of targets) targets at the top.
"""

from __future__ import annotations

import math

from environments.models import Episode, TurnEvaluation
from simulators.metrics.base import Metric


def _check_k(k: int) -> int:
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"cut-offs must be positive integers, got {k!r}")
    return k


class HitsAt(Metric):
    """1 when a target is among the top `k`, else 0."""

    def __init__(self, k: int):
        self.k = _check_k(k)
        self.name = f"hits@{self.k}"

    def value(self, record: TurnEvaluation, episode: Episode) -> float | None:
        best = record.best_rank
        return None if best is None else float(best <= self.k)


class MRR(Metric):
    """Reciprocal rank of the best-ranked target."""

    name = "mrr"

    def value(self, record: TurnEvaluation, episode: Episode) -> float | None:
        best = record.best_rank
        return None if best is None else 1.0 / best


class AvgPosition(Metric):
    """Mean rank of the targets (the target's rank when there is one): lower is better."""

    name = "avg_position"
    higher_is_better = False

    def value(self, record: TurnEvaluation, episode: Episode) -> float | None:
        if not record.ranks:
            return None
        return sum(r.rank for r in record.ranks) / len(record.ranks)


class RecallAt(Metric):
    """Share of the episode's targets ranked in the top `k` (unranked targets are misses)."""

    def __init__(self, k: int):
        self.k = _check_k(k)
        self.name = f"recall@{self.k}"

    def value(self, record: TurnEvaluation, episode: Episode) -> float | None:
        if not record.ranks:
            return None
        total = len(episode.targets) or len(record.ranks)
        return sum(1 for r in record.ranks if r.rank <= self.k) / total


class NDCGAt(Metric):
    """Normalised discounted cumulative gain at `k` with binary gains (unranked targets gain 0)."""

    def __init__(self, k: int):
        self.k = _check_k(k)
        self.name = f"ndcg@{self.k}"

    def value(self, record: TurnEvaluation, episode: Episode) -> float | None:
        if not record.ranks:
            return None
        total = len(episode.targets) or len(record.ranks)
        gain = sum(1.0 / math.log2(r.rank + 1) for r in record.ranks if r.rank <= self.k)
        ideal = sum(1.0 / math.log2(position + 1) for position in range(1, min(total, self.k) + 1))
        return gain / ideal
