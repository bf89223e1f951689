"""Dense (embedding) retrieval over a catalog, with the embedding matrix cached on disk.

Embedding a catalog is the slow part (compute-bound on two cores: the int8 MiniLM's bulk
path embeds ~205 documents/s at ~61 word pieces and ~700-900 sentences/s at ~20; 3,000
restaurants take ~15 s), so the float32 matrix is saved as `.npy`. The cache key hashes
the dense documents themselves plus the encoder's `bulk_id` (its `model_id` and how it
batches bulk lists), not `catalog.fingerprint`: dense documents contain no reviews, so
a view with withheld reviews (one per target-biased episode) reuses its parent's
embeddings instead of re-embedding the catalog. Any change to an item changes its
document and therefore the key.

`search` goes through faiss: exact `IndexFlatIP` up to `HNSW_THRESHOLD` items, HNSW
above (DESIGN.md §7). `scores` is always exact (one matrix-vector product); the matrix
is a view of the faiss index's own storage, so the vectors are held once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from environments.search.cache import cache_dir_for, content_key, write_file_atomic
from environments.search.documents import dense_document
from environments.search.embeddings import bulk_id, encode_bulk, show_bar

if TYPE_CHECKING:
    from environments.catalog.store import Catalog
    from environments.models import Item
    from environments.search.embeddings import Encoder

HNSW_THRESHOLD = 100_000
HNSW_M = 32
HNSW_EF_SEARCH = 128
EXACT_SUBSET_LIMIT = 20_000  # masked HNSW search scores this many allowed rows exactly
CHUNK = 256  # texts per call of an encoder without a progress callback (torch MiniLM: its bulk rows depend on it)


class DenseIndex:
    """Cosine scores between a query and every item; use `DenseIndex.build` to get one."""

    def __init__(self, faiss_index: Any, item_ids: list[str], encoder: Encoder):
        self._faiss = faiss_index
        self.matrix = _storage_view(faiss_index)
        self.item_ids = item_ids
        self.encoder = encoder
        self.is_exact = not hasattr(faiss_index, "hnsw")

    # ---------------------------------------------------------------- building
    @classmethod
    def build(cls, catalog: Catalog, encoder: Encoder, cache_dir: Path | str | None = None,
              *, show_progress: bool = True, document: Callable[[Item], str] | None = None,
              exact: bool = False) -> DenseIndex:
        """Load the catalog's embeddings from the cache, or embed and cache them.

        `document` replaces `dense_document` (the key hashes the documents, so each
        document function gets its own entry). `exact=True` keeps the flat index above
        `HNSW_THRESHOLD`: a caller that only uses the exact `scores` (CPCD's evaluation
        over 106k tracks) need not build an HNSW graph it never searches.
        """
        import faiss

        documents = [(document or dense_document)(item) for item in catalog.items]
        key = content_key(bulk_id(encoder), *documents)
        directory = cache_dir_for("dense", cache_dir)
        matrix = embed_cached(documents, encoder, cache_dir, show_progress=show_progress, key=key,
                              what="item documents")
        if len(documents) > HNSW_THRESHOLD and not exact:
            index = _hnsw(matrix, directory / f"{key}.hnsw{HNSW_M}.faiss")
        else:
            index = faiss.IndexFlatIP(matrix.shape[1])
            index.add(matrix)
        return cls(index, list(catalog.item_ids), encoder)

    # ---------------------------------------------------------------- querying
    def embed(self, query: str) -> np.ndarray:
        """The query's normalised vector (memoised by the encoder)."""
        return self.encoder.encode([query])[0]

    def scores_for_vector(self, vector: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Inner product of a (normalised) vector with every item, float32, catalog order."""
        result = self.matrix @ np.asarray(vector, dtype=np.float32)
        if mask is not None:
            result[~np.asarray(mask, dtype=bool)] = -np.inf
        return result

    def scores(self, query: str, mask: np.ndarray | None = None) -> np.ndarray:
        """Cosine similarity of the query to every item; masked-out items get -inf."""
        return self.scores_for_vector(self.embed(query), mask)

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> list[tuple[str, float]]:
        """Top-`k` (item_id, score), best first; masked-out items never appear."""
        return self.search_vector(self.embed(query), k, mask)

    def search_vector(self, vector: np.ndarray, k: int,
                      mask: np.ndarray | None = None) -> list[tuple[str, float]]:
        """Top-`k` (item_id, score) for a query vector; exact unless the index is HNSW."""
        import faiss

        k = min(k, len(self.item_ids))
        if k <= 0:
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        kwargs: dict[str, Any] = {}
        if mask is not None:
            mask = np.asarray(mask, dtype=bool)
            allowed = np.flatnonzero(mask)
            if not self.is_exact and len(allowed) <= EXACT_SUBSET_LIMIT:
                # HNSW with a selective filter walks the graph through excluded nodes
                # and loses recall; scoring the allowed rows exactly is cheap and exact.
                return _top_rows(self.matrix[allowed] @ query[0], allowed, self.item_ids, k)
            # A bitmap costs n/8 bytes per query; IDSelectorBatch hashes every allowed id
            # and was ~2x slower at 3,000 items. `bits` and `kwargs` (holding the selector)
            # stay referenced until the search has returned: faiss only keeps pointers.
            bits = np.packbits(mask, bitorder="little")
            kwargs["sel"] = faiss.IDSelectorBitmap(len(mask), faiss.swig_ptr(bits))
        if self.is_exact:
            params = faiss.SearchParameters(**kwargs)
        else:
            params = faiss.SearchParametersHNSW(efSearch=max(HNSW_EF_SEARCH, k), **kwargs)
        distances, labels = self._faiss.search(query, k, params=params)
        ids = self.item_ids
        return [(ids[i], d) for d, i in zip(distances[0].tolist(), labels[0].tolist()) if i >= 0]

    def __len__(self) -> int:
        return len(self.item_ids)


def _top_rows(scores: np.ndarray, rows: np.ndarray, item_ids: list[str],
              k: int) -> list[tuple[str, float]]:
    order = np.argsort(-scores, kind="stable")[:k]
    return [(item_ids[rows[i]], float(scores[i])) for i in order]


def embed_cached(texts: list[str], encoder: Encoder, cache_dir: Path | str | None = None, *,
                 show_progress: bool = True, key: str | None = None, what: str = "texts") -> np.ndarray:
    """Normalised vectors of `texts`, from `<cache>/dense/<key>.npy` or embedded and cached
    there; the key hashes the encoder and every text unless given. `what` names the texts
    in the progress bar, drawn when `show_progress` asks and `embeddings.show_bar` agrees
    (the run's `progress` key, stderr a terminal)."""
    path = cache_dir_for("dense", cache_dir) / f"{key or content_key(bulk_id(encoder), *texts)}.npy"
    matrix = _load_matrix(path, len(texts))
    if matrix is None:
        matrix = _embed(texts, encoder, show_progress, what)
        write_file_atomic(path, lambda tmp: save_npy(tmp, matrix))
    return matrix


def _embed(documents: list[str], encoder: Encoder, show_progress: bool, what: str = "texts") -> np.ndarray:
    from tqdm.auto import tqdm

    # Any object with `encode(texts)` and `model_id` works (tests use a hashing encoder);
    # a `TextEncoder` is asked to skip its memo, which catalog documents would only flood.
    # The bar counts texts: tqdm shows texts/s and the time left.
    name = str(getattr(encoder, "model_id", type(encoder).__name__)).split(":")[0]  # the id's versions make a long bar
    with tqdm(total=len(documents), desc=f"Embedding {len(documents):,} {what} ({name})", unit="text",
              unit_scale=True, smoothing=0.1, disable=not show_bar(show_progress and bool(documents))) as bar:
        if not documents:
            return np.zeros((0, int(getattr(encoder, "dim", 0)) or encode_bulk(encoder, ["x"]).shape[1]), np.float32)
        if _takes_progress(encoder):  # one call over the whole list: batches are bucketed by length across it
            return np.ascontiguousarray(encoder.encode_uncached(documents, progress=bar.update), dtype=np.float32)
        parts = []
        for start in range(0, len(documents), CHUNK):
            chunk = documents[start:start + CHUNK]
            parts.append(np.asarray(encode_bulk(encoder, chunk), dtype=np.float32))
            bar.update(len(chunk))
    return np.ascontiguousarray(np.concatenate(parts))


def _takes_progress(encoder: Encoder) -> bool:
    import inspect

    method = getattr(encoder, "encode_uncached", None)
    return method is not None and "progress" in inspect.signature(method).parameters


def save_npy(path: Path, matrix: np.ndarray) -> None:
    with open(path, "wb") as handle:  # a handle, so numpy does not append ".npy"
        np.save(handle, matrix, allow_pickle=False)


def _load_matrix(path: Path, rows: int) -> np.ndarray | None:
    if not path.exists():
        return None
    try:
        matrix = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    if matrix.ndim != 2 or matrix.shape[0] != rows or matrix.dtype != np.float32:
        return None
    return matrix


class _FaissStorage:
    """Exposes a faiss index's vectors to numpy and keeps the index alive meanwhile.

    The array's `.base` is this object, which holds the index, so the matrix stays
    valid however long a caller keeps it; read-only, as faiss owns the memory.
    """

    def __init__(self, index: Any, flat: Any):
        self.index = index
        self.__array_interface__ = {"data": (int(flat.get_xb()), True), "typestr": "<f4",
                                    "shape": (flat.ntotal, flat.d), "version": 3}


def _storage_view(index: Any) -> np.ndarray:
    """The index's vectors as an (n, d) float32 array, without a copy."""
    import faiss

    flat = faiss.downcast_index(index.storage) if hasattr(index, "storage") else index
    if flat.ntotal == 0:
        return np.zeros((0, flat.d), dtype=np.float32)
    return np.asarray(_FaissStorage(index, flat))


def _hnsw(matrix: np.ndarray, path: Path) -> Any:
    """A faiss HNSW index over the matrix, cached too: building one over 1M rows takes minutes."""
    import faiss

    if path.exists():
        index = faiss.read_index(str(path))  # already the concrete class
        if index.ntotal == matrix.shape[0] and index.d == matrix.shape[1]:
            return index
    index = faiss.IndexHNSWFlat(matrix.shape[1], HNSW_M, faiss.METRIC_INNER_PRODUCT)
    index.add(matrix)
    write_file_atomic(path, lambda tmp: faiss.write_index(index, str(tmp)))
    return index
