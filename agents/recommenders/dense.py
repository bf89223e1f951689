"""Dense retrieval over the dialogue so far: sentence embeddings of the seeker's words vs items."""

from __future__ import annotations

from typing import Any

from agents.base import GraphAgent
from agents.recommenders.retrieval import RetrievalContext, retrieval_recommender
from environments.catalog import Catalog


def build(catalog: Catalog, llm: Any | None = None, question_pool: int = 50, embedding_model: str | None = None,
          cache_dir: str | None = None) -> GraphAgent[RetrievalContext]:
    """Hydra factory for `recommender=dense`; item embeddings are computed once and cached."""
    from environments.search import DenseIndex, get_encoder

    index = DenseIndex.build(catalog, get_encoder(embedding_model), cache_dir=cache_dir)
    return retrieval_recommender("dense", catalog, index.scores, llm, question_pool)
