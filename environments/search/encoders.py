"""Which sentence encoder a name selects: the one place that knows every encoder kind.

`embedding_model=` (and every `get_encoder(...)`) names the packaged MiniLM (None), its
int8 ONNX twin (`minilm-int8`, `onnx_embeddings`), MiniLM with int8 products built once
per machine (`minilm-q8`, `quantized_minilm`), a static token table distilled from it
(`static`, `static_embeddings`) or a sentence-transformers directory. The encoder modules
build on `embeddings.TextEncoder` and never import this one back, so selection is not
tangled with the encoders it selects.
"""

from __future__ import annotations

import threading
from pathlib import Path

from environments.search.embeddings import TextEncoder

_ENCODERS: dict[str | None, TextEncoder] = {}
_ENCODERS_LOCK = threading.Lock()


def get_encoder(model: str | Path | None = None) -> TextEncoder:
    """The process-wide encoder for `model` (None: the packaged MiniLM; "static": a static
    token-table model distilled from it, see `static_embeddings`; "minilm-int8": MiniLM as int8
    ONNX, see `onnx_embeddings`; "minilm-q8": MiniLM with int8 products, see `quantized_minilm`);
    created once."""
    key: str | None = None
    if model in ("static", "minilm-int8", "minilm-q8"):
        with _ENCODERS_LOCK:
            if model not in _ENCODERS:
                _ENCODERS[model] = _named_encoder(model)
            return _ENCODERS[model]
    if model is not None:
        path = Path(model).expanduser()
        key = str(path.resolve()) if path.exists() else str(model)
    with _ENCODERS_LOCK:
        encoder = _ENCODERS.get(key)
        if encoder is None:
            encoder = _ENCODERS[key] = TextEncoder(key)
        return encoder


def _named_encoder(name: str) -> TextEncoder:
    if name == "static":
        from environments.search.static_embeddings import StaticEncoder

        return StaticEncoder()
    if name == "minilm-q8":
        from environments.search.quantized_minilm import QuantizedMiniLM

        return QuantizedMiniLM()
    from environments.search.onnx_embeddings import OnnxEncoder, _version

    _version()  # a missing extra is a one-line error here, not an ImportError at the first turn
    return OnnxEncoder()
