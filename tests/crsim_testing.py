"""Helpers shared by the test suite (importable because the root conftest puts tests/ on sys.path).

The tiny catalog is small enough to reason about in a test (which item should BM25
find?) and needs no model. `HashEncoder` stands in for sentence embeddings where a test
checks control flow rather than semantics: bag-of-words vectors, normalised, so cosine
similarity is word overlap. `make_episode` builds a logged episode from target ranks.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from environments.catalog import Catalog
from environments.models import (
    CatalogManifest, Episode, Item, RankingRecord, Review, SeenItem, TerminationReason, UserProfile,
)

CUISINES = ["thai", "italian", "mexican", "japanese"]
PRICES = ["cheap", "moderate", "expensive"]
NOISE = ["quiet", "lively"]


def make_tiny_catalog(n_items: int = 24) -> Catalog:
    items, reviews, users = [], [], {}
    for i in range(n_items):
        cuisine, price, noise = CUISINES[i % 4], PRICES[(i // 4) % 3], NOISE[(i // 12) % 2]
        items.append(Item(
            id=f"i{i:02d}", title=f"Place {i:02d}", category="restaurant",
            attributes={"cuisine": cuisine, "price_range": price, "noise": noise},
            description=f"A {noise} {cuisine} spot with {price} prices.",
        ))
        for j in range(2 + i % 3):
            user = f"u{(i + j) % 7}"
            rid = f"r{i:02d}-{j}"
            rating = 5.0 if j % 2 == 0 else 3.0
            reviews.append(Review(id=rid, item_id=f"i{i:02d}", user_id=user, rating=rating,
                                  text=f"Great {cuisine} food. The room was {noise}. Prices felt {price}."))
            users.setdefault(user, UserProfile(user_id=user)).seen.append(
                SeenItem(item_id=f"i{i:02d}", rating=rating, review_id=rid))
    manifest = CatalogManifest(name="tiny", domain="restaurant", item_noun="restaurants")
    return Catalog(manifest, items, reviews, list(users.values()))


class HashEncoder:
    """Bag-of-words hashing encoder with the `TextEncoder.encode` contract; counts its use."""

    def __init__(self, model_id: str = "hash-bow-256", dim: int = 256):
        self.model_id = model_id
        self.dim = dim
        self.calls = 0
        self.texts = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                out[row, zlib.crc32(word.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)


def make_episode(index: int, ranks: Sequence[int], termination: TerminationReason = TerminationReason.max_turns,
                 turns: Sequence[int] | None = None, error: str | None = None) -> Episode:
    """An episode whose target sat at `ranks[i]` in turn `turns[i]` (default 1, 2, ...)."""
    turns = list(turns) if turns is not None else list(range(1, len(ranks) + 1))
    return Episode(
        id=f"ep{index}", index=index, config_hash="x", seed=0, environment="single_target",
        termination=termination, error=error,
        rankings=[RankingRecord(turn=t, target_rank=r, n_better=r - 1, n_tied=1, n_candidates=100)
                  for t, r in zip(turns, ranks, strict=True)],
    )


REPO = Path(__file__).resolve().parents[1]
CRSIM = str(Path(sys.executable).parent / "crsim")


def crsim(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([CRSIM, *args], cwd=cwd, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=900)
