"""Turning a recommender's scores into a ranking, with ties broken by a seeded generator.

Ties are common (popularity counts, zero BM25 scores), and breaking them by item order
would favour whatever the catalog lists first. The environment breaks them at random
with the episode's own generator, so the metric is fair and still reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from environments.base import Recommendation
from environments.models import TargetRank


def scores_from_action(action: Recommendation, candidates: Sequence[str],
                       index: dict[str, int]) -> np.ndarray:
    """A float64 score per candidate; unknown ids in `ranked_ids` are an error."""
    n = len(candidates)
    if action.scores is not None:
        scores = np.asarray(action.scores, dtype=np.float64)
        if scores.shape != (n,):
            raise ValueError(f"recommendation has {scores.shape} scores for {n} candidates")
        return np.where(np.isnan(scores), -np.inf, scores)
    if action.ranked_ids is None:
        raise ValueError("recommendation has neither scores nor ranked_ids")
    scores = np.full(n, -np.inf)
    listed = len(action.ranked_ids)
    for position, item_id in enumerate(action.ranked_ids):
        try:
            scores[index[item_id]] = float(listed - position)
        except KeyError:
            raise ValueError(f"recommendation ranks unknown item '{item_id}'") from None
    return scores


def tie_broken_order(scores: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Candidate positions, best first; equal scores in random (seeded) order."""
    shuffled = rng.permutation(scores.shape[0])
    return shuffled[np.argsort(-scores[shuffled], kind="stable")]


def rank_targets(scores: np.ndarray, order: np.ndarray, targets: Sequence[tuple[str, int]]) -> list[TargetRank]:
    """Each (item id, candidate position) target's rank in `order`, in the order given."""
    position = np.empty(order.shape[0], dtype=np.int64)
    position[order] = np.arange(1, order.shape[0] + 1)
    ranks = []
    for item_id, index in targets:
        value = scores[index]
        ranks.append(TargetRank(item_id=item_id, rank=int(position[index]),
                                n_better=int(np.count_nonzero(scores > value)),
                                n_tied=int(np.count_nonzero(scores == value))))
    return ranks
