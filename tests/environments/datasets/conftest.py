"""Fixture-file writers for the dataset adapter tests (each test writes its files in the real format)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest


def write_lines(path: Path, rows: Iterable[Any]) -> Path:
    """One JSON object per line; a `str` row is written verbatim (that is how malformed lines get in)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows),
                    encoding="utf-8")
    return path


@pytest.fixture
def jsonl() -> Callable[[Path, Iterable[Any]], Path]:
    return write_lines
