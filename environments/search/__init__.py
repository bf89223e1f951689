"""Search indexes over a catalog: BM25, dense embeddings, EASE, titles, attribute filters.

Exports resolve lazily (PEP 562), so `import environments.search` costs nothing: bm25s
pulls in numba (~0.5 s), faiss ~0.3 s, and sentence-transformers 7-16 s, and a run that
does not search should not pay for them. The heavy libraries themselves are imported
inside the functions that need them.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from environments.search.bm25 import BM25Index
    from environments.search.dense import DenseIndex
    from environments.search.ease import EaseIndex
    from environments.search.embeddings import TextEncoder
    from environments.search.encoders import get_encoder
    from environments.search.filters import AttributeFilter
    from environments.search.titles import TitleIndex

__all__ = ["AttributeFilter", "BM25Index", "DenseIndex", "EaseIndex", "TextEncoder", "TitleIndex", "get_encoder"]

_WHERE = {
    "AttributeFilter": "environments.search.filters",
    "BM25Index": "environments.search.bm25",
    "DenseIndex": "environments.search.dense",
    "EaseIndex": "environments.search.ease",
    "TitleIndex": "environments.search.titles",
    "TextEncoder": "environments.search.embeddings",
    "get_encoder": "environments.search.encoders",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
