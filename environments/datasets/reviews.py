"""The review stream shared by the review-based formats (Yelp, Amazon, IMDb-style reviews).

Each source row is checked and mapped by a format's `parse` function, which returns
either the `Review`-shaped dict to keep or a short reason why the row is left out (not
in the selected city, no metadata...). Kept reviews go straight to `reviews.jsonl`
and to the users' spill; only a per-item count stays in memory (it grows with the
number of items, not of reviews).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

from environments.catalog.store import REVIEWS, USERS
from environments.datasets.base import BadRow, RowErrors
from environments.datasets.seen import Preferences, SeenSpill
from environments.datasets.writer import CatalogWriter

#: A format's row mapper: the Review-shaped dict to keep, or the reason it is left out.
ParseReview = Callable[[dict[str, Any]], "dict[str, Any] | str"]
SPILL_BATCH = 50_000


class ReviewStream:
    """Write kept reviews as they come; remember only how many each item got."""

    def __init__(self, writer: CatalogWriter, errors: RowErrors):
        self.writer = writer
        self.errors = errors
        self.sink = writer.sink(REVIEWS)
        self.spill = SeenSpill(writer.scratch)
        self.per_item: Counter[str] = Counter()
        self.filtered: Counter[str] = Counter()
        self.rows_read = 0

    def consume(self, path: Path, rows: Iterable[tuple[int, dict[str, Any]]], parse: ParseReview) -> None:
        """Run `parse` over (line, row) pairs from `path` and write what it keeps.

        The loop is the import's hot path (the bench holds it to >= 50k reviews/s on two
        cores), so it serialises with orjson straight into the file and hands the spill
        batches instead of calling a method per row.
        """
        write, dumps, newline = self.sink.handle.write, orjson.dumps, orjson.OPT_APPEND_NEWLINE
        per_item, filtered, errors = self.per_item, self.filtered, self.errors
        batch: list[tuple[str, str, float | None, str | None]] = []
        read = kept = 0
        for line_no, row in rows:
            read += 1
            try:
                review = parse(row)
            except BadRow as exc:
                errors.row(path, line_no, exc)
                continue
            if type(review) is str:
                filtered[review] += 1
                continue
            write(dumps(review, option=newline))
            kept += 1
            item_id = review["item_id"]
            per_item[item_id] += 1
            batch.append((review["user_id"], item_id, review["rating"], review["id"]))
            if len(batch) >= SPILL_BATCH:
                self.spill.extend(batch)
                batch = []
        if batch:
            self.spill.extend(batch)
        self.sink.count += kept
        self.rows_read += read

    def write_users(self, preferences: Preferences | None = None) -> None:
        """Group the spilled histories into `users.jsonl`, then drop the spill."""
        sink = self.writer.sink(USERS)
        try:
            for row in self.spill.user_rows(preferences):
                sink.write(row)
        finally:
            self.spill.close()


def review_text(title: str, body: str) -> str:
    """A review's title and body as one text: 'Great value. It lasted ten years.'

    Amazon review titles ('summary') are often the most quotable sentence; appending a
    full stop keeps the title its own sentence for sentence splitters.
    """
    title, body = title.strip(), body.strip()
    if not title:
        return body
    if not body:
        return title
    if title[-1] not in ".!?":
        title += "."
    return f"{title} {body}"
