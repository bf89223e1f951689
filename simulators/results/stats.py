"""Bootstrap confidence intervals: every interval crsim reports comes from here.

`bootstrap_ci` (and `paired_bootstrap_diff`) resample independent values for a mean: the
per-episode figures of the results tables. `cluster_bootstrap` resamples clusters for any
statistic (a ratio of per-dialogue sums, Cohen's kappa, Kendall's tau, ROC AUC, a
correlation), because turns of one dialogue or pairs of one conversation are not
independent; `percentile_interval` reads its interval off those resamples.

Simulation runs are small (tens to a few hundred episodes) and the per-episode values are
far from normal (hits@K is 0/1, ranks are heavy-tailed), so a normal-approximation
interval would be misleading. The percentile bootstrap makes no such assumption.
It is `scipy.stats.bootstrap` (percentile method, vectorised, in batches that bound the
index matrix to ~32 MB), seeded so that the same run gives the same table, byte for byte.
Measured on this machine: 1.2-1.3x the time of the hand-written numpy version crsim used
before (8.8 vs 6.8 ms for 300 episodes and 1,000 resamples), and it draws the very same
resamples from the same seed, so every table written by earlier releases re-scores to
identical intervals. BCa would be a better interval for skewed data but costs 1.5-10x
more and would change every published table; percentile it stays.

`cluster_bootstrap` is not scipy's: a resample's statistic may be undefined (left out of
the interval, where scipy's would turn NaN), some figures draw without replacement, and
its intervals have always been read at exactly the 2.5th and 97.5th percentiles (scipy
reads 2.500000000000002 for 95%, which moves the last digits).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

_MAX_CELLS = 4_000_000
"""Index-matrix cells per batch (also of `cluster_bootstrap`): bounds memory (~32 MB) for very large runs."""


def _check(n_resamples: int, confidence: float) -> None:
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples}")
    _check_confidence(confidence)


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")


def bootstrap_ci(
    values: ArrayLike,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float, float]:
    """(mean, low, high): sample mean and percentile-bootstrap interval.

    The point estimate is the plain sample mean, not the bootstrap mean, so it matches
    what anyone recomputing the metric by hand gets. One value, or values that are all
    equal, give a zero-width interval (there is no spread to resample); no values give
    NaNs rather than an error, so a turn nobody reached still has a row in the table.
    """
    from scipy.stats import bootstrap

    _check(n_resamples, confidence)
    data = np.asarray(values, dtype=float).ravel()
    if data.size == 0:
        nan = float("nan")
        return nan, nan, nan
    mean = float(data.mean())
    if data.size == 1 or np.all(data == data[0]):
        return mean, mean, mean
    result = bootstrap((data,), np.mean, n_resamples=n_resamples, confidence_level=confidence,
                       method="percentile", vectorized=True, batch=max(1, _MAX_CELLS // data.size),
                       rng=np.random.default_rng(seed))
    low, high = result.confidence_interval
    # Guard against floating-point drift putting the mean a hair outside [low, high].
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


def cluster_bootstrap(
    statistic: Callable[[np.ndarray], ArrayLike],
    n_clusters: int,
    *,
    n_resamples: int = 1000,
    seed: int | np.random.Generator = 0,
    vectorized: bool = False,
    sample_size: int | None = None,
    replace: bool = True,
) -> np.ndarray:
    """`statistic` on each of `n_resamples` resamples of `n_clusters` clusters, in draw order.

    Use it where the units that are independent are not the values: turns of one dialogue,
    pairs of one conversation, the conversations behind a ranking of systems. A resample is
    an index array of cluster positions (0 to n_clusters - 1), `sample_size` of them
    (default: n_clusters), drawn with replacement (the bootstrap) or, with `replace=False`,
    without (equal-size subsamples, for a figure such as distinct-n that depends on sample
    size). `statistic` maps one index array to a value, or to k values (one column each);
    with `vectorized` it is given many index arrays at once, as the rows of a matrix (at
    most `_MAX_CELLS` cells), and returns one value or row per resample. NaN means
    undefined on that resample (a constant sample, one class only).

    Resamples are `rng.integers(0, n_clusters, size)` in turn (`rng.choice(n_clusters, size,
    replace=False)` without replacement); drawing many in one call gives the very same
    ones, so vectorizing changes no figure. `seed` is a seed or a generator already in use
    (its draws go on from where it stands). No clusters or no resamples: an empty array.
    """
    if n_resamples < 0:
        raise ValueError(f"n_resamples must not be negative, got {n_resamples}")
    if n_clusters == 0 or n_resamples == 0:
        return np.empty(0)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    size = n_clusters if sample_size is None else sample_size
    per_draw = max(1, _MAX_CELLS // max(size, 1)) if vectorized and replace else 1
    drawn: list[np.ndarray] = []
    for start in range(0, n_resamples, per_draw):
        if replace:
            index = rng.integers(0, n_clusters, size=(min(per_draw, n_resamples - start), size))
        else:
            index = rng.choice(n_clusters, size, replace=False)[np.newaxis, :]
        values = statistic(index) if vectorized else [statistic(row) for row in index]
        drawn.append(np.asarray(values, dtype=float))
    return np.concatenate(drawn)


def percentile_interval(values: ArrayLike, *, confidence: float = 0.95, point: float | None = None,
                        undefined: Literal["omit", "propagate"] = "omit") -> tuple[float, float]:
    """(low, high): the percentile interval of resampled values.

    NaNs (a statistic undefined on that resample) are left out, or with
    `undefined="propagate"` make the whole interval NaN, for a figure that is itself NaN
    then (distinct-n of a sample without n-grams). `point`, the estimate on all the data,
    widens the interval to hold it (with few clusters a percentile interval can miss the
    estimate it is about). No defined value gives NaNs. The tails are rounded so that 0.95
    means exactly the 2.5th and 97.5th percentiles, the ones these intervals were always
    read at.
    """
    _check_confidence(confidence)
    data = np.asarray(values, dtype=float).ravel()
    missing = np.isnan(data)
    if missing.all() or (undefined == "propagate" and missing.any()):  # all() also holds for no values
        nan = float("nan")
        return nan, nan
    data = data[~missing]
    tail = round(50 * (1 - confidence), 12)
    low, high = np.percentile(data, [tail, 100 - tail])
    if point is not None:
        low, high = min(low, point), max(high, point)
    return float(low), float(high)
