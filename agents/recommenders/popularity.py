"""Popularity: rank by number of reviews, ignoring the dialogue. The floor every CRS must beat."""

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


def build(catalog: Catalog, llm: Any | None = None, question_pool: int = 50, review_aspects: int = 30,
          embedding_model: str | None = None, cache_dir: str | None = None) -> GraphAgent[RetrievalContext]:
    """Hydra factory for `recommender=popularity` (its questions are asked like the others')."""
    counts = review_counts(catalog)
    return retrieval_recommender("popularity", catalog, lambda _utterances: counts, llm, question_pool,
                                 review_aspects=review_aspects, embedding_model=embedding_model, cache_dir=cache_dir)
