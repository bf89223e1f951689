"""Dense retrieval over the dialogue so far, scored late (multi-vector).

Each seeker utterance is embedded on its own and matched against each item's fields
(attribute-value phrases, review sentences and the description vector); an item's score is the sum over
utterances of its best field. See `environments/search/multivector.py` for why a single
vector per dialogue and per item was not enough.
"""

from __future__ import annotations

from typing import Any

from agents.base import GraphAgent
from agents.recommenders.retrieval import RetrievalContext, retrieval_recommender
from environments.catalog import Catalog


def build(catalog: Catalog, llm: Any | None = None, question_pool: int = 50, embedding_model: str | None = None,
          cache_dir: str | None = None, review_aspects: int = 30,
          review_sentences: int = 200) -> GraphAgent[RetrievalContext]:
    """Hydra factory for `recommender=dense`; item embeddings are computed once and cached."""
    from environments.search import get_encoder
    from environments.search.multivector import MultiVectorIndex

    index = MultiVectorIndex.build(catalog, get_encoder(embedding_model), cache_dir=cache_dir,
                                   review_sentences=review_sentences)
    return retrieval_recommender("dense", catalog, index.scores, llm, question_pool, review_aspects=review_aspects,
                                 embedding_model=embedding_model, cache_dir=cache_dir)
