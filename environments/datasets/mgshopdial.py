"""MG-ShopDial (Bernard & Balog, SIGIR 2023): people shopping in conversation -> episodes.

Why crsim reads it: the review catalogs' seekers (Amazon products, clothing) have no corpus
of their own, and ReDial's people talk about films. MG-ShopDial's 64 conversations are
people asking a shop assistant (another person, coached but not scripted) for books,
phones and accessories, sports gear and office supplies: what `crsim validate` compares a
review-catalog run with. The release carries no licence, so crsim ships nothing built from
it; a user imports their own copy.

Input, as released (github.com/iai-group/MG-ShopDial, `MGShopDial/MGShopDial.json`): one JSON
array of conversations

    {"id": "Books:45:109:118",
     "metadata": {"id": "45", "type": "simple" | "complex", "constraint": "low" | "medium" | "high",
                  "desc": "<the client's task>", "client_checklist": [...], "wizard_checklist": [...],
                  "search_logs": [{"query": ..., "indices": [...]}, ...]},
     "utterances": [{"utterance_id": 1, "participant": "Client" | "Wizard", "utterance": "...",
                     "goal": "search" | "recommendation" | "qa" | "meta",
                     "intents": [["elicit", 2.0], ...]}, ...]}

`intents` gives each intent with the number of annotators (of five) who chose it.

Each conversation becomes an `Episode` in `dialogues.jsonl`: Client utterances are seeker
turns, Wizard utterances recommender turns, in file order (consecutive utterances of one
participant stay separate turns, as the release has them). A turn's `metadata` keeps its
`goal` and `intents` ({intent: annotators}). The release has no train/test split: an
episode's `profile.split` is its product category, from the id's first part ("Books" ->
`books`, "Cellphones&Accessories" -> `cellphones_accessories`), so `crsim validate RUN
--against DIR:sportsandoutdoors` compares with one category's people. The task given to the
client (`desc`, `type`, `constraint`, checklists) and the assistant's searches go to
`profile`. No item is named in a structured way, so the catalog has no items.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from environments.catalog.store import DIALOGUES
from environments.datasets.base import BadRow, DatasetFormat, ImportOptions, ImportReport, PathArg, RowErrors
from environments.datasets.fields import req_str, speaker_and_text
from environments.datasets.readers import iter_json_array
from environments.datasets.writer import CatalogWriter, commit_import
from environments.errors import CrsimError
from environments.models import Episode, Role, TerminationReason, Turn

PARTICIPANTS = {"Client": Role.seeker, "Wizard": Role.recommender}
TASK_KEYS = ("id", "type", "constraint", "desc", "client_checklist", "wizard_checklist", "search_logs")


def category_split(conversation_id: str) -> str:
    """`Cellphones&Accessories:49:131:127` -> `cellphones_accessories`: the product category as a split name."""
    category = conversation_id.split(":", 1)[0]
    return re.sub(r"[^a-z0-9]+", "_", category.lower()).strip("_")


def intents_of(value: Any, where: str) -> dict[str, float]:
    """[["elicit", 2.0], ...] -> {"elicit": 2.0}: each intent and how many annotators chose it."""
    if type(value) is not list:
        raise BadRow(where, "missing" if value is None else f"expected a list, got {type(value).__name__}")
    intents: dict[str, float] = {}
    for position, pair in enumerate(value):
        if (type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str
                or type(pair[1]) not in (int, float)):
            raise BadRow(f"{where}[{position}]", f"expected [intent, annotators], got {pair!r}")
        intents[pair[0]] = float(pair[1])
    return intents


def utterance_turn(utterance: Any, position: int) -> Turn:
    where = f"utterances[{position}]"
    role, text = speaker_and_text(utterance, where, PARTICIPANTS, "participant")
    metadata: dict[str, Any] = {"intents": intents_of(utterance.get("intents"), f"{where}.intents")}
    if type(utterance.get("goal")) is str:
        metadata["goal"] = utterance["goal"]
    if type(utterance.get("utterance_id")) is int:
        metadata["utterance_id"] = utterance["utterance_id"]
    return Turn(index=position, role=role, text=text.strip(), metadata=metadata)


def conversation_episode(row: dict[str, Any], index: int) -> Episode:
    conversation_id = req_str(row, "id")
    utterances = row.get("utterances")
    if type(utterances) is not list:
        raise BadRow("utterances", "missing" if utterances is None
                     else f"expected a list, got {type(utterances).__name__}")
    task = row.get("metadata") or {}
    if type(task) is not dict:
        raise BadRow("metadata", f"expected an object, got {type(task).__name__}")
    turns = [utterance_turn(utterance, position) for position, utterance in enumerate(utterances)]
    profile = {"conversation_id": conversation_id, "split": category_split(conversation_id),
               "category": conversation_id.split(":", 1)[0],
               "task": {key: task[key] for key in TASK_KEYS if key in task}}
    return Episode(id=f"mgshopdial-{conversation_id}", index=index, config_hash="import:mgshopdial", seed=0,
                   environment="mgshopdial", targets=[], profile=profile, turns=turns,
                   termination=TerminationReason.seeker_quit)


def import_mgshopdial(dialogues: list[Path], out: Path, options: ImportOptions | None = None) -> ImportReport:
    """Import MG-ShopDial's MGShopDial.json into the catalog directory `out`."""
    options = options or ImportOptions()
    started = time.perf_counter()
    errors = RowErrors(options.skip_bad)
    dialogues = [Path(p).expanduser() for p in dialogues]
    if not dialogues:
        raise CrsimError("MG-ShopDial: give the release's MGShopDial.json")
    with CatalogWriter(out, force=options.force) as writer:
        episodes = writer.sink(DIALOGUES)
        read = 0
        for path in dialogues:
            for line, row in iter_json_array(path, errors):
                read += 1
                try:
                    episodes.write_model(conversation_episode(row, episodes.count))
                except BadRow as exc:
                    errors.row(path, line, exc)
        return commit_import(writer, format_name="mgshopdial", domain="products", item_noun="products",
                             options=options, sources=dialogues, errors=errors, started=started, rows_read=read)


def _run(paths: dict, out: Path, options: ImportOptions) -> ImportReport:
    return import_mgshopdial(paths["dialogues"], out, options)  # type: ignore[arg-type]


FORMAT = DatasetFormat(
    name="mgshopdial",
    summary="MG-ShopDial's MGShopDial.json (people shopping in conversation) -> episodes, split by product category",
    paths=(PathArg("dialogues", "MGShopDial.json, one JSON array of conversations", many=True),),
    options=ImportOptions,
    run=_run,
)
