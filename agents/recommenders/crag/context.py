"""What a CRAG recommender is built from: its settings and the resources its graph reads.

Everything here is fixed for a run and shared by concurrent episodes (LangGraph runtime
context); per-episode memory lives in the graph state. The variants of the paper are
settings of one graph (`conf/recommender/crag*.yaml`, `zero_shot`, `naive_rag`, `ease`):

| variant    | k  | retriever | reflect | generate | rerank |
| ---        | -- | ---       | ---     | ---      | ---    |
| crag       | 20 | ease      | yes     | yes      | yes    |
| crag_nr2   | 20 | ease      | yes     | yes      | no     |
| crag_nr12  | 20 | ease      | no      | yes      | no     |
| zero_shot  | 0  | –         | –       | yes      | no     |
| naive_rag  | 20 | content   | no      | yes      | no     |
| ease       | –  | ease      | no      | no       | no     |
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from agents.steps.crag.entity_linking import TextLinker
from agents.steps.crag.relevance import DialogueRelevance
from agents.steps.crag.steps import (
    ContextReflectStep, ExtractMentionsStep, InferItemsStep, RecommendStep, ReflectLinksStep, RerankStep,
)
from agents.steps.recommender.clarify import ClarifyStep
from agents.steps.recommender.item_answer import ItemAnswerStep
from environments.catalog import Catalog
from environments.errors import CrsimError

if TYPE_CHECKING:
    from environments.search.ease import EaseIndex
    from environments.search.multivector import MultiVectorIndex


@dataclass(frozen=True, slots=True)
class CragSettings:
    """The knobs of the CRAG graph (see the module docstring for the paper's variants)."""

    k: int = 20  # items collaborative retrieval hands on (0: none, the zero-shot LLM)
    m: int = 20  # items recommended
    retriever: Literal["ease", "content"] = "ease"
    reflect: bool = True  # context-aware reflection on the retrieved items
    generate: bool = True  # False: rank by the retriever's scores alone (the EASE baseline)
    rerank: bool = True  # reflect and rerank
    prompt: Literal["rag", "rec"] = "rag"  # how the generation prompt presents retrieved items
    infer_when_no_mentions: bool = True  # CRAG §3.4: guess liked items when none was named
    infer_count: int = 5
    seeker_positive_at: int = 1  # attitudes at or above this count as positive, per speaker
    other_positive_at: int = 0  # the paper treats neutral system mentions as positive
    relevance_threshold: float = 0.5  # offline context reflection: keep items above this percentile
    ask: bool = True  # ask a clarification question each turn
    question_pool: int = 20

    def check(self) -> CragSettings:
        problems = []
        if self.k < 0:
            problems.append(f"k must be 0 or more, got {self.k}")
        if self.m < 1:
            problems.append(f"m must be at least 1, got {self.m}")
        if self.retriever not in ("ease", "content"):
            problems.append(f"retriever must be 'ease' or 'content', got {self.retriever!r}")
        if self.prompt not in ("rag", "rec"):
            problems.append(f"prompt must be 'rag' or 'rec', got {self.prompt!r}")
        if not 0.0 <= self.relevance_threshold <= 1.0:
            problems.append(f"relevance_threshold must be in [0, 1], got {self.relevance_threshold}")
        if not self.generate and (self.retriever != "ease" or self.reflect or self.rerank):
            problems.append("generate=false ranks by EASE alone: it needs retriever=ease, reflect=false, rerank=false")
        if problems:
            raise CrsimError("CRAG recommender: " + "; ".join(problems))
        return self

    @property
    def retrieves(self) -> bool:
        return self.k > 0 or not self.generate


@dataclass(frozen=True, slots=True)
class CragContext:
    catalog: Catalog
    settings: CragSettings
    linker: TextLinker
    relevance: DialogueRelevance | None  # None when nothing is generated (the EASE baseline)
    ease: EaseIndex | None
    content: MultiVectorIndex | None
    extract: ExtractMentionsStep
    reflect_links: ReflectLinksStep
    context_reflect: ContextReflectStep
    recommend: RecommendStep
    infer: InferItemsStep
    rerank: RerankStep
    clarify: ClarifyStep
    exact_titles: dict[str, int]
    answer: ItemAnswerStep | None = None  # answers a question about a shown item before the question

    def title_position(self, title: str) -> int | None:
        """A title as written by a model (or the offline step) -> catalog position, or None.

        An exact catalog title wins; anything else goes through fuzzy/BM25 linking with the
        tie rule (no further model call: CRAG links generated names back directly)."""
        exact = self.exact_titles.get(title.strip())
        if exact is not None:
            return exact
        position, _, _ = self.linker.link(title)
        return position

    def positions(self, item_ids: Any) -> np.ndarray:
        index = self.catalog.item_index
        return np.fromiter((index[i] for i in item_ids), dtype=np.int64, count=len(item_ids))


def make_context(catalog: Catalog, llm: Any | None, settings: CragSettings, *, lam: float,
                 positive_at: float, seen_like_at: float, recent_popularity: bool, recent_share: float,
                 popularity_alpha: float, embedding_model: str | None, cache_dir: str | None,
                 encoder: Any | None = None) -> CragContext:
    """Build indexes (titles, dense, EASE or content) and the language steps for one catalog."""
    from environments.search import DenseIndex, get_encoder
    from environments.search.titles import title_index

    settings.check()
    linker = TextLinker(title_index(catalog))
    if encoder is None and (settings.generate or settings.retriever == "content"):
        encoder = get_encoder(embedding_model)
    relevance = None
    if settings.generate:
        relevance = DialogueRelevance(DenseIndex.build(catalog, encoder, cache_dir=cache_dir))
    ease = content = None
    if settings.retrieves and settings.retriever == "ease":
        from environments.search.ease import EaseIndex, positive_matrix

        matrix = positive_matrix(catalog, positive_at, seen_like_at)
        if matrix.matrix.nnz == 0:
            raise CrsimError("CRAG recommender: the catalog has no positive interactions to fit EASE on "
                             "(interactions.jsonl, or users' ratings in users.jsonl)")
        ease = EaseIndex.build(matrix, lam, recent_popularity=recent_popularity, recent_share=recent_share,
                               popularity_alpha=popularity_alpha, cache_dir=cache_dir)
    elif settings.retrieves:
        from environments.search.multivector import MultiVectorIndex

        content = MultiVectorIndex.build(catalog, encoder, cache_dir=cache_dir)
    exact: dict[str, int] = {}
    for position, item in enumerate(catalog.items):
        exact.setdefault(item.title.strip(), position)
    return CragContext(
        catalog=catalog, settings=settings, linker=linker, relevance=relevance, ease=ease,
        content=content, extract=ExtractMentionsStep(linker, llm), reflect_links=ReflectLinksStep(linker, llm),
        context_reflect=ContextReflectStep(llm, "recommender"), recommend=RecommendStep(llm, "recommender"),
        infer=InferItemsStep(llm, "recommender"), rerank=RerankStep(llm, "recommender"),
        clarify=ClarifyStep(llm, "recommender", catalog_items=catalog.items), exact_titles=exact,
        answer=ItemAnswerStep(llm, "recommender"),
    )
