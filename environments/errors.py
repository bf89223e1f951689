"""User-facing errors: each says what is wrong and where, so the CLI can print one line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path


class CrsimError(Exception):
    """An error caused by input or configuration, reported without a traceback."""


class CatalogError(CrsimError):
    """A catalog file is missing or malformed; names the file, line and field."""

    def __init__(self, path: Path | str, message: str, line: int | None = None, field: str | None = None):
        self.path = Path(path)
        self.line = line
        self.field = field
        where = str(self.path)
        if line is not None:
            where += f", line {line}"
        if field:
            where += f", field '{field}'"
        super().__init__(f"{where}: {message}")


def causes(exc: BaseException) -> Iterator[BaseException]:
    """`exc` and what it wraps (`__cause__`, else `__context__`), outermost first.

    Libraries wrap errors (Hydra wraps a factory's exception, langchain-openai wraps the
    openai SDK's); callers that care about the original look through the chain.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        yield current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
