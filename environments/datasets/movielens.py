"""MovieLens (GroupLens): ratings and movies -> a movie catalog with an interaction matrix.

Three layouts are recognised, from a release directory or the files themselves:

- CSV releases (ml-latest, ml-latest-small, ml-20m, ml-25m, ml-32m): `ratings.csv`
  (userId,movieId,rating,timestamp) and `movies.csv` (movieId,title,genres with '|').
- ml-100k: `u.data` (user, item, rating, timestamp; tab-separated) and `u.item`
  (latin-1, '|'-separated: id, title, release date, video date, IMDb URL, 19 genre flags
  named by `u.genre`).
- ml-1m / ml-10m: `ratings.dat` and `movies.dat`, '::'-separated.

Movies become items (genres as the `genres` aspect, the year in `extra`); each rating
becomes an interaction (value = the rating, source "movielens") and a line of its
user's history in `users.jsonl`. MovieLens has no review text, so `reviews.jsonl` is empty.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from environments.catalog.store import INTERACTIONS, ITEMS, USERS
from environments.datasets.base import BadRow, DatasetFormat, ImportOptions, ImportReport, PathArg, RowErrors
from environments.datasets.fields import parse_float, parse_int
from environments.datasets.movies import movie_item
from environments.datasets.readers import iter_csv_rows, iter_delimited
from environments.datasets.seen import SeenSpill
from environments.datasets.writer import CatalogWriter, commit_import
from environments.errors import CrsimError
from environments.models import Item

#: ml-100k's genre order (u.genre), used when u.genre is not next to u.item.
GENRES_100K = ("unknown", "Action", "Adventure", "Animation", "Children's", "Comedy", "Crime", "Documentary",
               "Drama", "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery", "Romance", "Sci-Fi", "Thriller",
               "War", "Western")
NO_GENRE = "(no genres listed)"
LAYOUTS = {"csv": ("ratings.csv", "movies.csv"), "100k": ("u.data", "u.item"), "dat": ("ratings.dat", "movies.dat")}


@dataclass(frozen=True, slots=True)
class MovieLensFiles:
    layout: str  # csv | 100k | dat
    ratings: Path
    movies: Path


class MovieLensOptions(ImportOptions):
    """MovieLens has no options of its own."""


def find_files(paths: Sequence[Path]) -> MovieLensFiles:
    """Recognise the layout from a release directory or its ratings and movies files."""
    found: dict[str, Path] = {}
    for path in map(Path, paths):
        path = path.expanduser()
        candidates = list(path.iterdir()) if path.is_dir() else [path]
        for candidate in candidates:
            found.setdefault(candidate.name, candidate)
    for layout, (ratings, movies) in LAYOUTS.items():
        if ratings in found or movies in found:
            if ratings not in found or movies not in found:
                missing = ratings if ratings not in found else movies
                raise CrsimError(f"MovieLens: {missing} is missing "
                                 f"(give both {ratings} and {movies}, or their directory)")
            return MovieLensFiles(layout, found[ratings], found[movies])
    given = ", ".join(str(p) for p in paths)
    raise CrsimError(f"MovieLens: no ratings.csv/movies.csv, u.data/u.item or ratings.dat/movies.dat in {given}")


def iter_movies(files: MovieLensFiles, errors: RowErrors) -> Iterator[tuple[int, Item]]:
    """(line, item) per movie; bad rows go to `errors`."""
    if files.layout == "csv":
        for line_no, row in iter_csv_rows(files.movies, errors, required=("movieId", "title")):
            try:
                movie_id = str(parse_int(row["movieId"], "movieId"))
                genres = [g for g in row.get("genres", "").split("|") if g and g != NO_GENRE]
                yield line_no, _item(movie_id, row["title"], genres)
            except BadRow as exc:
                errors.row(files.movies, line_no, exc)
    elif files.layout == "100k":
        names = _genre_names(files.movies.with_name("u.genre"))
        for line_no, parts in iter_delimited(files.movies, b"|", 5 + len(names), errors, encoding="latin-1"):
            try:
                movie_id = str(parse_int(parts[0], "movie id"))
                flags = parts[5:5 + len(names)]
                genres = [name for name, flag in zip(names, flags, strict=True) if flag.strip() == "1"]
                genres = [g for g in genres if g != "unknown"]
                yield line_no, _item(movie_id, parts[1], genres)
            except BadRow as exc:
                errors.row(files.movies, line_no, exc)
    else:
        for line_no, parts in iter_delimited(files.movies, b"::", 3, errors, encoding="latin-1"):
            try:
                genres = [g for g in parts[2].strip().split("|") if g and g != NO_GENRE]
                yield line_no, _item(str(parse_int(parts[0], "MovieID")), parts[1], genres)
            except BadRow as exc:
                errors.row(files.movies, line_no, exc)


def _item(movie_id: str, title: str, genres: list[str]) -> Item:
    if not title.strip():
        raise BadRow("title", "is empty")
    item = movie_item(movie_id, title.strip(), None, {})
    return item.model_copy(update={"attributes": {"genres": genres}}) if genres else item


def _genre_names(path: Path) -> tuple[str, ...]:
    if not path.is_file():
        return GENRES_100K
    names = [line.split("|")[0] for line in path.read_text(encoding="latin-1").splitlines() if "|" in line]
    return tuple(names) or GENRES_100K


def iter_ratings(files: MovieLensFiles, errors: RowErrors, progress: bool = False
                 ) -> Iterator[tuple[int, str, str, float, int | None]]:
    """(line, user id, movie id, rating, timestamp) per rating; bad rows go to `errors`."""
    path = files.ratings
    if files.layout == "csv":
        rows = iter_delimited(path, b",", 3, errors, progress=progress, header=True)
    elif files.layout == "100k":
        rows = iter_delimited(path, b"", 3, errors, progress=progress)  # whitespace (tabs)
    else:
        rows = iter_delimited(path, b"::", 3, errors, progress=progress)
    for line_no, parts in rows:
        try:
            user_id = str(parse_int(parts[0], "userId"))
            movie_id = str(parse_int(parts[1], "movieId"))
            rating = parse_float(parts[2], "rating", 0.5, 5)
            timestamp = parse_int(parts[3].strip(), "timestamp") if len(parts) > 3 and parts[3].strip() else None
        except BadRow as exc:
            errors.row(path, line_no, exc)
            continue
        yield line_no, user_id, movie_id, rating, timestamp


def import_movielens(paths: Sequence[Path], out: Path, options: MovieLensOptions | None = None) -> ImportReport:
    """Import a MovieLens release (directory or files) into the catalog directory `out`."""
    options = options or MovieLensOptions()
    started = time.perf_counter()
    errors = RowErrors(options.skip_bad)
    files = find_files(paths)
    with CatalogWriter(out, force=options.force) as writer:
        items = writer.sink(ITEMS)
        known: set[str] = set()
        for line_no, item in iter_movies(files, errors):
            if item.id in known:
                errors.bad(files.movies, line_no, "movieId", f"duplicate movie id '{item.id}'")
                continue
            known.add(item.id)
            items.write_model(item)
        interactions = writer.sink(INTERACTIONS)
        spill = SeenSpill(writer.scratch)
        read = 0
        try:
            for line_no, user_id, movie_id, rating, _ in iter_ratings(files, errors, options.progress):
                read += 1
                if movie_id not in known:
                    errors.bad(files.ratings, line_no, "movieId",
                               f"unknown movie id '{movie_id}' (not in {files.movies.name})")
                    continue
                interactions.write({"user_id": user_id, "item_id": movie_id, "value": rating, "source": "movielens"})
                spill.add(user_id, movie_id, rating)
            users = writer.sink(USERS)
            for row in spill.user_rows():
                users.write(row)
        finally:
            spill.close()
        return commit_import(writer, format_name="movielens", domain="movie", item_noun="movies", options=options,
                             sources=[files.ratings, files.movies], errors=errors, started=started, rows_read=read)


def _run(paths: dict, out: Path, options: ImportOptions) -> ImportReport:
    return import_movielens(paths["paths"], out, options)  # type: ignore[arg-type]


FORMAT = DatasetFormat(
    name="movielens",
    summary="MovieLens: a release directory, or ratings.csv + movies.csv (also ml-100k u.data/u.item, ml-1m *.dat)",
    paths=(PathArg("paths", "release directory, or its ratings and movies files", many=True),),
    options=MovieLensOptions,
    run=_run,
)

