"""The target pool: which items can be targets, and which review each target's seeker owns.

The target-biased seeker is given one review written by "its" user; that review must not
reach the recommender, or the recommender could find the target by matching the seeker's
own words. The pool is drawn once per (catalog, seed) and its reviews are withheld from
the recommender's catalog view, so indexes are built once per run, not once per episode.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from environments.catalog import Catalog
from environments.errors import CrsimError


@dataclass(frozen=True, slots=True)
class TargetSlot:
    item_id: str
    review_id: str  # the seeker's own review, withheld from the recommender


def draw_target_pool(catalog: Catalog, size: int, seed: int, min_rating: float = 4.0) -> list[TargetSlot]:
    """Pick up to `size` items that have a positive review and at least one other review."""
    rng = np.random.default_rng(seed)
    eligible: list[tuple[str, list[str]]] = []
    for item in catalog.items:
        reviews = catalog.reviews_by_item.get(item.id, [])
        liked = [r.id for r in reviews if r.rating >= min_rating]
        if liked and len(reviews) >= 2:
            eligible.append((item.id, liked))
    if not eligible:
        raise CrsimError(
            f"catalog '{catalog.manifest.name}' has no item with a review rated >= {min_rating} "
            "and another review: no target can be drawn"
        )
    chosen = rng.permutation(len(eligible))[: min(size, len(eligible))]
    pool = []
    for position in sorted(chosen):
        item_id, liked = eligible[position]
        pool.append(TargetSlot(item_id, liked[int(rng.integers(len(liked)))]))
    return pool
