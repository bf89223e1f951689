"""Writing a catalog directory so that an interrupted import leaves nothing half-written.

All files go into a staging directory next to the target (`.<name>.importing-XXXX`);
only when every file is complete and the manifest written is it renamed into place (a
directory rename on the same file system is atomic). A crash, Ctrl-C or a bad row
removes the staging directory. Scratch space (the users' spill database) lives inside
it and is deleted before the rename.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson
from pydantic import BaseModel

from environments.catalog.store import ITEMS, MANIFEST, REVIEWS, USERS
from environments.errors import CrsimError
from environments.models import CATALOG_SCHEMA_VERSION, CatalogManifest

_DUMPS = orjson.dumps
_NEWLINE = orjson.OPT_APPEND_NEWLINE


class JsonlSink:
    """An open JSONL file in the staging directory, counting its rows."""

    def __init__(self, path: Path):
        self.path = path
        self.count = 0
        self._handle = path.open("wb", buffering=1 << 20)

    @property
    def handle(self) -> Any:
        """The open binary file, for hot loops that serialise and count rows themselves."""
        return self._handle

    def write(self, row: dict[str, Any]) -> None:
        """One row from a plain dict (the fast path; the caller guarantees the schema)."""
        self._handle.write(_DUMPS(row, option=_NEWLINE))
        self.count += 1

    def write_model(self, row: BaseModel) -> None:
        self._handle.write(row.model_dump_json().encode())
        self._handle.write(b"\n")
        self.count += 1

    def write_raw(self, line: bytes) -> None:
        """An already-serialised row (ending without a newline)."""
        self._handle.write(line)
        self._handle.write(b"\n")
        self.count += 1

    def close(self) -> None:
        if not self._handle.closed:
            self._handle.close()


class CatalogWriter:
    """Stage a catalog directory and move it into place on `commit`.

    Use as a context manager: leaving the block with an exception removes the staging
    directory. `items.jsonl`, `reviews.jsonl` and `users.jsonl` are always created (maybe
    empty) so every imported catalog has the same layout; other files only when used.
    """

    ALWAYS = (ITEMS, REVIEWS, USERS)

    def __init__(self, out: Path, *, force: bool = False):
        self.out = Path(out).expanduser()
        if self.out.exists() and not force:
            if not self.out.is_dir() or any(self.out.iterdir()):
                raise CrsimError(f"{self.out} already exists; choose another --out or pass --force to replace it")
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.staging = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.importing-", dir=self.out.parent))
        self.scratch = self.staging / ".scratch"
        self.scratch.mkdir()
        self._sinks: dict[str, JsonlSink] = {}
        for name in self.ALWAYS:
            self.sink(name)

    def sink(self, filename: str) -> JsonlSink:
        if filename not in self._sinks:
            self._sinks[filename] = JsonlSink(self.staging / filename)
        return self._sinks[filename]

    def counts(self) -> dict[str, int]:
        """Rows per file, keyed by file stem ('items', 'reviews', ..., 'dialogues')."""
        return {Path(name).stem: sink.count for name, sink in self._sinks.items()}

    def commit(self, manifest: CatalogManifest) -> CatalogManifest:
        """Close every file, write `catalog.json` with the counts and move the directory into place."""
        for sink in self._sinks.values():
            sink.close()
        shutil.rmtree(self.scratch, ignore_errors=True)
        manifest = manifest.model_copy(update={"counts": self.counts(), "schema_version": CATALOG_SCHEMA_VERSION})
        (self.staging / MANIFEST).write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
        old = None
        if self.out.exists():
            old = self.out.with_name(f".{self.out.name}.replaced-{os.getpid()}")
            os.replace(self.out, old)
        os.replace(self.staging, self.out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True) if old.is_dir() else old.unlink()
        return manifest

    def abort(self) -> None:
        for sink in self._sinks.values():
            sink.close()
        shutil.rmtree(self.staging, ignore_errors=True)

    def __enter__(self) -> CatalogWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self.staging.exists():  # an exception, or the block ended without commit()
            self.abort()


def commit_import(writer: CatalogWriter, *, format_name: str, domain: str, item_noun: str, options: Any,
                  sources: list[Path], errors: Any, started: float, rows_read: int = 0,
                  filtered: dict[str, int] | None = None, extra: dict[str, Any] | None = None) -> Any:
    """Write the manifest (what was imported from where, with which options), move the
    catalog into place and return the `ImportReport`."""
    import time

    from environments.datasets.base import ImportReport

    filtered = {reason: count for reason, count in (filtered or {}).items() if count}
    manifest = CatalogManifest(
        name=options.name or writer.out.name, domain=domain, item_noun=item_noun, source=format_name,
        extra={"import": {"format": format_name, "sources": [str(p) for p in sources],
                          "options": options.recorded(), "filtered": filtered,
                          "skipped_bad_rows": errors.skipped, "problems": list(errors.problems),
                          **(extra or {})}},
    )
    manifest = writer.commit(manifest)
    return ImportReport(format=format_name, out=str(writer.out), sources=[str(p) for p in sources],
                        counts=manifest.counts, rows_read=rows_read, filtered=filtered,
                        skipped=errors.skipped, problems=list(errors.problems),
                        seconds=round(time.perf_counter() - started, 3))
