"""Random: every item scores the same, so the environment's seeded tie-break decides.

The floor below popularity. It asks questions like the others, so the dialogue (and the
seeker's claims, which the fidelity report scores with an exact-match oracle) stays
comparable; only the ranking carries no information.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import GraphAgent
from agents.recommenders.retrieval import RetrievalContext, retrieval_recommender
from environments.catalog import Catalog


def build(catalog: Catalog, llm: Any | None = None, question_pool: int = 50, review_aspects: int = 30,
          embedding_model: str | None = None, cache_dir: str | None = None) -> GraphAgent[RetrievalContext]:
    """Hydra factory for `recommender=random`."""
    flat = np.zeros(len(catalog.items), dtype=np.float64)
    return retrieval_recommender("random", catalog, lambda _utterances: flat, llm, question_pool,
                                 review_aspects=review_aspects, embedding_model=embedding_model, cache_dir=cache_dir)
