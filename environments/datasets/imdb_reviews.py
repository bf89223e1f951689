"""IMDb-style user reviews: one review per row (user, movie, rating, text) -> PEPPER-style profiles.

There is no single official IMDb review release; public dumps (Kaggle's "IMDB user
reviews", scraped per-user review pages) share the shape, not the column names. The
input is CSV/TSV (by suffix) or JSON lines, and every column is configurable: by
default `user`, `movie`, `rating`, `review`. The movie value is the item id as given
(an IMDb tt-id or a title); `--title-field` names a separate title column. Reviews keep
`--id-field` as their id, else `<user>_<movie>` (IMDb allows one review per user and
movie). Ratings are kept as given, times `--rating-scale` (0.5 maps IMDb's 1-10 onto
0.5-5, the scale the target-biased environment's "positive review >= 4" expects).

Items are the reviewed movies (aspects and plot from an optional metadata file, see
`movies.py`, keyed by the same movie value); each user's reviews form their history
in `users.jsonl`, which is what a PEPPER-style seeker profile is built from.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import Field

from environments.catalog.store import ITEMS
from environments.datasets.base import BadRow, DatasetFormat, ImportOptions, ImportReport, PathArg, RowErrors
from environments.datasets.fields import iso_timestamp, opt_int
from environments.datasets.movies import load_movie_metadata, movie_item
from environments.datasets.readers import csv_delimiter, is_csv, iter_csv_rows, iter_json_objects
from environments.datasets.reviews import ReviewStream, review_text
from environments.datasets.writer import CatalogWriter, commit_import

DATE_FORMATS = ("%d %B %Y", "%B %d, %Y", "%d %b %Y", "%b %d, %Y")


class ImdbReviewsOptions(ImportOptions):
    user_field: str = Field(default="user", description="Column/key with the reviewer's id or name.")
    item_field: str = Field(default="movie", description="Column/key with the movie's id (or title).")
    rating_field: str = Field(default="rating", description="Column/key with the rating.")
    text_field: str = Field(default="review", description="Column/key with the review text.")
    id_field: str | None = Field(default=None, description="Column/key with a review id (default: <user>_<movie>).")
    title_field: str | None = Field(default=None, description=(
        "Column/key with the movie title (default: the movie value)."))
    summary_field: str | None = Field(default=None, description="Column/key with a review title, put before the text.")
    timestamp_field: str | None = Field(default=None, description="Column/key with Unix seconds or a date.")
    helpful_field: str | None = Field(default=None, description="Column/key with helpful votes.")
    rating_scale: float = Field(default=1.0, gt=0, description="Multiply ratings by this (0.5: IMDb 1-10 -> 0.5-5).")
    missing_rating: float | None = Field(default=None, description=(
        "Rating for rows without one (default: such rows are bad rows)."))
    metadata: Path | None = Field(default=None, description="Movie metadata JSON keyed by the movie value.")


def _value(row: dict[str, Any], key: str | None) -> Any:
    if key is None:
        return None
    value = row.get(key)
    return None if value == "" else value


def _text(row: dict[str, Any], key: str, required: bool) -> str:
    value = _value(row, key)
    if value is None:
        if required:
            raise BadRow(key, "missing")
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise BadRow(key, f"expected a string, got {type(value).__name__}")
    return value.strip()


def _timestamp(value: Any, key: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip()
    if text.isdigit():
        return int(text)
    for pattern in DATE_FORMATS:
        try:
            return int(datetime.strptime(text, pattern).replace(tzinfo=timezone.utc).timestamp())
        except ValueError:
            continue
    return iso_timestamp(text, key)


def make_parser(options: ImdbReviewsOptions, titles: dict[str, str]):  # noqa: ANN201 (returns ParseReview)
    """The row mapper for the configured columns; records each movie's title in `titles`."""

    def parse(row: dict[str, Any]) -> dict[str, Any]:
        user_id = _text(row, options.user_field, True)
        item_id = _text(row, options.item_field, True)
        raw_rating = _value(row, options.rating_field)
        if raw_rating is None:
            if options.missing_rating is None:
                raise BadRow(options.rating_field, "missing")
            rating = options.missing_rating
        else:
            try:
                rating = float(raw_rating) * options.rating_scale
            except (TypeError, ValueError):
                raise BadRow(options.rating_field, f"expected a number, got {raw_rating!r}") from None
            if rating != rating or isinstance(raw_rating, bool):
                raise BadRow(options.rating_field, f"expected a number, got {raw_rating!r}")
        text = review_text(_text(row, options.summary_field, False) if options.summary_field else "",
                           _text(row, options.text_field, True))
        review_id = _text(row, options.id_field, True) if options.id_field else f"{user_id}_{item_id}"
        helpful = opt_int({"h": _value(row, options.helpful_field)}, "h") if options.helpful_field else 0
        timestamp = _timestamp(_value(row, options.timestamp_field), options.timestamp_field or "")
        if item_id not in titles:
            titles[item_id] = _text(row, options.title_field, False) if options.title_field else item_id
        return {"id": review_id, "item_id": item_id, "user_id": user_id, "rating": rating, "text": text,
                "helpful_votes": helpful, "timestamp": timestamp}

    return parse


def import_imdb_reviews(reviews: list[Path], out: Path, options: ImdbReviewsOptions | None = None) -> ImportReport:
    """Import per-user review files (CSV/TSV or JSON lines) into the catalog directory `out`."""
    options = options or ImdbReviewsOptions()
    started = time.perf_counter()
    errors = RowErrors(options.skip_bad)
    metadata = load_movie_metadata(options.metadata) if options.metadata else {}
    with CatalogWriter(out, force=options.force) as writer:
        titles: dict[str, str] = {}
        parse = make_parser(options, titles)
        stream = ReviewStream(writer, errors)
        for path in map(Path, reviews):
            if is_csv(path):
                rows = iter_csv_rows(path, errors, delimiter=csv_delimiter(path), progress=options.progress,
                                     required=(options.user_field, options.item_field))
            else:
                rows = iter_json_objects(path, errors, options.progress)
            stream.consume(path, rows, parse)
        items = writer.sink(ITEMS)
        for item_id, title in titles.items():
            if stream.per_item[item_id]:
                items.write_model(movie_item(item_id, title or item_id, metadata.get(item_id), {}))
        stream.write_users()
        sources = [Path(p) for p in reviews] + ([Path(options.metadata)] if options.metadata else [])
        return commit_import(writer, format_name="imdb-reviews", domain="movie", item_noun="movies", options=options,
                             sources=sources, errors=errors, started=started, rows_read=stream.rows_read,
                             filtered=dict(stream.filtered))


def _run(paths: dict, out: Path, options: ImportOptions) -> ImportReport:
    return import_imdb_reviews(paths["reviews"], out, options)  # type: ignore[arg-type]


FORMAT = DatasetFormat(
    name="imdb-reviews",
    summary="IMDb-style per-user reviews (CSV/TSV or JSON lines; columns configurable)",
    paths=(PathArg("reviews", "review files (.csv/.tsv or JSON lines)", many=True),),
    options=ImdbReviewsOptions,
    run=_run,
)
