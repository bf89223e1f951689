"""Chat-model backends named by `conf/llm/*.yaml`. The remote ones arrive with the backends issue."""

from __future__ import annotations


def offline() -> None:
    """`llm=offline`: no chat model; language steps use their offline implementations."""
    return None
