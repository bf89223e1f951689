"""A static embedding model distilled from the packaged MiniLM: one vector per vocabulary token.

Embedding a catalog's reviews or snippets with MiniLM runs at ~20-300 texts/s on two cores
(a 47k-review catalog takes half an hour); a static model looks each token's vector up and
averages them, tens of thousands of texts per second. It is built once per machine,
offline, from the MiniLM weights already installed:

1. every WordPiece token (without `[unused*]` and the special tokens) goes through MiniLM
   on its own (`[CLS] token [SEP]`, mean-pooled as MiniLM pools sentences);
2. PCA keeps 256 dimensions (the distilled model of Model2Vec's recipe; most of MiniLM's
   variance, and smaller rows for the faiss index);
3. each token is weighted by SIF, a / (a + p(token)) with p from Zipf's law over the
   vocabulary order (BERT vocabularies list frequent words first), so "the" and "," weigh
   almost nothing.

A text's vector is the mean of its tokens' rows, L2-normalised. It knows no word order, so
it reads "not noisy" much like "noisy": measure retrieval quality before choosing it
(`scripts/bench_sniprec.py`). The table is cached under `$CRSIM_CACHE_DIR/models/`.
"""

from __future__ import annotations

import re
import threading
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from environments.search.cache import cache_dir_for, content_key, write_file_atomic
from environments.search.dense import save_npy
from environments.search.embeddings import (
    BULK_THREADS, DEFAULT_MEMO_SIZE, DEFAULT_MODEL_PACKAGE, TextEncoder, _default_model_path, torch_threads,
    unit_rows,
)

STATIC_MODEL = "static"  # the name `get_encoder` and `embedding_model=` accept
PCA_DIMS = 256
SIF_COEFFICIENT = 1e-4
DISTILL_BATCH = 512
_SKIPPED_TOKEN = re.compile(r"^\[(?:unused\d+|PAD|CLS|SEP|MASK)\]$")


def distill(source: Path, *, pca_dims: int = PCA_DIMS, sif: float = SIF_COEFFICIENT) -> np.ndarray:
    """The token table distilled from `source`, a sentence-transformers directory."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(source), device="cpu")
    return distill_transformer(model[0].auto_model, model.tokenizer, pca_dims=pca_dims, sif=sif)


def distill_transformer(transformer: Any, tokenizer: Any, *, pca_dims: int = PCA_DIMS,
                        sif: float = SIF_COEFFICIENT) -> np.ndarray:
    """Vocabulary size × `pca_dims` float32 rows, one per token id of `tokenizer` (a Hugging
    Face tokenizer), from `transformer` (its encoder); rows of skipped tokens are zero."""
    import torch
    from sklearn.decomposition import PCA

    vocab: dict[str, int] = tokenizer.get_vocab()
    kept = np.array(sorted(i for token, i in vocab.items() if not _SKIPPED_TOKEN.match(token)), dtype=np.int64)
    pooled = np.zeros((len(kept), transformer.config.hidden_size), dtype=np.float32)
    with torch_threads(BULK_THREADS), torch.inference_mode():
        for start in range(0, len(kept), DISTILL_BATCH):
            ids = torch.from_numpy(kept[start:start + DISTILL_BATCH])[:, None]
            batch = torch.cat([torch.full_like(ids, tokenizer.cls_token_id), ids,
                               torch.full_like(ids, tokenizer.sep_token_id)], dim=1)
            hidden = transformer(input_ids=batch, attention_mask=torch.ones_like(batch)).last_hidden_state
            pooled[start:start + len(ids)] = hidden.mean(dim=1).numpy()
    reduced = PCA(n_components=min(pca_dims, *pooled.shape), random_state=0).fit_transform(pooled)
    inverse_rank = 1.0 / np.arange(2, len(kept) + 2)
    weights = sif / (sif + inverse_rank / inverse_rank.sum())
    table = np.zeros((len(vocab), reduced.shape[1]), dtype=np.float32)
    table[kept] = reduced * weights[:, None]
    return table


class StaticEncoder(TextEncoder):
    """`TextEncoder`'s memo and interface over a distilled token table instead of MiniLM."""

    batch_invariant = True  # a row is its tokens' summed table rows, whatever else is in the batch

    def __init__(self, cache_dir: Path | str | None = None, *, memo_size: int = DEFAULT_MEMO_SIZE):
        super().__init__(STATIC_MODEL, memo_size=memo_size)
        self._cache_dir = cache_dir
        self._table_lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return f"static-pca{PCA_DIMS}-v1:{DEFAULT_MODEL_PACKAGE}=={metadata.version(DEFAULT_MODEL_PACKAGE)}"

    def table_path(self) -> Path:
        return cache_dir_for("models", self._cache_dir) / f"{content_key(self.model_id)}.npy"

    def _load(self) -> Any:
        with self._table_lock:
            if self._model is None:
                from tokenizers import Tokenizer

                source = _default_model_path()
                path = self.table_path()
                if not path.exists():
                    table = distill(source)
                    write_file_atomic(path, lambda tmp: save_npy(tmp, table))
                table = np.load(path, allow_pickle=False)
                tokenizer = Tokenizer.from_file(str(source / "tokenizer.json"))
                tokenizer.no_truncation()
                tokenizer.no_padding()
                self._dim = int(table.shape[1])
                self._model = (tokenizer, table)
        return self._model

    def _forward(self, model: Any, texts: list[str], show_progress: bool = False, *,
                 bulk: bool = False) -> np.ndarray:
        tokenizer, table = model
        self.model_calls += 1
        self.encoded_texts += len(texts)
        encodings = tokenizer.encode_batch(list(texts), add_special_tokens=False)
        lengths = np.array([len(encoding.ids) for encoding in encodings])
        ids = np.fromiter((i for encoding in encodings for i in encoding.ids), dtype=np.int64, count=int(lengths.sum()))
        vectors = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
        nonempty = lengths > 0
        if ids.size:
            starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])[nonempty]
            vectors[nonempty] = np.add.reduceat(table[ids], starts, axis=0)
        return unit_rows(vectors)
