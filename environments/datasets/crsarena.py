"""CRS Arena (Bernard et al., WSDM 2025; Joko et al., 2025): people talking with nine CRSs -> episodes
with what the people said of them.

Inputs, as released:

- CRSArena-Dial (github.com/iai-group/crsarena-dial, `data/`): `crs_arena_dial_open.json` and
  `crs_arena_dial_closed.json`, each one JSON array of conversations
  `{"conversation ID": "<crs>_<user id>", "agent": {"id": "<crs>", "type": "AGENT"},
  "user": {"id": ..., "type": "USER"}, "conversation": [{"participant": "USER" | "AGENT",
  "utterance": ..., "utterance ID": ...}, ...], "metadata": {"sentiment": "satisfied" | "frustrated"}}`,
  and the pairwise battles `votes_open.csv` / `votes_closed.csv`
  (`session_id,user_id,crs1,crs2,vote,feedback`; `vote` is crs1, crs2 or `tie`);
- CRSArena-Eval (github.com/informagi/face, `dataset/crs_arena_eval.json`), optional: one JSON
  array of the same conversations `{"conv_id", "dialogue": [{"turn_ind", "role": "USER" | "ASST",
  "utterance", "turn_level_aggregated": {"relevance", "interestingness"}}], "dial_level_aggregated":
  {"understanding", "task_completion", "interest_arousal", "efficiency", "dialogue_overall", ...}}`
  with the annotators' aggregated labels.

Each CRSArena-Dial conversation becomes an `Episode` in `dialogues.jsonl`: USER utterances are
seeker turns, AGENT utterances recommender turns (in file order; the few conversations with
two user utterances in a row keep them as two turns). The CRS, the person's satisfaction,
their vote and the dialogue-level labels go to `profile`; a recommender turn's labels to its
`metadata["labels"]`. Every vote row is also written to `votes.jsonl` (a battle whose other
conversation is missing still ranks the CRSs).

CRS Arena names no items in a structured way. Items are the movie names the CRSs' turns
show, found by two rules (`titles_in`): an entry of a numbered list ("1: Arrival (2016)",
"2  The Matrix"), and a run of capitalised words right before a year in brackets ("Have
you seen Blade Runner 2049 (2017)?" -> "Blade Runner 2049 (2017)"). They are the turn's
`items_shown`; a heuristic, good enough for `crsim validate`'s item-name figure, not a
movie database.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field

from environments.catalog.store import DIALOGUES, ITEMS
from environments.datasets.base import BadRow, DatasetFormat, ImportOptions, ImportReport, PathArg, RowErrors
from environments.datasets.fields import req_str, speaker_and_text
from environments.datasets.readers import iter_json_array
from environments.datasets.writer import CatalogWriter, commit_import
from environments.datasets.crsarena_titles import YEAR, titles_in
from environments.datasets.crsarena_votes import DIAL_FILE, Vote, default_votes, read_votes, setting_of
from environments.errors import CrsimError
from environments.models import Episode, Item, Role, TerminationReason, Turn

VOTES = "votes.jsonl"
PARTICIPANTS = {"USER": Role.seeker, "AGENT": Role.recommender}
EVAL_ROLES = {"USER": Role.seeker, "ASST": Role.recommender}
SENTIMENTS = {"satisfied": 1, "frustrated": 0}
#: lower-case words a title may hold between capitalised ones ("The Shape of Water")


class CrsArenaOptions(ImportOptions):
    votes: list[Path] = Field(default_factory=list, description=(
        "CRSArena-Dial vote files (votes_open.csv, votes_closed.csv: session_id,user_id,crs1,crs2,vote,feedback); "
        "default: votes_<setting>.csv next to each crs_arena_dial_<setting>.json given."))
    eval_labels: Path | None = Field(default=None, description=(
        "CRSArena-Eval's crs_arena_eval.json (turn- and dialogue-level human labels of the same "
        "conversations), merged by conversation id."))


def crs_parts(crs: str) -> tuple[str, str]:
    """`kbrd_opendialkg` -> ("kbrd", "opendialkg"): the model and the dataset it was trained on."""
    model, _, dataset = crs.rpartition("_")
    return (model, dataset) if model else (crs, "")


# ----------------------------------------------------------------------------------- titles
# ---------------------------------------------------------------------------------- labels
@dataclass(frozen=True, slots=True)
class Labelled:
    """One CRSArena-Eval conversation: its line, its turns (role, text, labels) and its dialogue labels."""

    line: int
    turns: tuple[tuple[str, str, dict[str, float]], ...]
    labels: dict[str, float]


def _label_dict(value: Any, field: str) -> dict[str, float]:
    if value is None:
        return {}
    if type(value) is not dict:
        raise BadRow(field, f"expected an object of aspect -> number, got {type(value).__name__}")
    out = {}
    for aspect, score in value.items():
        if type(score) not in (int, float):
            raise BadRow(f"{field}.{aspect}", f"expected a number, got {score!r}")
        out[str(aspect)] = score
    return out


def labelled_conversation(row: dict[str, Any]) -> tuple[str, tuple[tuple[str, str, dict[str, float]], ...],
                                                         dict[str, float]]:
    conv_id = req_str(row, "conv_id")
    dialogue = row.get("dialogue")
    if type(dialogue) is not list:
        raise BadRow("dialogue", "missing" if dialogue is None else f"expected a list, got {type(dialogue).__name__}")
    turns = []
    for position, turn in enumerate(dialogue):
        where = f"dialogue[{position}]"
        role, text = speaker_and_text(turn, where, EVAL_ROLES, "role")
        if "turn_ind" in turn and turn["turn_ind"] != position:
            raise BadRow(f"{where}.turn_ind", f"expected {position} (the turn's position), got {turn['turn_ind']!r}")
        turns.append((role.value, text, _label_dict(turn.get("turn_level_aggregated"),
                                                    f"{where}.turn_level_aggregated")))
    return conv_id, tuple(turns), _label_dict(row.get("dial_level_aggregated"), "dial_level_aggregated")


def read_labels(path: Path, errors: RowErrors) -> dict[str, Labelled]:
    labelled: dict[str, Labelled] = {}
    for line, row in iter_json_array(path, errors):
        try:
            conv_id, turns, labels = labelled_conversation(row)
            if conv_id in labelled:
                raise BadRow("conv_id", f"conversation '{conv_id}' already appeared (line {labelled[conv_id].line})")
        except BadRow as exc:
            errors.row(path, line, exc)
            continue
        labelled[conv_id] = Labelled(line, turns, labels)
    return labelled


# ----------------------------------------------------------------------------- dialogues
def _object(row: dict[str, Any], key: str) -> dict[str, Any]:
    value = row.get(key)
    if type(value) is not dict:
        raise BadRow(key, "missing" if value is None else f"expected an object, got {type(value).__name__}")
    return value


def conversation_turns(row: dict[str, Any]) -> list[Turn]:
    conversation = row.get("conversation")
    if type(conversation) is not list:
        raise BadRow("conversation", "missing" if conversation is None
                     else f"expected a list, got {type(conversation).__name__}")
    turns = []
    for position, utterance in enumerate(conversation):
        where = f"conversation[{position}]"
        role, text = speaker_and_text(utterance, where, PARTICIPANTS, "participant")
        metadata = {}
        if isinstance(utterance.get("utterance ID"), str):
            metadata["utterance_id"] = utterance["utterance ID"]
        shown = titles_in(text) if role == Role.recommender else []
        turns.append(Turn(index=position, role=role, text=text, items_shown=shown, metadata=metadata))
    return turns


def check_labels_match(turns: list[Turn], labelled: Labelled) -> None:
    """CRSArena-Eval must hold the same conversation: same roles and texts, turn by turn."""
    if len(turns) != len(labelled.turns):
        raise BadRow("dialogue", f"{len(labelled.turns)} turns, but CRSArena-Dial's conversation has {len(turns)}")
    for position, (turn, (role, text, _labels)) in enumerate(zip(turns, labelled.turns, strict=True)):
        if turn.role != role:
            raise BadRow(f"dialogue[{position}].role", f"'{role}', but CRSArena-Dial's turn is '{turn.role}'")
        if turn.text != text:
            raise BadRow(f"dialogue[{position}].utterance",
                         f"{text[:60]!r} differs from CRSArena-Dial's {turn.text[:60]!r}")


def conversation_episode(row: dict[str, Any], index: int, setting: str,
                         votes: dict[tuple[str, str], Vote]) -> tuple[Episode, str]:
    conversation_id = req_str(row, "conversation ID")
    crs = req_str(_object(row, "agent"), "id")
    user = req_str(_object(row, "user"), "id")
    metadata = row.get("metadata") or {}
    if type(metadata) is not dict:
        raise BadRow("metadata", f"expected an object, got {type(metadata).__name__}")
    sentiment = metadata.get("sentiment")
    if sentiment is not None and sentiment not in SENTIMENTS:
        raise BadRow("metadata.sentiment", f"expected satisfied or frustrated, got {sentiment!r}")
    turns = conversation_turns(row)
    model, dataset = crs_parts(crs)
    vote = votes.get((user, crs))
    profile = {
        "conversation_id": conversation_id, "crs": crs, "crs_model": model, "crs_dataset": dataset,
        "user_id": user, "split": setting, "satisfaction": sentiment,
        "satisfied": SENTIMENTS.get(sentiment) if sentiment is not None else None,
        "vote": vote.for_dialogue(crs) if vote is not None else None,
        "labels": None,
    }
    other = {key: value for key, value in metadata.items() if key != "sentiment"}
    if other:
        profile["dial_metadata"] = other
    episode = Episode(id=f"crsarena-{conversation_id}", index=index, config_hash="import:crsarena", seed=0,
                      environment="crsarena", targets=[], profile=profile, turns=turns,
                      termination=TerminationReason.seeker_quit)
    return episode, conversation_id


def with_labels(episode: Episode, labelled: Labelled) -> Episode:
    turns = [turn.model_copy(update={"metadata": {**turn.metadata, "labels": labels}}) if labels else turn
             for turn, (_role, _text, labels) in zip(episode.turns, labelled.turns, strict=True)]
    return episode.model_copy(update={"turns": turns, "profile": {**episode.profile, "labels": labelled.labels}})


def import_crsarena(dialogues: list[Path], out: Path, options: CrsArenaOptions | None = None) -> ImportReport:
    """Import CRSArena-Dial conversations (+ votes, + CRSArena-Eval labels) into the catalog directory `out`."""
    options = options or CrsArenaOptions()
    started = time.perf_counter()
    errors = RowErrors(options.skip_bad)
    dialogues = [Path(p).expanduser() for p in dialogues]
    if not dialogues:
        raise CrsimError("CRS Arena: give at least one dialogue file (crs_arena_dial_open.json, "
                         "crs_arena_dial_closed.json)")
    vote_files = [Path(p).expanduser() for p in options.votes] or default_votes(dialogues)
    eval_path = Path(options.eval_labels).expanduser() if options.eval_labels else None
    filtered: Counter[str] = Counter()
    with CatalogWriter(out, force=options.force) as writer:
        votes = read_votes(vote_files, errors)
        by_user_crs = {(v.user_id, crs): v for v in votes if not v.repeated for crs in (v.crs1, v.crs2)}
        labelled = read_labels(eval_path, errors) if eval_path is not None else {}
        episodes = writer.sink(DIALOGUES)
        seen: dict[str, tuple[str, int]] = {}
        settings: Counter[str] = Counter()
        mentions: Counter[str] = Counter()
        used_votes: set[int] = set()
        matched_labels: set[str] = set()
        read = 0
        for path in dialogues:
            setting = setting_of(path, DIAL_FILE)
            for line, row in iter_json_array(path, errors):
                read += 1
                try:
                    episode, conversation_id = conversation_episode(row, episodes.count, setting, by_user_crs)
                    if conversation_id in seen:
                        where, first = seen[conversation_id]
                        raise BadRow("conversation ID",
                                     f"conversation '{conversation_id}' already appeared ({where}, line {first})")
                except BadRow as exc:
                    errors.row(path, line, exc)
                    continue
                seen[conversation_id] = (path.name, line)
                found = labelled.get(conversation_id)
                if found is not None:
                    try:
                        check_labels_match(episode.turns, found)
                    except BadRow as exc:
                        assert eval_path is not None
                        errors.row(eval_path, found.line, exc)
                        filtered["conversations imported without labels (CRSArena-Eval's text differs)"] += 1
                    else:
                        episode = with_labels(episode, found)
                        matched_labels.add(conversation_id)
                vote = by_user_crs.get((episode.profile["user_id"], episode.profile["crs"]))
                if vote is not None:
                    used_votes.add(id(vote))
                settings[setting] += 1
                for turn in episode.turns:
                    mentions.update(turn.items_shown)
                episodes.write_model(episode)
        filtered["CRSArena-Eval conversations not in the dialogue files"] += len(set(labelled) - set(seen))
        items = writer.sink(ITEMS)
        for title in mentions:
            year = YEAR.search(title)
            extra_fields: dict[str, Any] = {"mentions": mentions[title]}
            if year:
                extra_fields["year"] = int(year.group(0)[1:-1])
            items.write_model(Item(id=title, title=title, category="movie", extra=extra_fields))
        sink = writer.sink(VOTES) if votes else None
        for vote in votes:
            assert sink is not None
            sink.write({**vote.row(), "repeated": vote.repeated})
        extra = {"settings": dict(settings), "votes": len(votes), "votes_matched": len(used_votes),
                 "votes_repeated": sum(v.repeated for v in votes),
                 "labelled_dialogues": len(matched_labels)}
        sources = [*dialogues, *vote_files] + ([eval_path] if eval_path is not None else [])
        return commit_import(writer, format_name="crsarena", domain="movie", item_noun="movies", options=options,
                             sources=sources, errors=errors, started=started, rows_read=read,
                             filtered=dict(filtered), extra=extra)


def _run(paths: dict, out: Path, options: ImportOptions) -> ImportReport:
    return import_crsarena(paths["dialogues"], out, options)  # type: ignore[arg-type]


FORMAT = DatasetFormat(
    name="crsarena",
    summary=("CRS Arena: CRSArena-Dial conversations (crs_arena_dial_open.json, crs_arena_dial_closed.json; "
             "votes_*.csv next to them) and, with --eval-labels, CRSArena-Eval's human labels -> episodes"),
    paths=(PathArg("dialogues", "CRSArena-Dial conversation files (one JSON array each)", many=True),),
    options=CrsArenaOptions,
    run=_run,
)
