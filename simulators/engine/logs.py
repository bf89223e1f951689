"""Append-only JSONL logs: one line per record, written with a single append.

A run directory holds `episodes.jsonl` (one `Episode` per line), `timings.jsonl` and
`llm_calls.jsonl`. A line is written with one `os.write` on an `O_APPEND` descriptor, so
an interrupted run loses no finished episode and never leaves two records interleaved. A
last line cut by a hard kill is reported (file and line) when the log is read, and
removed when the log is next opened for appending (a resumed run): that episode had not
finished, it runs again, and the log holds no unreadable line.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from environments.errors import CrsimError
from environments.models import EPISODE_SCHEMA_VERSION, Episode

M = TypeVar("M", bound=BaseModel)

EPISODES_FILE = "episodes.jsonl"
TIMINGS_FILE = "timings.jsonl"
LLM_CALLS_FILE = "llm_calls.jsonl"
BUILD_CALLS_ID = "build"
"""`episode_id` of the LLM calls agents made while being built, before any episode."""


class LogWriteError(CrsimError):
    """A log line could not be written (disk full, quota, file size limit)."""


class JsonlAppender:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._remove_cut_line()

    def _remove_cut_line(self) -> None:
        """Truncate a last line that has no newline: a write the process never finished."""
        size = self.path.stat().st_size if self.path.exists() else 0
        if not size:
            return
        with self.path.open("rb+") as handle:
            tail = 1 << 16
            while True:
                start = max(0, size - tail)
                handle.seek(start)
                chunk = handle.read(size - start)
                if chunk.endswith(b"\n"):
                    return
                cut = chunk.rfind(b"\n")
                if cut >= 0 or start == 0:
                    handle.truncate(start + cut + 1)
                    return
                tail *= 2

    def _write(self, data: bytes) -> None:
        """One append; a write the disk cannot take (full, quota, file size limit) is undone
        (the file cut back to where it was, so no partial line stays) and reported as a
        `LogWriteError`. Only one process appends to a log, so cutting back is safe."""
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            before = os.fstat(fd).st_size
            try:
                rest = memoryview(data)
                while rest:  # a short write (the disk took part of the line) is continued
                    written = os.write(fd, rest)
                    if not written:
                        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                    rest = rest[written:]
            except OSError as exc:
                os.ftruncate(fd, before)
                raise LogWriteError(f"cannot write {self.path} ({exc.strerror}): the record was not logged and "
                                   "everything logged before is intact; free space and run the same command again "
                                   "to finish the rest") from exc
        finally:
            os.close(fd)

    def append(self, record: BaseModel | dict[str, Any]) -> None:
        self._write(encode_line(record))

    def append_line(self, line: bytes) -> None:
        """Append a line `encode_line` made (in a worker process: the parent only writes)."""
        self._write(line)


def encode_line(record: BaseModel | dict[str, Any]) -> bytes:
    """A record as one newline-terminated JSONL line."""
    line = record.model_dump_json() if isinstance(record, BaseModel) else json.dumps(record, sort_keys=True)
    return line.encode("utf-8") + b"\n"


@dataclass(frozen=True, slots=True)
class LogProblem:
    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}, line {self.line}: {self.message}"


def read_json_lines(path: Path, problems: list[LogProblem]) -> Iterator[tuple[int, Any]]:
    """(line number, parsed JSON) per non-blank line; a line that is not JSON (cut by a hard
    kill, corrupted) is added to `problems` and skipped. A missing file has no lines."""
    path = Path(path)
    if not path.exists():
        return
    for line_no, raw in _lines(path):
        try:
            yield line_no, json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.append(LogProblem(path, line_no, f"not valid JSON ({exc.msg}); cut or corrupted line"))


def read_records(path: Path, model: type[M]) -> tuple[list[M], list[LogProblem]]:
    """Valid records and a problem per unreadable line; never stops at a bad line."""
    records: list[M] = []
    problems: list[LogProblem] = []
    path = Path(path)
    for line_no, data in read_json_lines(path, problems):
        if model is Episode:
            data, problem = upgrade_episode(data)
            if problem:
                problems.append(LogProblem(path, line_no, problem))
                continue
        try:
            records.append(model.model_validate(data))
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(map(str, first["loc"]))
            problems.append(LogProblem(path, line_no, f"field '{field}': {first['msg']}"))
    return records, problems


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Version 2 only added optional fields (`LLMCallSummary.cost_usd`): relabel."""
    return {**data, "schema_version": 2}


def _v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """Version 3 generalised one target to many: `target_item` becomes `targets`, and each
    `RankingRecord` becomes a `TurnEvaluation` holding that target's rank. The record's
    `source_turn` (which transcript move it evaluates) is the n-th recommender move after
    the environment's opening line, which is how version 2 counted ranking turns."""
    data = dict(data)
    target = data.pop("target_item", None)
    rankings = data.pop("rankings", None) or []
    moves = [t.get("index", position) for position, t in enumerate(data.get("turns") or [])
             if isinstance(t, dict) and t.get("role") == "recommender" and not (t.get("metadata") or {}).get("opening")]
    evaluations = []
    for record in rankings:
        if not isinstance(record, dict):
            evaluations.append(record)  # left for validation to report
            continue
        turn = record.get("turn")
        ranks = [{"item_id": target, "rank": record.get("target_rank"), "n_better": record.get("n_better"),
                  "n_tied": record.get("n_tied")}] if target is not None else []
        source = moves[turn - 1] if isinstance(turn, int) and 0 < turn <= len(moves) else None
        evaluations.append({"turn": turn, "source_turn": source, "n_candidates": record.get("n_candidates", 0),
                            "ranks": ranks, "top": record.get("top", [])})
    return {**data, "schema_version": 3, "targets": [target] if target is not None else [],
            "evaluations": evaluations}


# Episode schema version -> step to the next version. Every older version a released crsim
# wrote stays readable by chaining these; a change that cannot be upgraded is refused.
EPISODE_UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2, 2: _v2_to_v3}


def upgrade_episode(data: Any) -> tuple[Any, str | None]:
    """An episode record brought to `EPISODE_SCHEMA_VERSION`, or a message saying why not."""
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version == EPISODE_SCHEMA_VERSION:
        return data, None
    readable = f"this crsim reads episode schema versions 1 to {EPISODE_SCHEMA_VERSION}"
    if not isinstance(version, int) or isinstance(version, bool):
        return data, f"field 'schema_version': missing or not a number ({version!r}); {readable}"
    if version > EPISODE_SCHEMA_VERSION:
        return data, f"episode schema version {version} was written by a newer crsim; {readable}"
    while version in EPISODE_UPGRADES:
        data = EPISODE_UPGRADES[version](data)
        version = data["schema_version"]
    if version != EPISODE_SCHEMA_VERSION:
        return data, f"episode schema version {version} cannot be read; {readable}"
    return data, None


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for line_no, raw in enumerate(handle, start=1):
            if raw.strip():
                yield line_no, raw


def read_episodes(path: Path) -> tuple[list[Episode], list[LogProblem]]:
    return read_records(path, Episode)


UNREACHED = "RemoteAgentError"  # the exception an episode's remote agent ends it with (agents/remote/client.py)


@dataclass(frozen=True, slots=True)
class _Where:
    id: str
    index: int
    offset: int
    line: int
    termination: str | None
    unreached: bool = False  # ended by an agent that could not be reached (runs again on resume)


class LoggedEpisodes:
    """One config's finished episodes in a run log, read lazily: memory stays flat in the
    number of episodes (a 10,000-episode run need not hold 10,000 transcripts to be scored).

    Opening it scans the log once with plain JSON (no validation) and keeps, per episode id
    under `config_hash`, where its latest line is; iterating reads and validates those lines
    one at a time, in episode-index order (the order results and bootstrap resamples use),
    and can be repeated. Unreadable lines are in `problems` (a line that is JSON but not a
    valid episode is found, and reported, when iterated). `wanted` limits it to those ids.
    """

    def __init__(self, path: Path, config_hash: str, wanted: set[str] | None = None):
        self.path = Path(path)
        self.problems: list[LogProblem] = []
        self._reported: set[int] = set()
        latest: dict[str, _Where] = {}
        if self.path.exists():
            with self.path.open("rb") as handle:
                offset = 0
                for line_no, raw in enumerate(handle, start=1):
                    start, offset = offset, offset + len(raw)
                    if not raw.strip():
                        continue
                    try:
                        data = json.loads(raw)
                    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
                        self.problems.append(LogProblem(self.path, line_no, f"not valid JSON ({reason}); cut or "
                                                                             "corrupted line"))
                        continue
                    data, problem = upgrade_episode(data)
                    if problem:
                        self.problems.append(LogProblem(self.path, line_no, problem))
                        continue
                    episode_id = data.get("id")
                    if data.get("config_hash") != config_hash or not isinstance(episode_id, str) or \
                            (wanted is not None and episode_id not in wanted):
                        continue
                    index = data.get("index") if isinstance(data.get("index"), int) else 0
                    unreached = data.get("termination") == "error" and UNREACHED in str(data.get("error") or "")
                    latest[episode_id] = _Where(episode_id, index, start, line_no, data.get("termination"),
                                                unreached)
        self._where = sorted(latest.values(), key=lambda w: (w.index, w.offset))

    def __len__(self) -> int:
        return len(self._where)

    def count(self, termination: str) -> int:
        """Episodes that ended with `termination` (from the scan: no re-read)."""
        return sum(1 for w in self._where if w.termination == termination)

    def ids_except(self, termination: str) -> frozenset[str]:
        """Ids of episodes that did not end with `termination` (a budget-ended one runs again)."""
        return frozenset(w.id for w in self._where if w.termination != termination)

    def unreached_ids(self) -> frozenset[str]:
        """Ids of episodes that ended because a remote agent could not be reached or answered
        garbage (`agents.remote.client.RemoteAgentError`): they run again on resume."""
        return frozenset(w.id for w in self._where if w.unreached)

    def __iter__(self) -> Iterator[Episode]:
        if not self._where:
            return
        with self.path.open("rb") as handle:
            for where in self._where:
                handle.seek(where.offset)
                data, _ = upgrade_episode(json.loads(handle.readline()))
                try:
                    yield Episode.model_validate(data)
                except ValidationError as exc:
                    if where.line not in self._reported:
                        self._reported.add(where.line)
                        first = exc.errors()[0]
                        self.problems.append(LogProblem(self.path, where.line,
                                                        f"field '{'.'.join(map(str, first['loc']))}': {first['msg']}"))
