"""What every dataset adapter shares: options, the import report, bad-row handling, the format spec.

An adapter turns files a user downloaded into a catalog directory. It must never leave
a half-written catalog, never silently drop a malformed row, and never grow its memory
with the size of the review file. The pieces here encode the second rule: a row that
does not validate raises `BadRow` inside the adapter's loop; `RowErrors.bad` turns it
into a `CatalogError` naming file, line and field (the default), or, with `skip_bad`,
counts it and keeps the first few descriptions for the report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from environments.errors import CatalogError

#: How many bad-row descriptions a report keeps (the count covers all of them).
MAX_PROBLEMS = 10


class ImportOptions(BaseModel):
    """Options every format takes. Formats subclass this with their own fields.

    The CLI builds one `--flag` per field of the subclass from its type, default and
    description, so a format's options are documented in exactly one place.
    """

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, description="Catalog name (default: the output directory's name).")
    skip_bad: bool = Field(default=False, description=(
        "Skip malformed rows and count them instead of stopping at the first."))
    force: bool = Field(default=False, description="Replace the output directory if it already exists.")
    progress: bool = Field(default=False, description="Show a progress bar on stderr.")

    #: Fields of this base class: execution settings, not recorded with the catalog's options.
    COMMON: ClassVar[tuple[str, ...]] = ("name", "skip_bad", "force", "progress")

    def recorded(self) -> dict[str, Any]:
        """The format-specific options, as written into the manifest (paths as strings)."""
        return self.model_dump(mode="json", exclude=set(self.COMMON))


class ImportReport(BaseModel):
    """What an import did: rows written per file, rows left out and why, bad rows skipped."""

    model_config = ConfigDict(extra="forbid")

    format: str = Field(description="Adapter name, e.g. 'yelp'.")
    out: str = Field(description="The catalog directory written.")
    sources: list[str] = Field(default_factory=list, description="Input files, as given.")
    counts: dict[str, int] = Field(default_factory=dict, description="Rows per catalog file (items, reviews, ...).")
    rows_read: int = Field(default=0, description=(
        "Source rows read from the main stream (reviews, ratings, dialogues)."))
    filtered: dict[str, int] = Field(default_factory=dict, description="Rows left out on purpose, by reason.")
    skipped: int = Field(default=0, description="Malformed rows skipped (only with skip_bad).")
    problems: list[str] = Field(default_factory=list, description="The first skipped rows: 'file:line field: message'.")
    seconds: float = Field(default=0.0, description="Wall-clock time of the import.")


class BadRow(Exception):
    """Raised by field checks inside an adapter's loop; the loop adds file and line."""

    def __init__(self, field_name: str | None, message: str):
        super().__init__(message)
        self.field = field_name
        self.message = message


class RowErrors:
    """Routes bad rows: raise at the first one, or count them and keep a few for the report."""

    def __init__(self, skip_bad: bool, keep: int = MAX_PROBLEMS):
        self.skip_bad = skip_bad
        self.keep = keep
        self.skipped = 0
        self.problems: list[str] = []

    def bad(self, path: Path | str, line: int | None, field_name: str | None, message: str) -> None:
        """Report one bad row: raises `CatalogError` unless bad rows are being skipped."""
        if not self.skip_bad:
            raise CatalogError(path, message, line, field_name)
        self.skipped += 1
        if len(self.problems) < self.keep:
            where = f"{Path(path).name}:{line}" if line is not None else Path(path).name
            if field_name:
                where += f" field '{field_name}'"
            self.problems.append(f"{where}: {message}")

    def row(self, path: Path | str, line: int | None, exc: BadRow) -> None:
        self.bad(path, line, exc.field, exc.message)


@dataclass(frozen=True, slots=True)
class PathArg:
    """One positional input of a format (e.g. yelp's business.json)."""

    name: str
    help: str
    many: bool = False  # one or more files


Importer = Callable[[Mapping[str, Any], Path, ImportOptions], ImportReport]


@dataclass(frozen=True, slots=True)
class DatasetFormat:
    """A format as the CLI sees it: its inputs, its options model and the function that imports."""

    name: str
    summary: str
    paths: Sequence[PathArg]
    options: type[ImportOptions]
    run: Importer
    notes: str = ""

    def __call__(self, paths: Mapping[str, Any], out: Path, options: ImportOptions | None = None) -> ImportReport:
        return self.run(paths, Path(out), options or self.options())
