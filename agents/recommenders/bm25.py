"""BM25 over the dialogue so far: everything the seeker said, as one query, against item text and reviews."""

from __future__ import annotations

from typing import Any

from agents.base import GraphAgent
from agents.recommenders.retrieval import RetrievalContext, retrieval_recommender
from environments.catalog import Catalog


def build(catalog: Catalog, llm: Any | None = None, question_pool: int = 50, cache_dir: str | None = None,
          review_aspects: int = 30, embedding_model: str | None = None) -> GraphAgent[RetrievalContext]:
    """Hydra factory for `recommender=bm25`; the index is built once per catalog and cached."""
    from environments.search import BM25Index

    index = BM25Index.build(catalog, cache_dir=cache_dir)
    return retrieval_recommender("bm25", catalog, lambda utterances: index.scores(" ".join(utterances)),
                                 llm, question_pool, review_aspects=review_aspects, embedding_model=embedding_model,
                                 cache_dir=cache_dir)
