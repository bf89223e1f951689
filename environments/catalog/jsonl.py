"""Reading and writing JSONL files of pydantic models with errors that point at the line."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from environments.errors import CatalogError

M = TypeVar("M", bound=BaseModel)


def _field_path(loc: tuple) -> str:
    return ".".join(str(part) for part in loc) or "(row)"


def iter_jsonl(path: Path, model: type[M]) -> Iterator[M]:
    """Yield one validated model per non-blank line; raise `CatalogError` at the first bad one."""
    path = Path(path)
    if not path.exists():
        raise CatalogError(path, "file not found")
    with path.open("r", encoding="utf-8") as handle:
        for line_no, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                data = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise CatalogError(path, f"invalid JSON ({exc.msg} at column {exc.colno})", line_no) from None
            if not isinstance(data, dict):
                raise CatalogError(path, f"expected a JSON object, got {type(data).__name__}", line_no)
            try:
                yield model.model_validate(data)
            except ValidationError as exc:
                first = exc.errors()[0]
                raise CatalogError(path, first["msg"], line_no, _field_path(first["loc"])) from None


def read_jsonl(path: Path, model: type[M]) -> list[M]:
    return list(iter_jsonl(path, model))


def write_jsonl(path: Path, rows: Iterable[BaseModel]) -> int:
    """Write rows to a temporary file and rename it into place, so readers never see half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    count = 0
    with tmp.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(row.model_dump_json(exclude_defaults=False))
            handle.write("\n")
            count += 1
    os.replace(tmp, path)
    return count
