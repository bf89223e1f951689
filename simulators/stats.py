"""Bootstrap confidence intervals over episodes.

Simulation runs are small (tens to a few hundred episodes) and the per-episode values are
far from normal (hits@K is 0/1, ranks are heavy-tailed), so a normal-approximation
interval would be misleading. The percentile bootstrap makes no such assumption and is
cheap when vectorised: one matrix of resample indices, one mean along an axis.
Everything is seeded so that the same run gives the same table, byte for byte.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

_MAX_CELLS = 4_000_000
"""Index-matrix cells per chunk: bounds memory (~32 MB) for very large runs."""


def _check(n_resamples: int, confidence: float) -> None:
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")


def bootstrap_means(values: ArrayLike, *, n_resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """Means of `n_resamples` resamples (with replacement) of `values`.

    Resample indices come from `rng.integers` as an (n_resamples, n) matrix, chunked by
    rows for large n; the chunking depends only on n, so results stay deterministic.
    """
    data = np.asarray(values, dtype=float).ravel()
    n = data.size
    if n == 0:
        raise ValueError("cannot bootstrap an empty sample")
    rng = np.random.default_rng(seed)
    rows = max(1, _MAX_CELLS // n)
    out = np.empty(n_resamples, dtype=float)
    for start in range(0, n_resamples, rows):
        stop = min(start + rows, n_resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = data[idx].mean(axis=1)
    return out


def bootstrap_ci(
    values: ArrayLike,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float, float]:
    """(mean, low, high): sample mean and percentile-bootstrap interval.

    The point estimate is the plain sample mean, not the bootstrap mean, so it matches
    what anyone recomputing the metric by hand gets. One value gives a zero-width interval
    (there is no spread to resample); no values give NaNs rather than an error, so a turn
    nobody reached still has a row in the results table.
    """
    _check(n_resamples, confidence)
    data = np.asarray(values, dtype=float).ravel()
    if data.size == 0:
        nan = float("nan")
        return nan, nan, nan
    mean = float(data.mean())
    if data.size == 1:
        return mean, mean, mean
    means = bootstrap_means(data, n_resamples=n_resamples, seed=seed)
    alpha = 1.0 - confidence
    low, high = np.quantile(means, [alpha / 2.0, 1.0 - alpha / 2.0])
    # Guard against floating-point drift putting the mean a hair outside [low, high]
    # when all resampled means are equal (e.g. every value identical).
    return mean, float(min(low, mean)), float(max(high, mean))


def paired_bootstrap_diff(
    a: ArrayLike,
    b: ArrayLike,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float, float]:
    """(mean of a - b, low, high) for paired samples, e.g. two configs on the same seeds.

    Pairing matters: the same episode index means the same target and seeker under both
    configs, so resampling episodes jointly (the bootstrap of the per-episode differences)
    removes the between-episode variance that would swamp an unpaired comparison.
    An interval excluding 0 means the difference is unlikely to be resampling noise.
    """
    x = np.asarray(a, dtype=float).ravel()
    y = np.asarray(b, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"paired samples must have equal length, got {x.size} and {y.size}")
    return bootstrap_ci(x - y, n_resamples=n_resamples, confidence=confidence, seed=seed)
