"""MiniLM with int8 matrix products: the encoder for bulk jobs that must run at >= 1,000 texts/s.

`minilm-int8` (`onnx_embeddings`) stores int8 weights but onnxruntime folds them back to
float32 when it loads the graph, so every product is a float32 one. This encoder builds,
once per machine, a graph whose products really are int8: the packaged MiniLM exported
from torch, its attention, GELU and layer norms fused by onnxruntime's transformer
optimizer, then dynamically quantised (int8 weights per output channel, activations
quantised per tensor at run time: `DynamicQuantizeMatMul`, `QAttention`). On two cores
with AVX512-VNNI that is ~1,350 review sentences/s (against ~600-900/s), and a one-text
pass takes ~1.4 ms instead of ~4.7 ms (docs/reference/search.md has the measurements).

Activations quantised per tensor make a row depend on everything in its tensor, padding
included, so texts never share a pass: each text runs alone, unpadded. Its row then
depends only on the text (`batch_invariant`), per-turn rows equal bulk rows, and bulk
throughput comes from two passes at a time on two Python threads (onnxruntime releases
the GIL), which beat padded batches here. What quantised activations cost: rows are
within cosine ~0.99 of the full MiniLM's (the `minilm-int8` ones within 0.9994); what that
does to retrieval is measured by the fidelity bench's dense row.

The int8 kernels differ between CPUs (VNNI, AVX2 without it), so rows are reproducible
on one machine, not bitwise across machines; the same holds for float32 kernels.
"""

from __future__ import annotations

import logging
import tempfile
import threading
import warnings
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from environments.errors import CrsimError
from environments.search.cache import cache_dir_for, content_key, write_file_atomic
from environments.search.embeddings import (
    BULK_THREADS, DEFAULT_MEMO_SIZE, DEFAULT_MODEL_PACKAGE, TextEncoder, _default_model_path, run_parts,
    unit_rows,
)

QUANTIZED_MODEL = "minilm-q8"  # the name `get_encoder` and `embedding_model=` accept
GRAPH_VERSION = 2  # bump when `build_graph` changes: the graph's file and every matrix key move
MAX_TOKENS = 256  # MiniLM's own limit, as the other MiniLM encoders truncate
HIDDEN, HEADS = 384, 12
CHUNK = 64  # texts a thread tokenises and runs before reporting progress
# onnxruntime's CPU SkipLayerNormalization kernel took 28% of a pass here, the Add and
# LayerNormalization it replaces 6%: one pass of a 60-word-piece text 4.1 -> 3.3 ms.
UNFUSED = ["SkipLayerNormFusion"]


class QuantizedMiniLM(TextEncoder):
    """`TextEncoder`'s memo and interface over MiniLM with int8 products, one text per pass."""

    batch_invariant = True  # every text runs alone and unpadded: its row depends on nothing else

    def __init__(self, cache_dir: Path | str | None = None, *, memo_size: int = DEFAULT_MEMO_SIZE):
        super().__init__(QUANTIZED_MODEL, memo_size=memo_size)
        self._cache_dir = cache_dir
        self._load_lock = threading.Lock()

    @property
    def model_id(self) -> str:
        """Names what decides the graph's bytes: the source model and the tools that build it."""
        return (f"{QUANTIZED_MODEL}-v{GRAPH_VERSION}:{DEFAULT_MODEL_PACKAGE}=={metadata.version(DEFAULT_MODEL_PACKAGE)}"
                f":torch=={metadata.version('torch')}:onnxruntime=={metadata.version('onnxruntime')}")

    def graph_path(self) -> Path:
        return cache_dir_for("models", self._cache_dir) / f"{content_key(self.model_id)}.onnx"

    def _load(self) -> Any:
        with self._load_lock:
            if self._model is None:
                import onnxruntime
                from tokenizers import Tokenizer

                path = self.graph_path()
                if not path.exists():
                    write_file_atomic(path, build_graph_in_child)
                tokenizer = Tokenizer.from_file(str(_default_model_path() / "tokenizer.json"))
                tokenizer.enable_truncation(MAX_TOKENS)
                tokenizer.no_padding()
                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = 1  # parallelism is across texts (see module docstring)
                options.inter_op_num_threads = 1
                session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"],
                                                       disabled_optimizers=UNFUSED)
                self._model = (tokenizer, session)
                self._dim = HIDDEN
        return self._model

    def _forward(self, model: Any, texts: list[str], show_progress: bool = False, *,
                 bulk: bool = False) -> np.ndarray:
        return self._rows(model, texts, threads=1)  # memo misses, per turn; bulk lists: encode_uncached

    def encode_uncached(self, texts: Sequence[str], *, show_progress: bool = False,
                        progress: Callable[[int], object] | None = None) -> np.ndarray:
        """Bulk rows for a fixed list, `BULK_THREADS` passes at a time; `progress(n)` as rows
        finish (`show_progress` is accepted for `TextEncoder`'s signature; callers own the bar)."""
        texts = list(texts)
        if not texts:
            return self._empty()
        return self._rows(self._load(), texts, threads=BULK_THREADS, progress=progress)

    def _rows(self, model: Any, texts: list[str], *, threads: int,
              progress: Callable[[int], object] | None = None) -> np.ndarray:
        tokenizer, session = model
        self.model_calls += 1
        self.encoded_texts += len(texts)
        rows = np.zeros((len(texts), HIDDEN), dtype=np.float32)

        def run(start: int) -> int:
            chunk = texts[start:start + CHUNK]
            for offset, encoding in enumerate(tokenizer.encode_batch(chunk)):
                ids = np.array([encoding.ids], dtype=np.int64)
                hidden = session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids),
                                            "token_type_ids": np.zeros_like(ids)})[0]
                rows[start + offset] = hidden[0].mean(axis=0)
            return len(chunk)

        run_parts(run, range(0, len(texts), CHUNK), threads, progress)
        return unit_rows(rows)


def build_graph_in_child(target: Path) -> None:
    """`build_graph` in a child process: the export loads torch and the full model (~0.5 GB),
    which a run that only needs the int8 graph should not keep for the rest of its life."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", __name__, str(target)], capture_output=True, text=True)
    if done.returncode != 0:
        raise CrsimError(f"building the {QUANTIZED_MODEL} graph failed (embedding_model=minilm-int8 needs no "
                         f"build): {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}")


def build_graph(target: Path) -> None:
    """Write the int8-product MiniLM graph to `target` (~5 s on two cores, once per machine).

    torch's TorchScript exporter gives the standard BERT graph the transformer optimizer
    recognises (fused attention, embedding layer norm, bias-GELU; skip layer norms are left
    unfused, see `UNFUSED`); the dynamo exporter's graph does not fuse. Weights are
    quantised per output channel, symmetric int8; activations at run time."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.optimizer import optimize_model
    from transformers import AutoModel

    bert = AutoModel.from_pretrained(str(_default_model_path()), attn_implementation="eager").eval()

    class LastHiddenState(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    names = ["input_ids", "attention_mask", "token_type_ids"]
    example = torch.ones(1, 8, dtype=torch.long)
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantiser advises pre-processing on the root logger, for image models
    try:
        with tempfile.TemporaryDirectory(prefix="crsim-minilm-q8-") as scratch, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the exporter's notes on traced control flow and deprecations
            exported, fused = Path(scratch) / "fp32.onnx", Path(scratch) / "fused.onnx"
            with torch.no_grad():
                torch.onnx.export(LastHiddenState(), (example, torch.ones_like(example), torch.zeros_like(example)),
                                  str(exported), input_names=names, output_names=["last_hidden_state"],
                                  dynamic_axes={name: {0: "batch", 1: "tokens"}
                                                for name in [*names, "last_hidden_state"]},
                                  opset_version=17, dynamo=False)
            fusions = FusionOptions("bert")
            fusions.enable_skip_layer_norm = False  # see UNFUSED
            optimize_model(str(exported), model_type="bert", num_heads=HEADS, hidden_size=HIDDEN,
                           optimization_options=fusions).save_model_to_file(str(fused))
            # DefaultTensorType 1 (float): for the tensors the fused operators hide from shape inference
            quantize_dynamic(str(fused), str(target), per_channel=True, weight_type=QuantType.QInt8,
                             extra_options={"DefaultTensorType": 1})
    finally:
        root.setLevel(level)


if __name__ == "__main__":
    import sys

    build_graph(Path(sys.argv[1]))
