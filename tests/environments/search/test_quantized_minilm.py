"""MiniLM with int8 products (`embedding_model=minilm-q8`): built once per cache, a text's
row its own whatever it is encoded with, and close enough to the full MiniLM that the
neighbours agree."""

from __future__ import annotations

import numpy as np
import pytest
from crsim_testing import ENCODER_QUERIES as QUERIES
from crsim_testing import ENCODER_TEXTS as TEXTS

from environments.errors import CrsimError
from environments.search import quantized_minilm
from environments.search.encoders import get_encoder
from environments.search.quantized_minilm import QuantizedMiniLM


@pytest.fixture(scope="module")
def encoder(tmp_path_factory: pytest.TempPathFactory) -> QuantizedMiniLM:
    return QuantizedMiniLM(tmp_path_factory.mktemp("q8-cache"))


def test_vectors_are_close_to_the_full_minilm_and_find_the_same_neighbours(encoder):
    q8, full = encoder.encode_uncached(TEXTS), get_encoder(None).encode(TEXTS)
    assert q8.shape == full.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(q8, axis=1), 1.0, atol=1e-5)
    assert (q8 * full).sum(axis=1).min() > 0.97  # activations quantised per tensor: ~0.99 on average
    nearest_q8 = (encoder.encode(QUERIES) @ q8.T).argmax(axis=1).tolist()
    nearest_full = (get_encoder(None).encode(QUERIES) @ full.T).argmax(axis=1).tolist()
    assert nearest_q8 == nearest_full and len(set(nearest_q8)) >= 4


def test_a_texts_row_is_its_own_alone_in_bulk_and_on_any_thread_count(encoder, monkeypatch):
    texts = TEXTS * 12 + [f"review number {i} says the soup was {'hot' if i % 2 else 'cold'}" for i in range(90)]
    calls: list[int] = []
    monkeypatch.setattr(quantized_minilm, "BULK_THREADS", 2)
    two = encoder.encode_uncached(texts, progress=calls.append)
    monkeypatch.setattr(quantized_minilm, "BULK_THREADS", 1)
    one = encoder.encode_uncached(texts)
    assert np.array_equal(one, two)
    assert sum(calls) == len(texts) and len(calls) > 1
    encoder.clear_memo()
    alone = np.stack([encoder.encode([text])[0] for text in TEXTS])
    assert np.array_equal(alone, two[:len(TEXTS)])  # per-turn rows are bulk rows: no padding, no batch
    assert np.array_equal(two[:len(TEXTS)], two[len(TEXTS):2 * len(TEXTS)])
    assert QuantizedMiniLM.batch_invariant


def test_the_graph_is_built_once_per_cache(encoder, monkeypatch):
    encoder.encode(["warm up"])
    path = encoder.graph_path()
    assert path.exists() and path.stat().st_size > 10_000_000  # int8 weights: ~23 MB, not float32's 90

    def fail(target):
        raise AssertionError("rebuilt a cached graph")

    monkeypatch.setattr(quantized_minilm, "build_graph_in_child", fail)
    again = QuantizedMiniLM(path.parent.parent)
    assert np.array_equal(again.encode(TEXTS), encoder.encode_uncached(TEXTS))


def test_selected_by_name_with_a_key_of_its_own():
    encoder = get_encoder("minilm-q8")
    assert isinstance(encoder, QuantizedMiniLM) and encoder is get_encoder("minilm-q8")
    assert encoder.model_id.startswith("minilm-q8-v") and encoder.model_id != get_encoder("minilm-int8").model_id


def test_a_failed_build_is_a_one_line_error(tmp_path, monkeypatch):
    monkeypatch.setattr(quantized_minilm, "__name__", "environments.search.no_such_module")
    with pytest.raises(CrsimError, match="building the minilm-q8 graph failed .*No module named"):
        QuantizedMiniLM(tmp_path).encode(["x"])
    assert not list((tmp_path / "models").glob("*.onnx"))  # nothing half-written is left to load
