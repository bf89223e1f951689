"""Streaming readers for source files: JSON lines, CSV and delimited text, plain or gzipped.

Everything here reads one line at a time, in binary, so memory stays flat however big
the file is (the 1 GB review-file bench checks it) and a row's line number is always
known for error messages. Public datasets ship gzipped (`Books.json.gz`,
`meta_Books.jsonl.gz`); a `.gz` suffix is decompressed on the fly. The progress bar
counts bytes of the file on disk, so it also works for compressed input.
"""

from __future__ import annotations

import csv
import gzip
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import orjson

from environments.datasets.base import RowErrors
from environments.errors import CatalogError

BUFFER = 1 << 20
PROGRESS_EVERY = 8192  # lines between progress-bar updates (tell() is a syscall)


class _Progress:
    """A byte-counting tqdm bar that is free when switched off."""

    def __init__(self, path: Path, enabled: bool):
        self.bar = None
        if enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=path.stat().st_size, unit="B", unit_scale=True, desc=path.name,
                            file=sys.stderr, leave=False, dynamic_ncols=True)
        self.done = 0

    def at(self, position: int) -> None:
        if self.bar is not None:
            self.bar.update(position - self.done)
            self.done = position

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def check_file(path: Path) -> Path:
    path = Path(path).expanduser()
    if not path.is_file():
        raise CatalogError(path, "file not found")
    return path


@contextmanager
def open_binary(path: Path) -> Iterator[tuple[IO[bytes], IO[bytes]]]:
    """(stream of decompressed bytes, underlying file) for `path`, gzip by suffix."""
    raw = check_file(path).open("rb", buffering=BUFFER)
    try:
        if path.suffix == ".gz":
            with gzip.GzipFile(fileobj=raw) as stream:
                yield stream, raw  # type: ignore[misc]
        else:
            yield raw, raw
    finally:
        raw.close()


def iter_lines(path: Path, progress: bool = False) -> Iterator[tuple[int, bytes]]:
    """(line number, raw line) for every line, 1-based."""
    path = check_file(path)
    bar = _Progress(path, progress)
    try:
        with open_binary(path) as (stream, raw):
            line_no = 0
            try:
                for line_no, line in enumerate(stream, start=1):
                    if not line_no % PROGRESS_EVERY:
                        bar.at(raw.tell())
                    yield line_no, line
            except (OSError, EOFError) as exc:  # a truncated or corrupt .gz
                raise CatalogError(path, f"cannot read the file ({exc})", line_no + 1) from None
            bar.at(raw.tell())
    finally:
        bar.close()


def iter_json_objects(path: Path, errors: RowErrors, progress: bool = False) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every JSON-object line; other lines are bad rows.

    This is the hot loop of every review import, so it reads lines itself rather than
    through `iter_lines` (one generator layer less is ~5% of the per-row cost).
    """
    path = check_file(path)
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    bar = _Progress(path, progress)
    try:
        with open_binary(path) as (stream, raw):
            line_no = 0
            try:
                for line_no, line in enumerate(stream, start=1):
                    try:
                        obj = loads(line)
                    except decode_error as exc:
                        if line.strip():
                            errors.bad(path, line_no, None, f"invalid JSON ({str(exc).split(':')[0]})")
                        continue
                    if type(obj) is not dict:
                        errors.bad(path, line_no, None, f"expected a JSON object, got {type(obj).__name__}")
                        continue
                    if not line_no % PROGRESS_EVERY:
                        bar.at(raw.tell())
                    yield line_no, obj
            except (OSError, EOFError) as exc:  # a truncated or corrupt .gz
                raise CatalogError(path, f"cannot read the file ({exc})", line_no + 1) from None
            bar.at(raw.tell())
    finally:
        bar.close()


def iter_json_array(path: Path, errors: RowErrors) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line where the element starts, object) for each element of a file holding one JSON
    array of objects (CRS Arena's releases: `[{...}, {...}]`, pretty-printed).

    The whole file is read (such releases are a few MB); elements are decoded one at a
    time so each is known by the line it starts on. An element that is not an object is a
    bad row; text that is not a JSON array at all is an error about the file, naming the
    line where reading stopped.
    """
    import json

    path = check_file(path)
    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    decoder = json.JSONDecoder()
    whitespace = " \t\r\n"

    def line_at(position: int) -> int:
        return text.count("\n", 0, position) + 1

    def skip(position: int) -> int:
        while position < len(text) and text[position] in whitespace:
            position += 1
        return position

    position = skip(0)
    if position >= len(text) or text[position] != "[":
        raise CatalogError(path, "expected a JSON array of objects ('[' ...)", line_at(position))
    position = skip(position + 1)
    line, counted = 1, 0
    if position < len(text) and text[position] == "]":
        return
    while True:
        line += text.count("\n", counted, position)
        counted = position
        try:
            obj, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise CatalogError(path, f"invalid JSON ({exc.msg})", exc.lineno) from None
        if type(obj) is dict:
            yield line, obj
        else:
            errors.bad(path, line, None, f"expected a JSON object, got {type(obj).__name__}")
        position = skip(end)
        if position < len(text) and text[position] == ",":
            position = skip(position + 1)
            continue
        if position < len(text) and text[position] == "]":
            if skip(position + 1) < len(text):
                raise CatalogError(path, "text after the closing ']'", line_at(skip(position + 1)))
            return
        raise CatalogError(path, "expected ',' or ']' between array elements", line_at(position))


def iter_csv_rows(path: Path, errors: RowErrors, *, delimiter: str = ",", encoding: str = "utf-8",
                  progress: bool = False, required: tuple[str, ...] = (),
                  quoting: int = csv.QUOTE_MINIMAL) -> Iterator[tuple[int, dict[str, str]]]:
    """(first line of the record, {column: value}) per CSV record, header from the first line.

    Quoted fields may span lines (review texts do), so records are parsed by `csv`
    from the decoded line stream; the line number reported is where the record starts.
    A record with the wrong number of columns is a bad row; a missing required column
    is an error about the file. `quoting=csv.QUOTE_NONE` reads files whose quotes are plain
    text (one record per line, as INSPIRED's TSVs are written).
    """
    counter = {"line": 0}

    def lines() -> Iterator[str]:
        for line_no, line in iter_lines(path, progress):
            counter["line"] = line_no
            yield line.decode(encoding, errors="replace")

    reader = csv.reader(lines(), delimiter=delimiter, quoting=quoting)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        raise CatalogError(path, f"unreadable CSV header ({exc})", 1) from None
    header = [name.strip().lstrip("\ufeff") for name in header]
    missing = [name for name in required if name not in header]
    if missing:
        raise CatalogError(path, f"missing column(s) {', '.join(missing)} (header: {', '.join(header)})", 1)
    width = len(header)
    while True:
        start = counter["line"] + 1
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            errors.bad(path, start, None, f"unreadable CSV record ({exc})")
            continue
        if not record or (len(record) == 1 and not record[0].strip()):
            continue
        if len(record) != width:
            errors.bad(path, start, None, f"expected {width} columns, got {len(record)}")
            continue
        yield start, dict(zip(header, record, strict=True))


def iter_delimited(path: Path, separator: bytes, width: int, errors: RowErrors, *, encoding: str = "utf-8",
                   progress: bool = False, header: bool = False) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) for simple delimited files with no quoting (MovieLens' u.data, *.dat)."""
    for line_no, line in iter_lines(path, progress):
        if header and line_no == 1:
            continue
        line = line.rstrip(b"\r\n")
        if not line:
            continue
        parts = line.split(separator) if separator else line.split()
        if len(parts) < width:
            shown = f"'{separator.decode()}'" if separator else "whitespace"
            errors.bad(path, line_no, None, f"expected {width} fields separated by {shown}, got {len(parts)}")
            continue
        yield line_no, [part.decode(encoding, errors="replace") for part in parts]


def is_csv(path: Path) -> bool:
    """CSV/TSV by suffix (ignoring .gz); everything else is read as JSON lines."""
    suffixes = [s.lower() for s in Path(path).suffixes if s.lower() != ".gz"]
    return bool(suffixes) and suffixes[-1] in {".csv", ".tsv"}


def csv_delimiter(path: Path) -> str:
    suffixes = [s.lower() for s in Path(path).suffixes if s.lower() != ".gz"]
    return "\t" if suffixes and suffixes[-1] == ".tsv" else ","
