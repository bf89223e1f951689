"""Where search indexes and embedding matrices are cached on disk, and how they get there.

Building a BM25 index or embedding a catalog takes seconds to minutes, so both are kept
under a per-user cache directory keyed by content hashes. Several worker processes may
build the same entry at once, so every entry is written to a temporary sibling first and
moved into place with `os.replace`: a reader sees either no entry or a complete one,
never a half-written file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

CACHE_ENV = "CRSIM_CACHE_DIR"


def cache_root() -> Path:
    """`$CRSIM_CACHE_DIR` if set, else `~/.cache/crsim` (not created here)."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "crsim"


def cache_dir_for(kind: str, cache_dir: Path | str | None = None) -> Path:
    """The directory holding entries of one kind (`bm25`, `dense`), created if missing."""
    base = Path(cache_dir).expanduser() if cache_dir is not None else cache_root()
    directory = base / kind
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def content_key(*parts: str, length: int = 24) -> str:
    """A short, filename-safe hash of the given strings (order matters)."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()[:length]


def write_file_atomic(path: Path, write: Callable[[Path], None]) -> Path:
    """Call `write(tmp_path)` and move the result to `path` in one step.

    The temporary file lives in the same directory so `os.replace` is a rename on one
    file system (atomic), not a copy.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def write_dir_atomic(path: Path, write: Callable[[Path], None]) -> Path:
    """Call `write(tmp_dir)` to fill a fresh directory, then move it to `path`.

    If another process finished the same entry first, `os.replace` refuses to replace a
    non-empty directory; theirs is kept (same key, same content) and ours is discarded.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        write(tmp)
        try:
            os.replace(tmp, path)
        except OSError:
            if not path.is_dir():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return path
