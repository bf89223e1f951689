"""BM25 over a catalog's lexical documents, built once per catalog and cached on disk.

bm25s precomputes every (term, document) score into a sparse CSC matrix, so a query is
a sum of a few matrix columns. Tokenization is done here, not by `bm25s.tokenize`, for
two reasons: `bm25s.tokenize` costs far more per query than scoring does (progress bars,
vocabulary bookkeeping), and the same code must tokenize the corpus at build time and
the query at search time, or stems would silently stop matching. Its settings are part
of the cache key (`TOKENIZER`).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from environments.search.cache import cache_dir_for, content_key, write_dir_atomic
from environments.search.documents import lexical_document
from environments.search.embeddings import show_bar

if TYPE_CHECKING:
    from environments.catalog.store import Catalog
    from environments.models import Item, Review

#: The text BM25 indexes for one item, given its reviews (default: `lexical_document`).
DocumentFunction = Callable[["Item", Sequence["Review"]], str]

# Lucene's English stopword list (as bm25s ships it). Written out so that a bm25s
# upgrade cannot change tokenization under an existing cache entry.
STOPWORDS_EN = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with".split()
)
TOKEN_PATTERN = r"(?u)\b\w\w+\b"
TOKENIZER = {"version": 1, "pattern": TOKEN_PATTERN, "lower": True, "stemmer": "english",
             "stopwords": sorted(STOPWORDS_EN)}
BM25_PARAMS = {"k1": 1.5, "b": 0.75, "method": "lucene"}
META_FILE = "crsim_meta.json"


class Tokenizer:
    """Lower-case, split on word characters (2+), drop stopwords, Snowball-stem."""

    def __init__(self) -> None:
        import Stemmer  # PyStemmer

        self._pattern = re.compile(TOKEN_PATTERN)
        self._stemmer = Stemmer.Stemmer("english")

    def words(self, text: str) -> list[str]:
        return [word for word in self._pattern.findall(text.lower()) if word not in STOPWORDS_EN]

    def __call__(self, text: str) -> list[str]:
        return self._stemmer.stemWords(self.words(text))

    def corpus(self, texts: list[str]) -> list[list[str]]:
        """Tokenize many documents, stemming each distinct word once."""
        docs = [self.words(text) for text in texts]
        unique = list({word: None for doc in docs for word in doc})
        stems = dict(zip(unique, self._stemmer.stemWords(unique)))
        return [[stems[word] for word in doc] for doc in docs]


def _new_bm25(**kwargs: Any) -> Any:
    """A bm25s retriever, used to build the score matrix and to save/load it.

    Per-query scoring happens in `BM25Index.scores` (a numpy column sum, tens of
    microseconds at 3,000 items), not in bm25s: its `get_scores` does the same work
    through `np.add.at`, and its numba path only speeds up batched `retrieve` calls.
    """
    import logging

    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)  # it sets itself to DEBUG on import
    try:
        import numba  # noqa: F401

        backend = "numba"
    except ImportError:
        backend = "numpy"
    return bm25s.BM25(backend=backend, **kwargs)


class BM25Index:
    """Lexical scores for every catalog item; use `BM25Index.build` to get one."""

    def __init__(self, retriever: Any, item_ids: list[str], fingerprint: str):
        self.item_ids = item_ids
        self.fingerprint = fingerprint
        self.tokenizer = Tokenizer()
        self.vocab: dict[str, int] = {tok: int(i) for tok, i in retriever.vocab_dict.items() if tok}
        scores = retriever.scores
        self._data = np.asarray(scores["data"], dtype=np.float32)
        self._indices = np.asarray(scores["indices"], dtype=np.int64)
        self._indptr = np.asarray(scores["indptr"], dtype=np.int64)
        self._n = len(item_ids)
        self._retriever = retriever

    # ---------------------------------------------------------------- building
    @classmethod
    def build(cls, catalog: Catalog, cache_dir: Path | str | None = None, *,
              persist: bool = True, document: DocumentFunction | None = None) -> BM25Index:
        """Load the index for this catalog from the cache, or build and cache it.

        The key is `catalog.fingerprint` (items and reviews, so a view with withheld
        reviews gets its own entry) plus the tokenizer and BM25 settings.
        `persist=False` builds in memory only, e.g. for short-lived per-episode views.
        `document` replaces `lexical_document` (CPCD scores tracks on "<title> by
        <artist> from <album>" only); the documents' hash then joins the key, so each
        document function gets its own entry and the default's keys stay as they were.
        """
        texts: list[str] | None = None
        parts = [catalog.fingerprint, json.dumps([TOKENIZER, BM25_PARAMS], sort_keys=True)]
        if document is not None:
            reviews = catalog.reviews_by_item
            texts = [document(item, reviews.get(item.id, ())) for item in catalog.items]
            parts.append(content_key("documents", *texts))
        key = content_key(*parts)
        entry = cache_dir_for("bm25", cache_dir) / key if persist else None
        if entry is not None and (entry / META_FILE).exists():
            loaded = cls._load(entry, catalog)
            if loaded is not None:
                return loaded
        tokenizer = Tokenizer()
        if texts is None:
            reviews = catalog.reviews_by_item
            texts = [lexical_document(item, reviews.get(item.id, ())) for item in catalog.items]
        retriever = _new_bm25(**BM25_PARAMS)
        retriever.index(tokenizer.corpus(texts), show_progress=show_bar(len(texts) > 50_000))
        if entry is not None:
            meta = {"fingerprint": catalog.fingerprint, "tokenizer": TOKENIZER,
                    "params": BM25_PARAMS, "num_docs": len(texts)}

            def write(tmp: Path) -> None:
                retriever.save(str(tmp), show_progress=False)
                (tmp / META_FILE).write_text(json.dumps(meta), encoding="utf-8")

            write_dir_atomic(entry, write)
        return cls(retriever, list(catalog.item_ids), catalog.fingerprint)

    @classmethod
    def _load(cls, entry: Path, catalog: Catalog) -> BM25Index | None:
        """The cached index, or None if the entry does not fit (then it is rebuilt)."""
        import bm25s

        try:
            meta = json.loads((entry / META_FILE).read_text(encoding="utf-8"))
            if meta.get("tokenizer") == TOKENIZER and meta.get("num_docs") == len(catalog.items):
                retriever = bm25s.BM25.load(str(entry), show_progress=False)
                return cls(retriever, list(catalog.item_ids), catalog.fingerprint)
        except (OSError, ValueError, KeyError):
            pass
        shutil.rmtree(entry, ignore_errors=True)  # unusable: make room for a rebuilt entry
        return None

    # ---------------------------------------------------------------- querying
    def token_ids(self, query: str) -> np.ndarray:
        """Vocabulary ids of the query's tokens; unknown tokens are dropped."""
        vocab = self.vocab
        return np.fromiter((vocab[t] for t in self.tokenizer(query) if t in vocab), dtype=np.int64)

    def scores(self, query: str, mask: np.ndarray | None = None) -> np.ndarray:
        """BM25 score of every item (catalog order), float32; masked-out items get -inf."""
        ids = self.token_ids(query)
        if ids.size:
            starts, ends = self._indptr[ids], self._indptr[ids + 1]
            rows = np.concatenate([self._indices[s:e] for s, e in zip(starts, ends)])
            weights = np.concatenate([self._data[s:e] for s, e in zip(starts, ends)])
            result = np.bincount(rows, weights=weights, minlength=self._n).astype(np.float32)
        else:
            result = np.zeros(self._n, dtype=np.float32)
        if mask is not None:
            result[~np.asarray(mask, dtype=bool)] = -np.inf
        return result

    def matched_terms(self, query: str) -> np.ndarray:
        """How many distinct query terms each item's document contains (Lucene's "coord")."""
        ids = np.unique(self.token_ids(query))
        if not ids.size:
            return np.zeros(self._n, dtype=np.int64)
        rows = np.concatenate([self._indices[self._indptr[i]:self._indptr[i + 1]] for i in ids])
        return np.bincount(rows, minlength=self._n)

    def search(self, query: str, k: int, mask: np.ndarray | None = None) -> list[tuple[str, float]]:
        """Top-`k` (item_id, score), best first, ties by catalog order; never masked items.

        Like bm25s, items matching no query term fill up the list with score 0.
        """
        return top_k(self.scores(query, mask), self.item_ids, k)

    def __len__(self) -> int:
        return self._n


def top_k(scores: np.ndarray, item_ids: list[str], k: int) -> list[tuple[str, float]]:
    """Best `k` (item_id, score) pairs, descending, ties by catalog order, no -inf ones."""
    order = top_positions(scores, k)
    return list(zip([item_ids[i] for i in order.tolist()], scores[order].tolist()))


def top_positions(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the best `k` scores, descending, ties by position, no -inf ones."""
    n = len(scores)
    k = min(k, n)
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    if k < n:
        # Select on the negated scores with kth at the front: numpy's introselect with kth
        # near the end and a large block of equal values before it (most items at 0)
        # was 10-20x slower (0.3 ms at 3,000 items, 15 ms at 100,000).
        cut = -np.partition(-scores, k - 1)[k - 1]
        above = np.flatnonzero(scores > cut)
        above = above[np.argsort(-scores[above], kind="stable")]
        # Items tied at the cut are taken in catalog order (reproducible runs) without
        # sorting them: a short query often leaves most of the catalog tied at zero.
        ties = np.flatnonzero(scores == cut)[: k - len(above)]
        order = np.concatenate([above, ties])
    else:
        order = np.argsort(-scores, kind="stable")
    allowed = scores[order] > -np.inf  # masked-out items never appear
    return order if allowed.all() else order[allowed]
