"""Shared fixtures: a small hand-written catalog and a cheap deterministic text encoder.

The tiny catalog is small enough to reason about in a test (which item should BM25
find?) and needs no model. `HashEncoder` stands in for sentence embeddings where a test
checks control flow rather than semantics: bag-of-words vectors, normalised, so cosine
similarity is word overlap.
"""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from environments.catalog import Catalog  # noqa: E402
from environments.models import CatalogManifest, Item, Review, SeenItem, UserProfile  # noqa: E402

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
    """Bag-of-words hashing encoder with the `TextEncoder.encode` contract."""

    model_id = "hash-bow-256"

    def __init__(self, dim: int = 256):
        self.dim = dim
        self.calls = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                out[row, zlib.crc32(word.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)


@pytest.fixture(scope="session", autouse=True)
def crsim_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache (worlds, indexes) per test session, never the user's own."""
    path = Path(os.environ.get("CRSIM_TEST_CACHE_DIR") or tmp_path_factory.mktemp("crsim-cache"))
    os.environ["CRSIM_CACHE_DIR"] = str(path)
    return path


@pytest.fixture
def tiny_catalog() -> Catalog:
    return make_tiny_catalog()


@pytest.fixture
def tiny_catalog_dir(tmp_path: Path) -> Path:
    return make_tiny_catalog().save(tmp_path / "tiny")


@pytest.fixture
def hash_encoder() -> HashEncoder:
    return HashEncoder()
