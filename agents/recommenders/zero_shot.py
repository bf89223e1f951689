"""The zero-shot LLM recommender (He et al., CIKM 2023): the dialogue in, M titles out.

It is CRAG with nothing retrieved (K = 0, no reflection, no rerank), which is exactly how
the CRAG paper defines its zero-shot baseline, and PEPPER's zero-shot recommender is the
same agent. Each turn: link the dialogue's mentions (never recommend them), ask the
model for M titles, link them back to the catalog by fuzzy/BM25 matching, and ask a
clarification question. Offline, the titles come from the dialogue's embedding relevance
plus affinity to the items the user liked.
"""

from __future__ import annotations

from typing import Any

from agents.base import GraphAgent
from agents.recommenders.crag import build as build_crag
from agents.recommenders.crag.context import CragContext
from environments.catalog import Catalog


def build(catalog: Catalog, llm: Any | None = None, *, m: int = 20, seeker_positive_at: int = 1,
          other_positive_at: int = 0, ask: bool = True, question_pool: int = 20,
          embedding_model: str | None = None, cache_dir: str | None = None,
          encoder: Any | None = None) -> GraphAgent[CragContext]:
    """Hydra factory for `recommender=zero_shot`."""
    return build_crag(catalog, llm, k=0, m=m, reflect=False, rerank=False, seeker_positive_at=seeker_positive_at,
                      other_positive_at=other_positive_at, ask=ask, question_pool=question_pool,
                      embedding_model=embedding_model, cache_dir=cache_dir, name="zero_shot", encoder=encoder)
