"""INSPIRED (Hayati et al., EMNLP 2020): sociable movie-recommendation dialogues -> logged episodes.

Inputs: the dialogue files `train.tsv`, `dev.tsv`, `test.tsv` (github.com/sweetpeach/Inspired,
`data/dialog_data/`; one utterance per line, tab-separated, quotes in `text` written as
`QUOTATION_MARK`) and optionally `movie_database.tsv` for movie attributes. The header of
the released dialogue files:

    dialog_id utt_id speaker turn_id text text_with_placeholder movies genres people_names
    movie_dict genre_dict actor_dict director_dict others_dict expert_label second_label
    fine_label coarse_label movie_id

Each dialogue (its rows, which the files keep together) becomes an `Episode` in
`dialogues.jsonl`:

- one `Turn` per row, in file order: `SEEKER` rows are seeker turns, `RECOMMENDER` rows
  recommender turns (consecutive rows of one speaker stay separate turns, as the corpus
  splits them); the text is `text` with `QUOTATION_MARK` turned back into `"`;
- the movies a row mentions are its `movies` list (`;`-separated "Title (Year)") plus any
  `[MOVIE_TITLE_<i>]` placeholder of `text_with_placeholder` resolved through the dialogue's
  `movie_dict` ({title: i}); a recommender turn shows them (`items_shown`), a seeker turn
  keeps them in `metadata["mentioned"]`;
- the recommender's sociable strategies (`expert_label`, `second_label`) go to the turn's
  `metadata["strategy"]` / `["second_strategy"]`, `genres` and `people_names` to
  `metadata["genres"]` / `["people"]`;
- INSPIRED records one outcome per dialogue, for the movie whose trailer the seeker was
  shown at the end (`movie_id`, a YouTube id): `fine_label` (accept_rating_good,
  accept_rating_mod, accept_uninterested, accept_others, reject) and `coarse_label`
  (accept_new / reject_new). Termination is `accepted` when the seeker accepted the
  recommendation (`fine_label` accept_*), else `max_turns`. When the movie database names
  that trailer, the movie is the episode's target and a closing seeker turn (empty text,
  `metadata["feedback_only"]`) carries `{movie: "like" | "dislike"}` from `coarse_label`
  (accept_new -> like, reject_new -> dislike: the corpus' own grouping, in which a seeker
  who accepted but found the trailer uninteresting counts as a rejection).

Items are the movies mentioned (id = the title as the corpus writes it, "Hustlers (2019)"),
with genre, director, writer and stars and the plot from the movie database when its
title and year match.
"""

from __future__ import annotations

import ast
import csv
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field

from environments.catalog.store import DIALOGUES, ITEMS
from environments.datasets.base import BadRow, DatasetFormat, ImportOptions, ImportReport, PathArg, RowErrors
from environments.datasets.normalize import normalize_title, title_year
from environments.datasets.readers import iter_csv_rows
from environments.datasets.writer import CatalogWriter, commit_import
from environments.errors import CrsimError
from environments.models import AttributeValue, Episode, Item, Role, TerminationReason, Turn

REQUIRED = ("dialog_id", "utt_id", "speaker", "text")
SPEAKERS = {"SEEKER": Role.seeker, "RECOMMENDER": Role.recommender}
FINE_LABELS = ("accept_rating_good", "accept_rating_mod", "accept_uninterested", "accept_others", "reject")
COARSE_LABELS = {"accept_new": "like", "reject_new": "dislike"}
#: columns that hold one value for the whole dialogue
PER_DIALOGUE = ("movie_dict", "fine_label", "coarse_label", "movie_id")
PLACEHOLDER = re.compile(r"\[MOVIE_TITLE_(\d+)\]")
QUOTE = "QUOTATION_MARK"
_SPACES = re.compile(r"\s+")

#: movie database column -> aspect (values split on commas)
DB_ASPECTS = {"genre": "genre", "genres": "genre", "director": "director", "writer": "writer", "actors": "stars",
              "stars": "stars"}
DB_PLOTS = ("short_plot", "long_plot", "plot")
DB_TRAILER = ("video_id", "movie_id")


class InspiredOptions(ImportOptions):
    movies: Path | None = Field(default=None, description=(
        "INSPIRED's movie_database.tsv (title, year, genre, actors, director, plot, trailer id ...) for "
        "movie attributes and for naming the movie whose trailer ends each dialogue."))


def clean_title(title: str) -> str:
    return _SPACES.sub(" ", title).strip()


def split_list(value: str) -> list[str]:
    """`"A (2019);  B (1988)"` -> ["A (2019)", "B (1988)"] (duplicates dropped, order kept)."""
    return list(dict.fromkeys(clean_title(part) for part in value.split(";") if part.strip()))


def parse_movie_dict(value: str) -> dict[int, str]:
    """{index: title} from the `movie_dict` cell, a Python dict literal {'Title (Year)': index}."""
    if not value.strip():
        return {}
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise BadRow("movie_dict", f"not a readable {{title: index}} mapping: {value[:80]!r}") from None
    if type(parsed) is not dict or not all(type(k) is str and type(v) is int for k, v in parsed.items()):
        raise BadRow("movie_dict", f"expected {{title: index}}, got {value[:80]!r}")
    return {index: clean_title(title) for title, index in parsed.items()}


@dataclass
class MovieDatabase:
    """movie_database.tsv: rows by normalised "Title (Year)" and by trailer id."""

    by_title: dict[str, dict[str, str] | None] = field(default_factory=dict)  # None: ambiguous title
    by_trailer: dict[str, dict[str, str]] = field(default_factory=dict)

    def find(self, title: str) -> dict[str, str] | None:
        return self.by_title.get(normalize_title(title))

    @staticmethod
    def key(row: dict[str, str]) -> str:
        title, year = clean_title(row.get("title", "")), row.get("year", "").strip()
        year = year[:-2] if year.endswith(".0") else year  # pandas-written years
        return f"{title} ({year})" if year and not title.endswith(f"({year})") else title


def load_movie_database(path: Path, errors: RowErrors) -> MovieDatabase:
    db = MovieDatabase()
    for line_no, row in iter_csv_rows(path, errors, delimiter="\t", required=("title",), quoting=csv.QUOTE_NONE):
        if not row["title"].strip():
            errors.bad(path, line_no, "title", "is empty")
            continue
        key = normalize_title(MovieDatabase.key(row))
        db.by_title[key] = None if key in db.by_title else row
        trailer = next((row[c].strip() for c in DB_TRAILER if row.get(c, "").strip()), "")
        if trailer:
            db.by_trailer.setdefault(trailer, row)
    return db


def movie_item(title: str, db_row: dict[str, str] | None, mentions: int) -> Item:
    extra: dict[str, Any] = {"mentions": mentions}
    _, year = title_year(title)
    if year is not None:
        extra["year"] = year
    attributes: dict[str, AttributeValue] = {}
    description = ""
    if db_row is not None:
        for column, value in db_row.items():
            value = value.strip()
            if not value or value.lower() in ("nan", "n/a", "none"):
                continue
            if column in DB_ASPECTS:
                parts = [p.strip() for p in value.split(",") if p.strip()]
                if parts:
                    attributes[DB_ASPECTS[column]] = list(dict.fromkeys(parts))
            elif column in DB_PLOTS:
                description = description or value
            elif column not in ("title", "year"):
                extra[column] = value
    return Item(id=title, title=title, category="movie", attributes=attributes, description=description, extra=extra)


@dataclass
class Dialogue:
    """The rows of one INSPIRED dialogue, turned into turns as they are read."""

    dialog_id: str
    first_line: int
    split: str
    shared: dict[str, str]
    titles: dict[int, str]
    turns: list[Turn] = field(default_factory=list)
    mentioned: list[str] = field(default_factory=list)
    last_utt: int = -1

    def add(self, row: dict[str, str]) -> None:
        for column in PER_DIALOGUE:
            if column in row and row[column] != self.shared.get(column, ""):
                raise BadRow(column, f"differs from the dialogue's first row (line {self.first_line}): "
                                     f"{row[column][:60]!r} vs {self.shared.get(column, '')[:60]!r}")
        speaker = row["speaker"].strip().upper()
        role = SPEAKERS.get(speaker)
        if role is None:
            raise BadRow("speaker", f"expected SEEKER or RECOMMENDER, got {row['speaker']!r}")
        try:
            utt = int(row["utt_id"])
        except ValueError:
            raise BadRow("utt_id", f"expected an integer, got {row['utt_id']!r}") from None
        if utt <= self.last_utt:
            raise BadRow("utt_id", f"{utt} does not follow utterance {self.last_utt} of dialogue '{self.dialog_id}'")
        self.last_utt = utt
        movies = split_list(row.get("movies", ""))
        for index in PLACEHOLDER.findall(row.get("text_with_placeholder", "")):
            title = self.titles.get(int(index))
            if title is None:
                raise BadRow("text_with_placeholder", f"[MOVIE_TITLE_{index}] is not in the dialogue's movie_dict")
            if title not in movies:
                movies.append(title)
        metadata: dict[str, Any] = {"utt_id": utt}
        if row.get("turn_id", "").strip():
            try:
                metadata["turn_id"] = int(row["turn_id"])
            except ValueError:
                raise BadRow("turn_id", f"expected an integer, got {row['turn_id']!r}") from None
        for key, column in (("strategy", "expert_label"), ("second_strategy", "second_label")):
            if row.get(column, "").strip():
                metadata[key] = row[column].strip()
        for key, column in (("genres", "genres"), ("people", "people_names")):
            values = split_list(row.get(column, ""))
            if values:
                metadata[key] = values
        text = row["text"].replace(QUOTE, '"')
        self.mentioned += movies
        if role == Role.recommender:
            self.turns.append(Turn(index=len(self.turns), role=role, text=text, items_shown=movies, metadata=metadata))
        else:
            if movies:
                metadata["mentioned"] = movies
            self.turns.append(Turn(index=len(self.turns), role=role, text=text, metadata=metadata))

    def episode(self, index: int, db: MovieDatabase | None) -> tuple[Episode, str | None]:
        """(episode, the recommended movie's title if the database names the trailer)."""
        fine, coarse = self.shared.get("fine_label", "").strip(), self.shared.get("coarse_label", "").strip()
        trailer = self.shared.get("movie_id", "").strip().split("SPLIT")[0]
        recommended = None
        if db is not None and trailer and trailer in db.by_trailer:
            recommended = clean_title(MovieDatabase.key(db.by_trailer[trailer]))
            # the dialogue's own spelling of that movie, when it mentions it
            recommended = next((t for t in self.mentioned if normalize_title(t) == normalize_title(recommended)),
                               recommended)
        turns = list(self.turns)
        if recommended is not None and coarse in COARSE_LABELS:
            turns.append(Turn(index=len(turns), role=Role.seeker, text="",
                              feedback={recommended: COARSE_LABELS[coarse]},
                              metadata={"feedback_only": True, "fine_label": fine, "coarse_label": coarse}))
        profile = {"dialog_id": self.dialog_id, "split": self.split,
                   "movies": [self.titles[i] for i in sorted(self.titles)],
                   "fine_label": fine, "coarse_label": coarse, "trailer_id": trailer, "recommended": recommended}
        name = self.dialog_id.removesuffix(".pkl")
        episode = Episode(id=f"inspired-{name}", index=index, config_hash="import:inspired", seed=0,
                          environment="inspired", targets=[recommended] if recommended else [], profile=profile,
                          turns=turns,
                          termination=TerminationReason.accepted if fine.startswith("accept")
                          else TerminationReason.max_turns)
        return episode, recommended


def _start(row: dict[str, str], line_no: int, split: str) -> Dialogue:
    shared = {column: row[column] for column in PER_DIALOGUE if column in row}
    fine, coarse = shared.get("fine_label", "").strip(), shared.get("coarse_label", "").strip()
    if fine and fine not in FINE_LABELS:
        raise BadRow("fine_label", f"expected one of {', '.join(FINE_LABELS)}, got {fine!r}")
    if coarse and coarse not in COARSE_LABELS:
        raise BadRow("coarse_label", f"expected accept_new or reject_new, got {coarse!r}")
    return Dialogue(row["dialog_id"].strip(), line_no, split, shared, parse_movie_dict(row.get("movie_dict", "")))


def import_inspired(dialogues: list[Path], out: Path, options: InspiredOptions | None = None) -> ImportReport:
    """Import INSPIRED dialogue TSVs (train.tsv, dev.tsv, test.tsv) into the catalog directory `out`."""
    options = options or InspiredOptions()
    started = time.perf_counter()
    errors = RowErrors(options.skip_bad)
    dialogues = [Path(p).expanduser() for p in dialogues]
    if not dialogues:
        raise CrsimError("INSPIRED: give at least one dialogue file (train.tsv, dev.tsv, test.tsv)")
    with CatalogWriter(out, force=options.force) as writer:
        db = load_movie_database(Path(options.movies).expanduser(), errors) if options.movies else None
        episodes = writer.sink(DIALOGUES)
        mentions: Counter[str] = Counter()
        targets: set[str] = set()
        filtered: Counter[str] = Counter()
        seen: dict[str, tuple[str, int]] = {}
        read = 0

        def finish(dialogue: Dialogue | None) -> None:
            if dialogue is None:
                return
            episode, recommended = dialogue.episode(episodes.count, db)
            episodes.write_model(episode)
            for turn in dialogue.turns:
                mentions.update(turn.items_shown or turn.metadata.get("mentioned", []))
            if recommended is not None:
                targets.add(recommended)
            elif db is not None and dialogue.shared.get("movie_id", "").strip():
                filtered["dialogues whose recommended trailer is not in the movie database"] += 1

        for path in dialogues:
            split = path.name.split(".")[0]
            current: Dialogue | None = None
            bad_id: str | None = None
            for line_no, row in iter_csv_rows(path, errors, delimiter="\t", progress=options.progress,
                                              required=REQUIRED, quoting=csv.QUOTE_NONE):
                read += 1
                dialog_id = row["dialog_id"].strip()
                if dialog_id == bad_id:
                    filtered["rows of dialogues skipped as bad"] += 1
                    continue
                try:
                    if not dialog_id:
                        raise BadRow("dialog_id", "is empty")
                    if current is None or dialog_id != current.dialog_id:
                        finish(current)
                        current = None
                        if dialog_id in seen:
                            where, first = seen[dialog_id]
                            raise BadRow("dialog_id", f"dialogue '{dialog_id}' already appeared ({where}, line "
                                                      f"{first}); a dialogue's rows must be together")
                        seen[dialog_id] = (path.name, line_no)
                        current = _start(row, line_no, split)
                    current.add(row)
                except BadRow as exc:
                    errors.row(path, line_no, exc)
                    bad_id, current = dialog_id, None
            finish(current)
        items = writer.sink(ITEMS)
        for title in [*mentions, *sorted(targets - mentions.keys())]:
            items.write_model(movie_item(title, db.find(title) if db else None, mentions[title]))
        extra: dict[str, Any] = {}
        if db is not None:
            extra["movies_with_metadata"] = sum(1 for t in {*mentions, *targets} if db.find(t) is not None)
        sources = [*dialogues] + ([Path(options.movies)] if options.movies else [])
        return commit_import(writer, format_name="inspired", domain="movie", item_noun="movies", options=options,
                             sources=sources, errors=errors, started=started, rows_read=read,
                             filtered=dict(filtered), extra=extra)


def _run(paths: dict, out: Path, options: ImportOptions) -> ImportReport:
    return import_inspired(paths["dialogues"], out, options)  # type: ignore[arg-type]


FORMAT = DatasetFormat(
    name="inspired",
    summary="INSPIRED dialogues (train.tsv, dev.tsv, test.tsv; optional --movies movie_database.tsv) -> episodes",
    paths=(PathArg("dialogues", "INSPIRED dialogue TSV files, one utterance per line", many=True),),
    options=InspiredOptions,
    run=_run,
)
