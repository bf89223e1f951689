"""CPCD, the Conversational Playlist Curation Dataset (Chaganty et al., Google Research 2023).

Layout of the public release (github.com/google-research-datasets/cpcd, `data/`):
`cpcd_v1.dialogs.{dev,test}.jsonl` (and the dev split's `.train`/`.val` files) hold one
conversation per line:

    {"id", "turns": [{"user_query", "system_response", "search_queries",
                      "search_results": [[track id, ...] per query],
                      "liked_results": [...], "disliked_results": [...]}],
     "tracks": {track id: {"track_ids", "track_titles", "track_artists": [...],
                           "track_release_titles", "track_canonical_ids", "track_cluster_ids"}},
     "goal_playlist": [track id, ...]}

and `cpcd_v1.tracks.jsonl` (optional here) one track per line with the same fields.

Tracks become items (artists and album as aspects; canonical and cluster ids in
`extra`, since CPCD's evaluation counts a cluster once). Each conversation becomes an
`Episode` in `dialogues.jsonl`: per CPCD turn a seeker turn (the user's query) and a
recommender turn (the wizard's response) showing the rated tracks (liked, then
disliked); the user's ratings of those tracks are the `feedback` of the next seeker
turn (a closing seeker turn with empty text and `metadata["feedback_only"]` after the
last one). The wizard's searches stay in the recommender turn's metadata. The goal
playlist is the profile's `goal_playlist` and the episode's `targets`.

Conversations have no user id, so each conversation is its own user: liked tracks are
interactions (1.0) and, with ratings, the user's history in `users.jsonl`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import Field

from environments.catalog.store import DIALOGUES, INTERACTIONS, ITEMS, USERS
from environments.datasets.base import BadRow, DatasetFormat, ImportOptions, ImportReport, PathArg, RowErrors
from environments.datasets.fields import opt_list_of_str, opt_str, req_str
from environments.datasets.readers import iter_json_objects
from environments.datasets.seen import SeenSpill, likes_and_dislikes
from environments.datasets.writer import CatalogWriter, commit_import
from environments.errors import CrsimError
from environments.models import Episode, Item, Role, TerminationReason, Turn

TRACK_KEYS = ("track_ids", "track_titles", "track_artists", "track_release_titles", "track_canonical_ids",
              "track_cluster_ids")


class CpcdOptions(ImportOptions):
    tracks: Path | None = Field(default=None, description=(
        "cpcd_v1.tracks.jsonl (tracks beyond those the dialogues embed)."))
    disliked_value: float | None = Field(default=None, description=(
        "Interaction value written for disliked tracks (default: not written)."))
    tracks_only: bool = Field(default=False, description=(
        "Items are exactly the tracks file's tracks: a conversation that rates or keeps a track "
        "missing from it is a bad row (CPCD's evaluator needs every such track there)."))


def track_item(track: dict[str, Any], key: str | None = None) -> Item:
    """An item for one CPCD track record (`key` is the id it is filed under, if any)."""
    if type(track) is not dict:
        raise BadRow(key, f"expected an object, got {type(track).__name__}")
    track_id = key if key is not None else req_str(track, "track_ids")
    prefix = f"tracks.{key}." if key else ""
    try:
        title = opt_str(track, "track_titles")
        artists = opt_list_of_str(track, "track_artists")
        album = opt_str(track, "track_release_titles")
    except BadRow as exc:
        raise BadRow(prefix + (exc.field or ""), exc.message) from None
    attributes: dict[str, Any] = {}
    if artists:
        attributes["artist"] = artists
    if album.strip():
        attributes["album"] = album.strip()
    extra = {name: track[source] for name, source in (("canonical_id", "track_canonical_ids"),
                                                      ("cluster_id", "track_cluster_ids")) if track.get(source)}
    return Item(id=track_id, title=title.strip() or track_id, category="track", attributes=attributes, extra=extra)


def track_text(item: Item) -> str:
    """"<title> by <artists> from <album>", the text CPCD's baselines retrieve tracks by (§6.1)."""
    text = item.title
    artists = item.attributes.get("artist")
    if artists:
        text += " by " + (artists if isinstance(artists, str) else ", ".join(artists))
    album = item.attributes.get("album")
    if album:
        text += " from " + (album if isinstance(album, str) else ", ".join(album))
    return text


class CpcdTurn(NamedTuple):
    """One CPCD turn read back from an imported episode: what the user said, what they liked."""

    query: str
    liked: list[str]


def conversation_turns(episode: Episode) -> list[CpcdTurn]:
    """The CPCD turns of an episode `dialog_episode` wrote, in order (index = CPCD turn index).

    The inverse of the mapping above: the user's query is the seeker turn's text, the
    liked tracks are the recommender turn's `items_shown` (liked first, in CPCD's order)
    whose rating on the following seeker turn is `like`.
    """
    if episode.environment != "cpcd":
        raise CrsimError(f"episode '{episode.id}' is not an imported CPCD conversation "
                         f"(environment '{episode.environment}')")
    seekers = [turn for turn in episode.turns if turn.role == Role.seeker]
    recommenders = [turn for turn in episode.turns if turn.role == Role.recommender]
    turns = []
    for position, shown in enumerate(recommenders):
        ratings = seekers[position + 1].feedback if position + 1 < len(seekers) else {}
        turns.append(CpcdTurn(seekers[position].text,
                              [track for track in shown.items_shown if ratings.get(track) == "like"]))
    return turns


def _turn_lists(turn: dict[str, Any], position: int) -> tuple[list[str], list[str]]:
    where = f"turns[{position}]"
    try:
        return opt_list_of_str(turn, "liked_results"), opt_list_of_str(turn, "disliked_results")
    except BadRow as exc:
        raise BadRow(f"{where}.{exc.field}", exc.message) from None


def dialog_episode(row: dict[str, Any], index: int, tracks: dict[str, Item], split: str, *,
                   tracks_only: bool = False) -> tuple[Episode, list[Item], list[str], list[str]]:
    """(episode, tracks it embeds, liked, disliked) for one CPCD line; `tracks` is the catalog so far.

    With `tracks_only`, a rated or goal track must be in `tracks` (the tracks file); the
    dialogue's own track records do not make it known.
    """
    dialog_id = req_str(row, "id")
    embedded_raw = row.get("tracks") or {}
    if type(embedded_raw) is not dict:
        raise BadRow("tracks", f"expected an object keyed by track id, got {type(embedded_raw).__name__}")
    embedded = [track_item(track, str(key)) for key, track in embedded_raw.items()]
    known = tracks.keys() if tracks_only else {item.id for item in embedded} | tracks.keys()
    unknown = "not in the tracks file" if tracks_only else "not in the dialogue's tracks or the tracks file"
    raw_turns = row.get("turns")
    if type(raw_turns) is not list:
        raise BadRow("turns", "missing" if raw_turns is None else f"expected a list, got {type(raw_turns).__name__}")
    goal = opt_list_of_str(row, "goal_playlist")
    turns: list[Turn] = []
    liked_all: list[str] = []
    disliked_all: list[str] = []
    pending: dict[str, str] = {}
    for position, turn in enumerate(raw_turns):
        where = f"turns[{position}]"
        if type(turn) is not dict:
            raise BadRow(where, f"expected an object, got {type(turn).__name__}")
        try:
            query = opt_str(turn, "user_query")
            response = opt_str(turn, "system_response")
            searches = opt_list_of_str(turn, "search_queries")
        except BadRow as exc:
            raise BadRow(f"{where}.{exc.field}", exc.message) from None
        results = turn.get("search_results") or []
        if type(results) is not list or not all(type(r) is list for r in results):
            raise BadRow(f"{where}.search_results", "expected a list of track-id lists")
        liked, disliked = _turn_lists(turn, position)
        for track_id in liked + disliked:
            if track_id not in known:
                raise BadRow(f"{where}.liked_results" if track_id in liked else f"{where}.disliked_results",
                             f"unknown track id '{track_id}' ({unknown})")
        turns.append(Turn(index=len(turns), role=Role.seeker, text=query, feedback=pending))
        shown = list(dict.fromkeys(liked + disliked))
        metadata = {"search_queries": searches, "search_results": results} if searches or results else {}
        turns.append(Turn(index=len(turns), role=Role.recommender, text=response, items_shown=shown,
                          metadata=metadata))
        pending = {t: "like" for t in liked} | {t: "dislike" for t in disliked if t not in liked}
        liked_all += [t for t in liked if t not in liked_all]
        disliked_all += [t for t in disliked if t not in disliked_all]
    if pending:
        turns.append(Turn(index=len(turns), role=Role.seeker, text="", feedback=pending,
                          metadata={"feedback_only": True}))
    for track_id in goal:
        if track_id not in known:
            raise BadRow("goal_playlist", f"unknown track id '{track_id}' ({unknown})")
    target = goal[0] if goal else None
    profile = {"dialog_id": dialog_id, "goal_playlist": goal, "liked": liked_all, "disliked": disliked_all,
               "split": split}
    episode = Episode(id=f"cpcd-{dialog_id}", index=index, config_hash="import:cpcd", seed=0, environment="cpcd",
                      targets=goal, profile=profile, turns=turns,
                      termination=TerminationReason.accepted if target else TerminationReason.max_turns)
    return episode, embedded, liked_all, disliked_all


def import_cpcd(dialogs: list[Path], out: Path, options: CpcdOptions | None = None) -> ImportReport:
    """Import CPCD dialog files (plus an optional tracks file) into the catalog directory `out`."""
    options = options or CpcdOptions()
    started = time.perf_counter()
    errors = RowErrors(options.skip_bad)
    dialogs = [Path(p).expanduser() for p in dialogs]
    if not dialogs:
        raise CrsimError("CPCD: give at least one dialog file (cpcd_v1.dialogs.dev.jsonl, ...)")
    if options.tracks_only and not options.tracks:
        raise CrsimError("CPCD: --tracks-only needs --tracks (cpcd_v1.tracks.jsonl)")
    with CatalogWriter(out, force=options.force) as writer:
        tracks: dict[str, Item] = {}
        if options.tracks:
            for line_no, row in iter_json_objects(options.tracks, errors, options.progress):
                try:
                    item = track_item(row)
                    if item.id in tracks:
                        raise BadRow("track_ids", f"duplicate track id '{item.id}'")
                except BadRow as exc:
                    errors.row(options.tracks, line_no, exc)
                    continue
                tracks[item.id] = item
        episodes = writer.sink(DIALOGUES)
        interactions = writer.sink(INTERACTIONS)
        spill = SeenSpill(writer.scratch)
        read = 0
        try:
            for path in dialogs:
                split = path.name.removeprefix("cpcd_v1.dialogs.").removesuffix(".jsonl").removesuffix(".gz")
                for line_no, row in iter_json_objects(path, errors, options.progress):
                    read += 1
                    try:
                        episode, embedded, liked, disliked = dialog_episode(
                            row, episodes.count, tracks, split, tracks_only=options.tracks_only)
                    except BadRow as exc:
                        errors.row(path, line_no, exc)
                        continue
                    for item in embedded if not options.tracks_only else ():
                        tracks.setdefault(item.id, item)
                    episodes.write_model(episode)
                    user = episode.profile["dialog_id"]
                    for track_id in liked:
                        spill.add(user, track_id, 1.0)
                        interactions.write({"user_id": user, "item_id": track_id, "value": 1.0, "source": "cpcd"})
                    for track_id in disliked:
                        if track_id in liked:
                            continue
                        spill.add(user, track_id, 0.0)
                        if options.disliked_value is not None:
                            interactions.write({"user_id": user, "item_id": track_id,
                                                "value": options.disliked_value, "source": "cpcd"})
            users = writer.sink(USERS)
            for user_row in spill.user_rows(likes_and_dislikes(like_at=1.0, dislike_below=0.5)):
                users.write(user_row)
        finally:
            spill.close()
        items = writer.sink(ITEMS)
        for item in tracks.values():
            items.write_model(item)
        sources = [*dialogs] + ([Path(options.tracks)] if options.tracks else [])
        return commit_import(writer, format_name="cpcd", domain="track", item_noun="tracks", options=options,
                             sources=sources, errors=errors, started=started, rows_read=read)


def _run(paths: dict, out: Path, options: ImportOptions) -> ImportReport:
    return import_cpcd(paths["dialogs"], out, options)  # type: ignore[arg-type]


FORMAT = DatasetFormat(
    name="cpcd",
    summary="CPCD playlist conversations (cpcd_v1.dialogs.*.jsonl, optional --tracks cpcd_v1.tracks.jsonl)",
    paths=(PathArg("dialogs", "CPCD dialog files, one conversation per line", many=True),),
    options=CpcdOptions,
    run=_run,
)
