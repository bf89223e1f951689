"""ReDial (Li et al., NeurIPS 2018): movie-recommendation dialogues -> logged episodes + likes.

Inputs: the dialogue files (`train_data.jsonl`, `test_data.jsonl`; one conversation
per line), `movies_with_mentions.csv` (movieId, movieName, nbMentions) and optionally a
movie metadata JSON (see `movies.py`) and MovieLens ratings.

Each conversation becomes an `Episode` in `dialogues.jsonl` that replay and rendering
read like any run log:

- one `Turn` per message: the initiator's messages are the seeker's, the respondent's
  the recommender's; `@<movieId>` placeholders are replaced by the movie's title;
- `items_shown` of a recommender turn are the movies it mentions; movies a seeker
  mentions go to its turn's `metadata["mentioned"]`;
- `feedback` sits on the seeker turn after a recommender mention: `{movie: "like" |
  "dislike"}` from the seeker's questionnaire (`initiatorQuestions`; liked 1 -> like,
  0 -> dislike, 2 = did not say -> nothing); if the dialogue ends first, a closing
  seeker turn with empty text and `metadata["feedback_only"]` carries it;
- the episode's one target is the first movie the recommender mentioned that was suggested by
  it (the questionnaire's `suggested`, when given) and liked; termination is
  `accepted` when there is one, else `max_turns`.

Liked mentions (and, with `disliked_value`, disliked ones) become `interactions.jsonl`
rows per seeker worker id; MovieLens ratings of movies whose normalised title and year
match a ReDial movie exactly join them as users `ml:<userId>`. Seekers' questionnaire
answers also form `users.jsonl` (rating 1.0 liked, 0.0 disliked, none when unsaid).
"""

from __future__ import annotations

import html
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from environments.catalog.store import DIALOGUES, INTERACTIONS, ITEMS, USERS
from environments.datasets.base import BadRow, DatasetFormat, ImportOptions, ImportReport, PathArg, RowErrors
from environments.datasets.fields import req_id
from environments.datasets.movielens import find_files, iter_movies, iter_ratings
from environments.datasets.movies import load_movie_metadata, movie_item
from environments.datasets.normalize import normalize_title
from environments.datasets.readers import iter_csv_rows, iter_json_objects
from environments.datasets.seen import SeenSpill, likes_and_dislikes
from environments.datasets.writer import CatalogWriter, JsonlSink, commit_import
from environments.errors import CrsimError
from environments.models import Episode, Role, TerminationReason, Turn

MENTION = re.compile(r"@(\d+)")
MOVIES_CSV = "movies_with_mentions.csv"
ANSWER_KEYS = ("suggested", "seen", "liked")


class RedialOptions(ImportOptions):
    movies_csv: Path | None = Field(default=None, description=(
        f"{MOVIES_CSV} (movieId,movieName,nbMentions); default: the one next to the first dialogue file."))
    metadata: Path | None = Field(default=None, description=(
        "Movie metadata JSON {id: {name, genre, plot, director, writer, star}} for aspects and plots."))
    answers: Literal["initiator", "respondent"] = Field(default="initiator", description=(
        "Whose questionnaire gives likes: the seeker's own (initiatorQuestions) or the recommender's "
        "view of the seeker (respondentQuestions)."))
    disliked_value: float | None = Field(default=None, description=(
        "Interaction value written for disliked mentions (default: disliked mentions are not written)."))
    movielens_ratings: Path | None = Field(default=None, description=(
        "MovieLens ratings.csv whose ratings of ReDial movies join the interactions (users 'ml:<id>')."))
    movielens_movies: Path | None = Field(default=None, description=(
        "MovieLens movies.csv for matching titles; default: the one next to --movielens-ratings."))


def load_movies(path: Path, errors: RowErrors) -> dict[str, tuple[str, int]]:
    """{movie id: (name, number of mentions)} from movies_with_mentions.csv."""
    movies: dict[str, tuple[str, int]] = {}
    for line_no, row in iter_csv_rows(path, errors, required=("movieId", "movieName")):
        movie_id, name = row["movieId"].strip(), row["movieName"].strip()
        mentions = row.get("nbMentions", "").strip()
        if not movie_id.isdigit():
            errors.bad(path, line_no, "movieId", f"expected a numeric id, got {movie_id!r}")
        elif not name:
            errors.bad(path, line_no, "movieName", "is empty")
        elif movie_id in movies:
            errors.bad(path, line_no, "movieId", f"duplicate movie id '{movie_id}'")
        else:
            movies[movie_id] = (name, int(mentions) if mentions.isdigit() else 0)
    return movies


def _answers(row: dict[str, Any], key: str, movies: dict[str, tuple[str, int]]) -> dict[str, dict[str, int]]:
    """A questionnaire {movie id: {suggested, seen, liked}}; ReDial writes [] when empty."""
    value = row.get(key)
    if value is None or value == [] or value == {}:
        return {}
    if type(value) is not dict:
        raise BadRow(key, f"expected an object keyed by movie id, got {type(value).__name__}")
    out: dict[str, dict[str, int]] = {}
    for movie_id, answers in value.items():
        if movie_id not in movies:
            raise BadRow(key, f"unknown movie id '{movie_id}'")
        if type(answers) is not dict:
            raise BadRow(f"{key}.{movie_id}", f"expected an object, got {type(answers).__name__}")
        for name in ANSWER_KEYS:
            if answers.get(name) not in (None, 0, 1, 2):
                raise BadRow(f"{key}.{movie_id}.{name}", f"expected 0, 1 or 2, got {answers.get(name)!r}")
        out[movie_id] = {name: answers[name] for name in ANSWER_KEYS if answers.get(name) is not None}
    return out


def _mentions(row: dict[str, Any], movies: dict[str, tuple[str, int]]) -> dict[str, str]:
    value = row.get("movieMentions")
    if value is None or value == [] or value == {}:
        return {}
    if type(value) is not dict:
        raise BadRow("movieMentions", f"expected an object keyed by movie id, got {type(value).__name__}")
    titles = {}
    for movie_id, title in value.items():
        if movie_id not in movies:
            raise BadRow("movieMentions", f"unknown movie id '{movie_id}'")
        titles[movie_id] = title.strip() if isinstance(title, str) and title.strip() else movies[movie_id][0]
    return titles


def conversation_episode(row: dict[str, Any], index: int, movies: dict[str, tuple[str, int]],
                         answers_key: str, split: str) -> tuple[Episode, str, dict[str, dict[str, int]]]:
    """(episode, seeker worker id, the seeker's questionnaire) for one ReDial line."""
    conversation_id = req_id(row, "conversationId")
    seeker = req_id(row, "initiatorWorkerId")
    recommender = req_id(row, "respondentWorkerId")
    titles = _mentions(row, movies)
    answers = _answers(row, answers_key, movies)
    _answers(row, "respondentQuestions" if answers_key == "initiatorQuestions" else "initiatorQuestions", movies)
    messages = row.get("messages")
    if type(messages) is not list:
        raise BadRow("messages", "missing" if messages is None else f"expected a list, got {type(messages).__name__}")

    def title_of(match: re.Match[str]) -> str:
        movie_id = match.group(1)
        return titles.get(movie_id) or movies[movie_id][0]

    def feedback_for(movie_ids: list[str]) -> dict[str, str]:
        liked = {m: answers.get(m, {}).get("liked") for m in movie_ids}
        return {m: "like" if a == 1 else "dislike" for m, a in liked.items() if a in (0, 1)}

    turns: list[Turn] = []
    pending: list[str] = []
    given: set[str] = set()
    shown_order: list[str] = []
    for position, message in enumerate(messages):
        where = f"messages[{position}]"
        if type(message) is not dict:
            raise BadRow(where, f"expected an object, got {type(message).__name__}")
        sender, text = message.get("senderWorkerId"), message.get("text")
        if type(text) is not str:
            raise BadRow(f"{where}.text",
                         "missing" if text is None else f"expected a string, got {type(text).__name__}")
        if type(sender) not in (int, str):
            raise BadRow(f"{where}.senderWorkerId", "missing" if sender is None else "expected a worker id")
        mentioned = list(dict.fromkeys(MENTION.findall(text)))
        unknown = [m for m in mentioned if m not in movies]
        if unknown:
            raise BadRow(f"{where}.text", f"unknown movie id '@{unknown[0]}'")
        rendered = html.unescape(MENTION.sub(title_of, text))  # the site stored what people typed HTML-escaped
        metadata = {key: message[src] for key, src in (("message_id", "messageId"), ("time_offset", "timeOffset"))
                    if message.get(src) is not None}
        if str(sender) == seeker:
            feedback = feedback_for(pending)
            given.update(pending)
            pending = []
            if mentioned:
                metadata["mentioned"] = mentioned
            turns.append(Turn(index=len(turns), role=Role.seeker, text=rendered, feedback=feedback, metadata=metadata))
        elif str(sender) == recommender:
            pending += [m for m in mentioned if m not in given and m not in pending]
            shown_order += [m for m in mentioned if m not in shown_order]
            turns.append(Turn(index=len(turns), role=Role.recommender, text=rendered, items_shown=mentioned,
                              metadata=metadata))
        else:
            raise BadRow(f"{where}.senderWorkerId",
                         f"{sender} is neither the initiator ({seeker}) nor the respondent ({recommender})")
    closing = feedback_for(pending)
    if closing:
        turns.append(Turn(index=len(turns), role=Role.seeker, text="", feedback=closing,
                          metadata={"feedback_only": True}))
    target = next((m for m in shown_order if answers.get(m, {}).get("liked") == 1
                   and answers[m].get("suggested", 1) == 1), None)
    profile = {
        "conversation_id": conversation_id, "seeker_worker_id": seeker, "recommender_worker_id": recommender,
        "liked": [m for m, a in answers.items() if a.get("liked") == 1],
        "disliked": [m for m, a in answers.items() if a.get("liked") == 0],
        "seen": [m for m, a in answers.items() if a.get("seen") == 1],
        "unseen": [m for m, a in answers.items() if a.get("seen") == 0],
        "split": split,
    }
    episode = Episode(id=f"redial-{conversation_id}", index=index, config_hash="import:redial", seed=0,
                      environment="redial", targets=[target] if target else [], profile=profile, turns=turns,
                      termination=TerminationReason.accepted if target else TerminationReason.max_turns)
    return episode, seeker, answers


def import_redial(dialogues: list[Path], out: Path, options: RedialOptions | None = None) -> ImportReport:
    """Import ReDial dialogue files (with their movie list) into the catalog directory `out`."""
    options = options or RedialOptions()
    started = time.perf_counter()
    errors = RowErrors(options.skip_bad)
    dialogues = [Path(p).expanduser() for p in dialogues]
    if not dialogues:
        raise CrsimError("ReDial: give at least one dialogue file (train_data.jsonl, test_data.jsonl)")
    movies_csv = Path(options.movies_csv).expanduser() if options.movies_csv else dialogues[0].with_name(MOVIES_CSV)
    if not movies_csv.is_file():
        raise CrsimError(f"ReDial: {movies_csv} not found; pass --movies-csv {MOVIES_CSV}")
    answers_key = f"{options.answers}Questions"
    with CatalogWriter(out, force=options.force) as writer:
        movies = load_movies(movies_csv, errors)
        metadata = load_movie_metadata(options.metadata) if options.metadata else {}
        items = writer.sink(ITEMS)
        for movie_id, (name, mentions) in movies.items():
            items.write_model(movie_item(movie_id, name, metadata.get(movie_id), {"mentions": mentions}))
        episodes = writer.sink(DIALOGUES)
        interactions = writer.sink(INTERACTIONS)
        spill = SeenSpill(writer.scratch)
        read = 0
        try:
            for path in dialogues:
                for line_no, row in iter_json_objects(path, errors, options.progress):
                    read += 1
                    try:
                        episode, seeker, answers = conversation_episode(row, episodes.count, movies, answers_key,
                                                                        path.name.split(".")[0])
                    except BadRow as exc:
                        errors.row(path, line_no, exc)
                        continue
                    episodes.write_model(episode)
                    for movie_id, answer in answers.items():
                        liked = answer.get("liked")
                        spill.add(seeker, movie_id, 1.0 if liked == 1 else 0.0 if liked == 0 else None)
                        if liked == 1:
                            interactions.write({"user_id": seeker, "item_id": movie_id, "value": 1.0,
                                                "source": "redial"})
                        elif liked == 0 and options.disliked_value is not None:
                            interactions.write({"user_id": seeker, "item_id": movie_id,
                                                "value": options.disliked_value, "source": "redial"})
            users = writer.sink(USERS)
            for user in spill.user_rows(likes_and_dislikes(like_at=1.0, dislike_below=0.5)):
                users.write(user)
        finally:
            spill.close()
        filtered: Counter[str] = Counter()
        extra: dict[str, Any] = {"answers": answers_key}
        sources = [*dialogues, movies_csv] + ([Path(options.metadata)] if options.metadata else [])
        if options.movielens_ratings:
            extra.update(_add_movielens(options, movies, interactions, errors, filtered))
            sources.append(Path(options.movielens_ratings))
        return commit_import(writer, format_name="redial", domain="movie", item_noun="movies", options=options,
                             sources=sources, errors=errors, started=started, rows_read=read,
                             filtered=dict(filtered), extra=extra)


def _add_movielens(options: RedialOptions, movies: dict[str, tuple[str, int]], interactions: JsonlSink,
                   errors: RowErrors, filtered: Counter[str]) -> dict[str, int]:
    """Append MovieLens ratings of ReDial movies, matched by exact normalised title + year."""
    ratings = Path(options.movielens_ratings).expanduser()  # type: ignore[arg-type]
    movies_file = Path(options.movielens_movies).expanduser() if options.movielens_movies else ratings.parent
    files = find_files([ratings, movies_file])
    by_title: dict[str, str | None] = {}
    for movie_id, (name, _) in movies.items():
        key = normalize_title(name)
        by_title[key] = None if key in by_title else movie_id  # an ambiguous title matches nothing
    mapping: dict[str, str] = {}
    for _, item in iter_movies(files, errors):
        redial_id = by_title.get(normalize_title(item.title))
        if redial_id is not None:
            mapping[item.id] = redial_id
    written = 0
    for _, user_id, movie_id, rating, _ in iter_ratings(files, errors, options.progress):
        redial_id = mapping.get(movie_id)
        if redial_id is None:
            filtered["MovieLens ratings of movies not matched to ReDial"] += 1
            continue
        interactions.write({"user_id": f"ml:{user_id}", "item_id": redial_id, "value": rating, "source": "movielens"})
        written += 1
    return {"movielens_movies_matched": len(mapping), "movielens_ratings": written,
            "ambiguous_redial_titles": sum(1 for v in by_title.values() if v is None)}


def _run(paths: dict, out: Path, options: ImportOptions) -> ImportReport:
    return import_redial(paths["dialogues"], out, options)  # type: ignore[arg-type]


FORMAT = DatasetFormat(
    name="redial",
    summary="ReDial dialogues (train_data.jsonl, test_data.jsonl) + movies_with_mentions.csv -> episodes, likes",
    paths=(PathArg("dialogues", "ReDial dialogue files, one conversation per line", many=True),),
    options=RedialOptions,
    run=_run,
)
