"""Reciprocal-rank fusion: combine rankings from retrievers whose scores do not compare.

BM25 scores are unbounded sums of term weights, cosine similarities live in [-1, 1]; a
weighted sum of the two needs per-dataset tuning. RRF (Cormack, Clarke & Buettcher,
SIGIR 2009) uses ranks only: an item gets 1 / (k + rank) from every list it is in, and
k = 60 damps the influence of the very top positions so that one list cannot dominate.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

RRF_K = 60.0


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int] | np.ndarray], n_items: int,
                           k: float = RRF_K) -> np.ndarray:
    """Fused score per item (float64, length `n_items`) from rankings of item positions, best first.

    Items absent from every ranking score 0; ranks are 1-based within each ranking.
    """
    scores = np.zeros(n_items, dtype=np.float64)
    for ranking in rankings:
        positions = np.asarray(ranking, dtype=np.int64)
        if positions.size != np.unique(positions).size:
            raise ValueError("a ranking lists an item twice")
        scores[positions] += 1.0 / (k + np.arange(1, positions.size + 1, dtype=np.float64))
    return scores
