"""TieBrokenRanking gives what sorting every candidate gives: the same top positions and
target ranks from the same seeded shuffle, with ties (popularity counts, zero BM25
scores, -inf for unranked items) broken identically."""

import numpy as np
import pytest

from environments.ranking import TieBrokenRanking, rank_targets, tie_broken_order


@pytest.mark.parametrize("seed", range(20))
def test_top_and_ranks_equal_a_full_sort(seed):
    data = np.random.default_rng(seed)
    n = int(data.integers(1, 400))
    scores = data.integers(0, 6, n).astype(float)  # few distinct values: ties everywhere
    scores[data.random(n) < 0.2] = -np.inf
    scores[data.random(n) < 0.1] += data.random()
    order = tie_broken_order(scores, np.random.default_rng(seed + 100))
    ranking = TieBrokenRanking(scores, np.random.default_rng(seed + 100))
    for k in (1, 5, 10, n - 1, n, n + 3):
        if k >= 1:
            assert np.array_equal(ranking.top(k), order[:k]), k
    targets = [(f"t{i}", int(i)) for i in data.choice(n, size=min(n, 5), replace=False)]
    assert rank_targets(scores, ranking, targets) == rank_targets(scores, order, targets)


def test_a_ranking_draws_what_a_full_sort_draws():
    """The shuffle consumes the episode generator as before, so later draws are unchanged."""
    scores = np.zeros(50)
    first, second = np.random.default_rng(3), np.random.default_rng(3)
    tie_broken_order(scores, first)
    TieBrokenRanking(scores, second)
    assert first.random() == second.random()
