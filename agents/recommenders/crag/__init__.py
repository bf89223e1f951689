"""CRAG (collaborative retrieval-augmented LLM recommender) and the variants the paper compares.

`build` is the Hydra factory behind `conf/recommender/crag.yaml`, `crag_nr2.yaml`,
`crag_nr12.yaml`, `naive_rag.yaml` and `ease.yaml` (and, with k = 0,
`agents.recommenders.zero_shot`). The graph is in `graph.py`, its settings and resources
in `context.py`, entity linking of the dialogue in `mentions.py`.
"""

from __future__ import annotations

from typing import Any

from agents.base import GraphAgent
from agents.recommenders.crag.context import CragContext, CragSettings, make_context
from agents.recommenders.crag.graph import build_graph
from agents.recommenders.retrieval import asked_in
from environments.catalog import Catalog
from environments.models import Role

__all__ = ["CragSettings", "build"]


def build(catalog: Catalog, llm: Any | None = None, *, k: int = 20, m: int = 20, retriever: str = "ease",
          reflect: bool = True, generate: bool = True, rerank: bool = True, prompt: str = "rag",
          infer_when_no_mentions: bool = True, infer_count: int = 5, seeker_positive_at: int = 1,
          other_positive_at: int = 0, relevance_threshold: float = 0.5, ask: bool = True, question_pool: int = 20,
          lam: float = 200.0, positive_at: float = 1.0, seen_like_at: float = 4.0, recent_popularity: bool = False,
          recent_share: float = 0.2, popularity_alpha: float = 1.0, embedding_model: str | None = None,
          cache_dir: str | None = None, name: str = "crag", encoder: Any | None = None) -> GraphAgent[CragContext]:
    """A CRAG recommender over `catalog` (the recommender's view: its interactions feed EASE).

    `encoder` replaces the sentence encoder named by `embedding_model` (tests pass a small one)."""
    settings = CragSettings(
        k=k, m=m, retriever=retriever, reflect=reflect, generate=generate, rerank=rerank,  # type: ignore[arg-type]
        prompt=prompt, infer_when_no_mentions=infer_when_no_mentions, infer_count=infer_count,  # type: ignore[arg-type]
        seeker_positive_at=seeker_positive_at, other_positive_at=other_positive_at,
        relevance_threshold=relevance_threshold, ask=ask, question_pool=question_pool)
    context = make_context(catalog, llm, settings, lam=lam, positive_at=positive_at, seen_like_at=seen_like_at,
                           recent_popularity=recent_popularity, recent_share=recent_share,
                           popularity_alpha=popularity_alpha, embedding_model=embedding_model, cache_dir=cache_dir,
                           encoder=encoder)
    return GraphAgent(Role.recommender, build_graph(name), context, memory_keys=("linked", "asked_aspects"),
                      resume=asked_in)
