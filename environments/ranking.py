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
    return _stable_order(scores, rng.permutation(scores.shape[0]))


def _stable_order(scores: np.ndarray, shuffled: np.ndarray) -> np.ndarray:
    """`shuffled` sorted by descending score, keeping the shuffle's order among equals."""
    return shuffled[np.argsort(-scores[shuffled], kind="stable")]


class TieBrokenRanking:
    """`tie_broken_order` without sorting every candidate: a turn needs the top few and the
    targets' ranks, not the whole order (a full sort of a few thousand scores per turn was a
    visible share of an offline episode). Same seeded shuffle, same positions."""

    def __init__(self, scores: np.ndarray, rng: np.random.Generator):
        self.scores = scores
        self.shuffled = rng.permutation(scores.shape[0])  # the same draw as tie_broken_order
        self.slot = np.empty_like(self.shuffled)
        self.slot[self.shuffled] = np.arange(self.shuffled.shape[0])  # each candidate's place in the shuffle

    def top(self, k: int) -> np.ndarray:
        """The first `k` positions of `tie_broken_order(scores, rng)`."""
        n = self.scores.shape[0]
        if k >= n:
            return _stable_order(self.scores, self.shuffled)
        keyed = -self.scores[self.shuffled]
        kth = keyed[np.argpartition(keyed, k - 1)[k - 1]]
        # everything strictly better than the k-th value, then its ties in shuffle order
        candidates = np.flatnonzero(keyed <= kth)
        ordered = candidates[np.lexsort((candidates, keyed[candidates]))]
        return self.shuffled[ordered[:k]]

    def tied_before(self, index: int) -> int:
        """How many candidates with `index`'s score the shuffle puts before it."""
        return int(np.count_nonzero((self.scores == self.scores[index]) & (self.slot < self.slot[index])))


def rank_targets(scores: np.ndarray, order: np.ndarray | TieBrokenRanking,
                 targets: Sequence[tuple[str, int]]) -> list[TargetRank]:
    """Each (item id, candidate position) target's rank in `order`, in the order given."""
    if not isinstance(order, TieBrokenRanking):
        position = np.empty(order.shape[0], dtype=np.int64)
        position[order] = np.arange(1, order.shape[0] + 1)
    ranks = []
    for item_id, index in targets:
        value = scores[index]
        n_better = int(np.count_nonzero(scores > value))
        rank = n_better + order.tied_before(index) + 1 if isinstance(order, TieBrokenRanking) else int(position[index])
        ranks.append(TargetRank(item_id=item_id, rank=rank, n_better=n_better,
                                n_tied=int(np.count_nonzero(scores == value))))
    return ranks
