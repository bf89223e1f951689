"""Popularity: rank by how many people reviewed an item, ignoring the dialogue. The floor
every CRS must beat.

A catalog without reviews (an imported dialogue dataset such as ReDial, a music world)
would leave every item tied, which is the random baseline under another name; there the
count is of users with a positive interaction instead (`interactions.jsonl`, or the
training pseudo-users of `crsim eval dialogues`). Both count people, so the ranking
means the same thing in either catalog.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import GraphAgent
from agents.recommenders.retrieval import RetrievalContext, retrieval_recommender
from environments.catalog import Catalog


def review_counts(catalog: Catalog) -> np.ndarray:
    counts = np.zeros(len(catalog.items), dtype=np.float64)
    for item_id, reviews in catalog.reviews_by_item.items():
        counts[catalog.item_index[item_id]] = len(reviews)
    return counts


def interaction_counts(catalog: Catalog) -> np.ndarray:
    """Users with a positive interaction per item (zeros when the catalog has none)."""
    matrix = catalog.interactions()
    if matrix is None:
        return np.zeros(len(catalog.items), dtype=np.float64)
    return np.asarray((matrix.matrix > 0).sum(axis=0), dtype=np.float64).ravel()


def popularity_counts(catalog: Catalog) -> np.ndarray:
    """Reviews per item; in a catalog without reviews, users who interacted with it."""
    return review_counts(catalog) if catalog.reviews else interaction_counts(catalog)


def build(catalog: Catalog, llm: Any | None = None, question_pool: int = 50, review_aspects: int = 30,
          embedding_model: str | None = None, cache_dir: str | None = None) -> GraphAgent[RetrievalContext]:
    """Hydra factory for `recommender=popularity` (its questions are asked like the others')."""
    counts = popularity_counts(catalog)
    return retrieval_recommender("popularity", catalog, lambda _utterances: counts, llm, question_pool,
                                 review_aspects=review_aspects, embedding_model=embedding_model, cache_dir=cache_dir)
