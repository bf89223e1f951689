"""Exact-match oracle and seeker agreement: what a world's truth says about a dialogue.

The oracle reads the seeker's stated claims (logged privately in each seeker turn's
`claims`: [aspect, value, +1/-1]) and counts, for every item, how many its *true*
attributes satisfy, minus the unwanted values it has. It sees what no recommender can
(the truth, the structured claims), so it is the ceiling of what the dialogue says; a
recommender near it means the world is too easy, one far below it that it is hard.
Ties are broken by expectation, not by a draw: with b items above the target and t
tied with it, P(rank <= k) = clip((k - b) / t, 0, 1).

Agreement is the share of a seeker's claims that are true of its target: a wanted value
the target has, an unwanted one it lacks, a signature it has.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from environments.worlds.truth import ItemTruth

SIGNATURE = "signature"
Claim = Sequence[object]  # [aspect, value, polarity]


def claim_holds(item: ItemTruth, claim: Claim) -> bool:
    """Whether `item` really is as the claim says."""
    has = item_has(item, str(claim[0]), str(claim[1]))
    return has if _wanted(claim) else not has


def item_has(item: ItemTruth, aspect: str, value: str) -> bool:
    if aspect == SIGNATURE:
        return value in item.signatures
    val = item.attributes.get(aspect)
    return value == val if isinstance(val, str) else value in (val or [])


class ExactMatchOracle:
    """Scores every item of a world by the claims stated so far."""

    def __init__(self, items: Mapping[str, ItemTruth], candidates: Sequence[str]):
        self.candidates = list(candidates)
        self.index = {item_id: i for i, item_id in enumerate(self.candidates)}
        self._has: dict[tuple[str, str], np.ndarray] = {}
        self._items = [items[item_id] for item_id in self.candidates]

    def scores(self, claims: Iterable[Claim]) -> np.ndarray:
        scores = np.zeros(len(self.candidates))
        for claim in claims:
            has = self._column(str(claim[0]), str(claim[1]))
            scores += has if _wanted(claim) else -has
        return scores

    def hit_probability(self, claims: Iterable[Claim], target: str, k: int) -> float:
        """P(target in the top k) with ties broken uniformly at random."""
        scores = self.scores(claims)
        mine = scores[self.index[target]]
        above = int((scores > mine).sum())
        tied = int((scores == mine).sum())
        return float(min(1.0, max(0.0, (k - above) / tied)))

    def _column(self, aspect: str, value: str) -> np.ndarray:
        key = (aspect, value)
        if key not in self._has:
            self._has[key] = np.array([item_has(item, aspect, value) for item in self._items], dtype=float)
        return self._has[key]


def _wanted(claim: Claim) -> bool:
    return float(str(claim[2])) > 0
