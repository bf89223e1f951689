"""Correlations of judge grades with people's labels, with CIs that resample conversations;
Kendall's tau of two rankings; Elo from pairwise votes as CRS Arena computed it."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simulators.results.stats import cluster_bootstrap, percentile_interval

MIN_N = 3  # fewer pairs than this: no correlation
ELO_K, ELO_INITIAL = 16, 1000.0


# ------------------------------------------------------------------------------- statistics
def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of each row of x with the same row of y (NaN where either is constant)."""
    dx = x - x.mean(axis=-1, keepdims=True)
    dy = y - y.mean(axis=-1, keepdims=True)
    denominator = np.sqrt((dx * dx).sum(axis=-1) * (dy * dy).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (dx * dy).sum(axis=-1) / denominator
    return np.where(denominator > 1e-12, np.clip(r, -1.0, 1.0), np.nan)


def _ranks(values: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(values, axis=-1)  # average ranks for ties


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    if len(x) < MIN_N:
        return math.nan
    return float(_pearson_rows(np.asarray(x, float), np.asarray(y, float)))


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r of the average ranks (Spearman's rho with ties handled as scipy does)."""
    if len(x) < MIN_N:
        return math.nan
    return float(_pearson_rows(_ranks(np.asarray(x, float)), _ranks(np.asarray(y, float))))


@dataclass(frozen=True, slots=True)
class Correlation:
    n: int
    pearson: float
    pearson_ci: tuple[float, float]
    spearman: float
    spearman_ci: tuple[float, float]


def correlate(x: Sequence[float], y: Sequence[float], clusters: Sequence[Any] | None = None, *,
              resamples: int = 1000, seed: int = 0) -> Correlation:
    """Pearson and Spearman of paired values with percentile bootstrap 95% CIs.

    `clusters` (one key per pair, e.g. the conversation of a turn) are what is resampled: each
    bootstrap sample draws as many clusters as there are, with replacement, and takes all
    their pairs. Without clusters each pair is its own. Resamples whose correlation is
    undefined (constant values) are left out of the percentiles."""
    xs, ys = np.asarray(x, float), np.asarray(y, float)
    n = len(xs)
    nan2 = (math.nan, math.nan)
    if n < MIN_N:
        return Correlation(n, math.nan, nan2, math.nan, nan2)
    point_p, point_s = pearson(xs, ys), spearman(xs, ys)
    keys = list(clusters) if clusters is not None else list(range(n))
    groups: dict[Any, list[int]] = defaultdict(list)
    for i, key in enumerate(keys):
        groups[key].append(i)
    members = [np.asarray(g) for g in groups.values()]
    if all(len(m) == 1 for m in members):  # every pair its own cluster: resamples as the rows of a matrix
        order = np.concatenate(members)

        def both(index: np.ndarray) -> np.ndarray:
            draws = order[index]
            return np.stack([_pearson_rows(xs[draws], ys[draws]),
                             _pearson_rows(_ranks(xs[draws]), _ranks(ys[draws]))], axis=-1)

        values = cluster_bootstrap(both, len(order), n_resamples=resamples, seed=seed, vectorized=True)
    else:
        def both_of(picked: np.ndarray) -> tuple[float, float]:
            index = np.concatenate([members[i] for i in picked])
            return pearson(xs[index], ys[index]), spearman(xs[index], ys[index])

        values = cluster_bootstrap(both_of, len(members), n_resamples=resamples, seed=seed)
    p, s = values.reshape(-1, 2).T
    return Correlation(n, point_p, percentile_interval(p), point_s, percentile_interval(s))


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b (ties in either ranking handled); NaN with fewer than two systems."""
    from scipy.stats import kendalltau

    if len(x) < 2:
        return math.nan
    tau = kendalltau(x, y).statistic
    return float(tau) if tau is not None else math.nan


def elo(votes: Sequence[dict[str, Any]], k: float = ELO_K, initial: float = ELO_INITIAL) -> dict[str, float]:
    """Elo ratings from pairwise votes in the given order (CRS Arena's computation: both sides
    start at `initial`, a tie scores 0.5, each vote moves both ratings by k x surprise)."""
    ratings: dict[str, float] = defaultdict(lambda: initial)
    for vote in votes:
        a, b, winner = vote["crs1"], vote["crs2"], vote["vote"]
        ra, rb = ratings[a], ratings[b]
        expected_a = 1 / (1 + 10 ** ((rb - ra) / 400))
        expected_b = 1 / (1 + 10 ** ((ra - rb) / 400))
        score_a = 1.0 if winner == a else 0.0 if winner == b else 0.5
        ratings[a] = ra + k * (score_a - expected_a)
        ratings[b] = rb + k * (1 - score_a - expected_b)
    return dict(ratings)
