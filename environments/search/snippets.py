"""An index of short texts about items (snippets, sentences or whole reviews) for SnipRec.

Each unit belongs to one item; the same text often belongs to many (a synthetic world's
reviews share phrasings, real ones share "Great food."), so the index holds each distinct
text once, with its items in a CSR table (text -> item rows) and its flags (`negated`:
the text says an item lacks something; `sentiment`). Retrieval is by cosine over the
texts' normalised vectors: exact faiss `IndexFlatIP` up to `HNSW_THRESHOLD` texts, HNSW
(M = 32, efSearch >= k) above (../shared/DESIGN.md §7), the vectors cached on disk by
content like every other embedding matrix (`dense.embed_cached`).

Given `content_of` (text -> its content words), the index also holds vectors of each
text's content alone. Whole-snippet cosines are dominated by the shared frame ("This
restaurant does not have a patio." is 0.64 from "... does not have proper curry house."),
so a validator that thresholds them keeps nearly everything retrieved; content cosines
separate topics ("patio" vs "proper curry house" 0.32, "curry" 0.63).

The index is built from the catalog a recommender receives (its view), so a review the
environment withholds never reaches it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from environments.models import Snippet
from environments.search.cache import cache_dir_for, content_key
from environments.search.dense import HNSW_EF_SEARCH, HNSW_THRESHOLD, _hnsw, embed_cached
from environments.search.embeddings import bulk_id

if TYPE_CHECKING:
    from pathlib import Path

    from environments.catalog.store import Catalog
    from environments.search.embeddings import Encoder

Unit = Literal["document", "sentence", "snippet"]


@dataclass(frozen=True, slots=True)
class Hits:
    """Top-k per query: `texts[q, j]` (row in the index, -1 when fewer) with cosine `scores[q, j]`."""

    texts: np.ndarray
    scores: np.ndarray


class SnippetIndex:
    """Distinct texts, their items, flags and vectors; use `SnippetIndex.build`."""

    def __init__(self, texts: list[str], item_rows: list[list[int]], negated: np.ndarray, sentiment: np.ndarray,
                 aspects: list[str | None], faiss_index: object, encoder: Encoder, n_items: int,
                 content_vectors: np.ndarray | None = None, content_of: Callable[[str], str] | None = None):
        self.texts = texts
        self.indptr = np.cumsum([0] + [len(rows) for rows in item_rows]).astype(np.int64)
        self.items = np.asarray([r for rows in item_rows for r in rows], dtype=np.int64)
        self.negated = negated
        self.sentiment = sentiment
        self.aspects = aspects
        self.encoder = encoder
        self.n_items = n_items
        self._faiss = faiss_index
        self.content_vectors = content_vectors
        self.content_of = content_of

    @classmethod
    def build(cls, catalog: Catalog, snippets: Iterable[Snippet], encoder: Encoder,
              cache_dir: Path | str | None = None, *, show_progress: bool = True,
              content_of: Callable[[str], str] | None = None) -> SnippetIndex:
        """Index `snippets` (each with the `item_id` of a catalog item; others are skipped);
        with `content_of`, also the vectors of each text's content (`content_support`)."""
        import faiss

        rows: dict[str, int] = {}
        texts: list[str] = []
        item_rows: list[list[int]] = []
        negated: list[bool] = []
        feelings: list[float] = []
        aspects: list[str | None] = []
        for snippet in snippets:
            item = catalog.item_index.get(snippet.item_id or "")
            if item is None:
                continue
            row = rows.get(snippet.text)
            if row is None:
                row = rows[snippet.text] = len(texts)
                texts.append(snippet.text)
                item_rows.append([])
                negated.append(snippet.negated)
                feelings.append(snippet.sentiment)
                aspects.append(snippet.aspect)
            if not item_rows[row] or item_rows[row][-1] != item:
                item_rows[row].append(item)
        matrix = embed_cached(texts, encoder, cache_dir, show_progress=show_progress)
        if len(texts) > HNSW_THRESHOLD:
            key = content_key(bulk_id(encoder), *texts)
            index = _hnsw(matrix, cache_dir_for("snippets", cache_dir) / f"{key}.hnsw.faiss")
        else:
            index = faiss.IndexFlatIP(matrix.shape[1])
            if len(texts):
                index.add(matrix)
        content = (embed_cached([content_of(text) or text for text in texts], encoder, cache_dir,
                                show_progress=show_progress) if content_of is not None and texts else None)
        return cls(texts, [sorted(set(r)) for r in item_rows], np.asarray(negated, bool),
                   np.asarray(feelings, np.float32), aspects, index, encoder, len(catalog.items),
                   content_vectors=content, content_of=content_of)

    def embed(self, queries: Sequence[str]) -> np.ndarray:
        return np.asarray(self.encoder.encode(list(queries)), dtype=np.float32).reshape(len(queries), -1)

    def search(self, vectors: np.ndarray, k: int) -> Hits:
        """The `k` nearest texts of each query vector."""
        import faiss

        k = min(k, len(self.texts))
        if k <= 0 or len(vectors) == 0:
            return Hits(np.full((len(vectors), 0), -1, np.int64), np.zeros((len(vectors), 0), np.float32))
        params = (faiss.SearchParametersHNSW(efSearch=max(HNSW_EF_SEARCH, k)) if hasattr(self._faiss, "hnsw")
                  else None)
        scores, labels = self._faiss.search(np.ascontiguousarray(vectors, dtype=np.float32), k, params=params)
        return Hits(labels.astype(np.int64), scores)

    def content_support(self, queries: Sequence[str], texts: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Per query, the cosine between its content and that of each of its retrieved `texts`."""
        if self.content_vectors is None or self.content_of is None:
            raise ValueError("this index was built without content vectors (SnippetIndex.build(content_of=...))")
        vectors = self.embed([self.content_of(query) or query for query in queries])
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return [self.content_vectors[rows] @ vector for vector, rows in zip(vectors, texts)]

    def items_of(self, text: int) -> np.ndarray:
        """Catalog rows of the items a text belongs to."""
        return self.items[self.indptr[text]:self.indptr[text + 1]]

    def __len__(self) -> int:
        return len(self.texts)


def attribute_snippets(catalog: Catalog, noun: str) -> list[Snippet]:
    """Every shown attribute value as a snippet: "This restaurant has rustic ambience." (SnipRec
    turns a catalog's attributes into snippets too; every unit kind gets them)."""
    from environments.search.documents import attribute_phrases_by_key

    return [Snippet(text=f"This {noun} has {value} {aspect}.", item_id=item.id, source="attribute", aspect=aspect)
            for item in catalog.items
            for aspect, value in (phrase.split(": ", 1) for phrase in attribute_phrases_by_key(item))]
