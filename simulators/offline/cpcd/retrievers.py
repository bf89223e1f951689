"""The retrieval baselines of CPCD's Table 5, over crsim's own search indexes.

Each retriever scores every candidate track for a batch of turns (one conversation).
`ClusterRanker` turns scores into what the evaluator grades: one track per cluster,
best first, seed clusters left out, ties in catalog order (so runs are reproducible).

- popularity: how many `--train` conversations liked the track (§7.1.1);
- bm25: `BM25Index` over "<title> by <artist> from <album>" (k1 = 1.5, b = 0.75);
- dense: `DenseIndex` over the same text with a sentence encoder (default the packaged
  MiniLM, off the shelf: the paper fine-tuned Contriever on CPCD), exact inner products;
- hybrid: reciprocal-rank fusion of the bm25 and dense rankings, each over the
  candidates outside the seed clusters.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from environments.catalog.store import Catalog
from environments.datasets.cpcd import track_text
from environments.errors import CrsimError
from environments.search.bm25 import top_positions
from environments.search.fusion import reciprocal_rank_fusion
from simulators.offline.cpcd.protocol import cluster_key
from simulators.offline.cpcd.queries import (
    DENSE_SEPARATOR, LEXICAL_SEPARATOR, QUERY_MODES, TurnContext, query_segments,
)

RETRIEVERS = ("popularity", "bm25", "dense", "hybrid")
DEFAULT_QUERY = {"bm25": "user", "dense": "user+items"}  # the paper's choice for each baseline
FUSION_DEPTH = 1000  # how deep each list goes into the hybrid's fusion


class Retriever(Protocol):
    name: str

    def settings(self) -> dict[str, Any]: ...

    def score(self, contexts: Sequence[TurnContext]) -> list[np.ndarray]: ...


class ClusterRanker:
    """Top tracks with one per cluster, from scores over the candidates."""

    def __init__(self, catalog: Catalog):
        keys = [cluster_key(item.id, item.extra.get("cluster_id")) for item in catalog.items]
        self.cluster_of: dict[str, str] = dict(zip(catalog.item_ids, keys))
        self.index = {key: code for code, key in enumerate(dict.fromkeys(keys))}
        self.codes = np.array([self.index[key] for key in keys], dtype=np.int64)
        self.item_ids = catalog.item_ids

    def excluded(self, seed_clusters: frozenset[str]) -> np.ndarray:
        """Bool per candidate: its cluster is a seed cluster."""
        codes = [self.index[c] for c in seed_clusters if c in self.index]
        return np.isin(self.codes, codes) if codes else np.zeros(len(self.codes), dtype=bool)

    def top(self, scores: np.ndarray, excluded: np.ndarray, depth: int) -> list[str]:
        """Up to `depth` track ids, one per cluster, best first; excluded tracks never."""
        scores = np.where(excluded, -np.inf, np.asarray(scores, dtype=np.float64))
        allowed = int((~excluded).sum())
        fetch = min(2 * depth, allowed)
        while True:
            order = top_positions(scores, fetch)
            _, first = np.unique(self.codes[order], return_index=True)
            picked = order[np.sort(first)][:depth]
            if len(picked) >= depth or fetch >= allowed:
                return [self.item_ids[i] for i in picked.tolist()]
            fetch = min(2 * fetch, allowed)


class Popularity:
    name = "popularity"

    def __init__(self, catalog: Catalog, likes: Counter[str]):
        self.counts = np.array([likes.get(item_id, 0) for item_id in catalog.item_ids], dtype=np.float64)
        if not self.counts.any():
            raise CrsimError("popularity: no track liked in the --train conversations is a candidate")
        self.train_tracks = sum(1 for count in likes.values() if count)

    def settings(self) -> dict[str, Any]:
        return {"liked_tracks_in_train": self.train_tracks, "liked_candidates": int((self.counts > 0).sum())}

    def score(self, contexts: Sequence[TurnContext]) -> list[np.ndarray]:
        return [self.counts for _ in contexts]


class Bm25:
    name = "bm25"

    def __init__(self, catalog: Catalog, query: str, cache_dir: Path | str | None = None):
        from environments.search.bm25 import BM25_PARAMS, BM25Index

        self.query = query
        self.params = BM25_PARAMS
        self.index = BM25Index.build(catalog, cache_dir, document=lambda item, _reviews: track_text(item))
        self.text: Callable[[str], str] = _texts(catalog)

    def settings(self) -> dict[str, Any]:
        return {"query": self.query, "document": "<title> by <artist> from <album>", **self.params}

    def score(self, contexts: Sequence[TurnContext]) -> list[np.ndarray]:
        return [self.index.scores(LEXICAL_SEPARATOR.join(query_segments(c, self.query, self.text)))
                for c in contexts]


class Dense:
    name = "dense"

    def __init__(self, catalog: Catalog, query: str, encoder: Any, cache_dir: Path | str | None = None,
                 progress: bool = False):
        from environments.search.dense import DenseIndex

        self.query = query
        self.encoder = encoder
        self.index = DenseIndex.build(catalog, encoder, cache_dir, show_progress=progress, document=track_text,
                                      exact=True)
        self.text = _texts(catalog)

    def settings(self) -> dict[str, Any]:
        return {"query": self.query, "encoder": self.encoder.model_id, "document": "<title> by <artist> from <album>"}

    def score(self, contexts: Sequence[TurnContext]) -> list[np.ndarray]:
        if not contexts:
            return []
        texts = [DENSE_SEPARATOR.join(query_segments(c, self.query, self.text)) for c in contexts]
        # Queries never repeat, so bypass a TextEncoder's memo (and use the bulk thread count).
        encode = getattr(self.encoder, "encode_uncached", self.encoder.encode)
        vectors = np.asarray(encode(texts), dtype=np.float32)
        return list(vectors @ self.index.matrix.T)


class Hybrid:
    name = "hybrid"

    def __init__(self, bm25: Bm25, dense: Dense):
        self.parts = (bm25, dense)

    def settings(self) -> dict[str, Any]:
        return {"fusion": "reciprocal rank, k = 60", "depth": FUSION_DEPTH,
                **{part.name: part.settings() for part in self.parts}}

    def score(self, contexts: Sequence[TurnContext]) -> list[np.ndarray]:
        lists = [part.score(contexts) for part in self.parts]
        fused = []
        for position, context in enumerate(contexts):
            rankings = [top_positions(np.where(context.excluded, -np.inf, scores[position]), FUSION_DEPTH)
                        for scores in lists]
            fused.append(reciprocal_rank_fusion(rankings, len(context.excluded)))
        return fused


def _texts(catalog: Catalog) -> Callable[[str], str]:
    return lambda track_id: track_text(catalog.item(track_id))


def build_retriever(name: str, catalog: Catalog, *, query: str | None = None,
                    likes: Mapping[str, int] | None = None, encoder: Any = None,
                    cache_dir: Path | str | None = None, progress: bool = False) -> Retriever:
    """The named baseline over `catalog`; `query` None means the paper's mode for each part."""
    if query is not None and query not in QUERY_MODES:
        raise CrsimError(f"--query must be one of {', '.join(QUERY_MODES)}, got '{query}'")
    if name == "popularity":
        if likes is None:
            raise CrsimError("--retriever popularity needs --train FILE... (the conversations whose likes it counts)")
        return Popularity(catalog, Counter(likes))
    if name in ("dense", "hybrid") and encoder is None:
        from environments.search.encoders import get_encoder

        encoder = get_encoder()
    if name == "bm25":
        return Bm25(catalog, query or DEFAULT_QUERY["bm25"], cache_dir)
    if name == "dense":
        return Dense(catalog, query or DEFAULT_QUERY["dense"], encoder, cache_dir, progress)
    if name == "hybrid":
        return Hybrid(Bm25(catalog, query or DEFAULT_QUERY["bm25"], cache_dir),
                      Dense(catalog, query or DEFAULT_QUERY["dense"], encoder, cache_dir, progress))
    raise CrsimError(f"--retriever must be one of {', '.join(RETRIEVERS)}, got '{name}'")
