"""Bootstrap intervals: determinism, coverage of the mean, width vs n, edge cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulators.results.stats import bootstrap_ci, paired_bootstrap_diff


def sample(n: int, seed: int = 1) -> np.ndarray:
    return (np.random.default_rng(seed).random(n) < 0.3).astype(float)


def test_deterministic_for_a_seed() -> None:
    values = sample(50)
    assert bootstrap_ci(values, seed=7) == bootstrap_ci(values, seed=7)
    assert bootstrap_ci(values, seed=7) != bootstrap_ci(values, seed=8)


def test_interval_contains_mean() -> None:
    values = sample(40)
    mean, low, high = bootstrap_ci(values)
    assert mean == pytest.approx(values.mean())
    assert low <= mean <= high
    assert low < high


def test_interval_narrows_with_n() -> None:
    _, low_small, high_small = bootstrap_ci(sample(20))
    _, low_big, high_big = bootstrap_ci(sample(2000))
    assert high_big - low_big < (high_small - low_small) / 3


def test_confidence_level_widens_interval() -> None:
    values = sample(100)
    _, l90, h90 = bootstrap_ci(values, confidence=0.90)
    _, l99, h99 = bootstrap_ci(values, confidence=0.99)
    assert h99 - l99 > h90 - l90


def test_edge_cases() -> None:
    assert bootstrap_ci(np.array([3.5])) == (3.5, 3.5, 3.5)
    assert all(math.isnan(x) for x in bootstrap_ci(np.array([])))
    assert bootstrap_ci(np.full(10, 0.25)) == (0.25, 0.25, 0.25)
    with pytest.raises(ValueError):
        bootstrap_ci(sample(5), confidence=1.5)
    with pytest.raises(ValueError):
        bootstrap_ci(sample(5), n_resamples=0)


def test_large_samples_are_resampled_in_batches() -> None:
    # 50,000 values x 1,000 resamples would be a 400 MB index matrix in one piece.
    values = sample(50_000)
    mean, low, high = bootstrap_ci(values, seed=3)
    assert low < mean < high and high - low < 0.02


def test_same_resamples_as_a_plain_numpy_percentile_bootstrap() -> None:
    # Tables written before the switch to scipy.stats.bootstrap must re-score identically.
    values = sample(300, seed=4)
    rng = np.random.default_rng(11)
    means = values[rng.integers(0, values.size, size=(1000, values.size))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    _, got_low, got_high = bootstrap_ci(values, seed=11)
    assert got_low == pytest.approx(low, abs=1e-12) and got_high == pytest.approx(high, abs=1e-12)


def test_paired_diff() -> None:
    rng = np.random.default_rng(0)
    base = rng.random(200)
    better = base + 0.1 + rng.normal(0, 0.01, 200)
    diff, low, high = paired_bootstrap_diff(better, base)
    assert diff == pytest.approx(0.1, abs=0.01)
    assert 0 < low <= diff <= high
    same, low0, high0 = paired_bootstrap_diff(base, base)
    assert (same, low0, high0) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="equal length"):
        paired_bootstrap_diff(base, base[:10])
