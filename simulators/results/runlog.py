"""Logged runs as readers see them: episodes, config and LLM calls of a run directory.

Replay, reports and re-scoring all start from what a run left on disk, so they share one
loader. A *run* is a directory holding `episodes.jsonl` (plus, when `crsim run` wrote it,
`config.yaml`, `config_hash.txt` and `llm_calls.jsonl`); a *sweep* is a directory with
runs below it. A log file can also be given directly (an imported `dialogues.jsonl`, an
`episodes.jsonl` copied elsewhere). Bad lines never stop a read: each is reported with
file and line (`LogProblem`) and the valid lines are used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from environments.errors import CrsimError
from environments.models import Episode
from simulators.engine.logs import EPISODES_FILE, LLM_CALLS_FILE, LogProblem, read_episodes, read_json_lines
from simulators.metrics import Metric, run_metrics
from simulators.results.sweep import job_labels, job_overrides

CONFIG_FILE = "config.yaml"
CONFIG_HASH_FILE = "config_hash.txt"


@dataclass
class LoggedRun:
    """One run's log. `episodes` holds the latest line per episode id, in index order."""

    log_path: Path
    label: str
    episodes: list[Episode]
    problems: list[LogProblem] = field(default_factory=list)
    config: dict[str, Any] | None = None

    @property
    def run_dir(self) -> Path:
        return self.log_path.parent

    @property
    def max_turns(self) -> int:
        """The run's turn limit from its config, else the deepest turn any episode reached."""
        if self.config and isinstance(self.config.get("max_turns"), int):
            return int(self.config["max_turns"])
        deepest = [r.turn for e in self.episodes for r in e.evaluations]
        deepest += [sum(1 for t in e.turns if t.role == "recommender" and not t.metadata.get("opening"))
                    for e in self.episodes]  # logs without records (imported dialogues): count rounds
        return max(deepest, default=1) or 1

    @cached_property
    def metrics(self) -> list[Metric]:
        """The metrics the run was configured with (the single-target set for older runs)."""
        return run_metrics(self.config)

    @property
    def seed(self) -> int:
        return int((self.config or {}).get("seed", 0))

    def episode(self, episode_id: str) -> Episode:
        for episode in self.episodes:
            if episode.id == episode_id:
                return episode
        known = ", ".join(e.id for e in self.episodes[:5])
        raise CrsimError(f"{self.log_path}: no episode '{episode_id}' (ids look like: {known})")

    @cached_property
    def llm_calls(self) -> dict[str, list[dict[str, Any]]]:
        """Full LLM call records of each episode (from `llm_calls.jsonl`), in call order."""
        calls, _ = read_llm_calls(self.run_dir / LLM_CALLS_FILE)
        return calls


def read_llm_calls(path: Path) -> tuple[dict[str, list[dict[str, Any]]], list[LogProblem]]:
    """`llm_calls.jsonl` grouped by episode id; unreadable lines reported, not fatal."""
    by_episode: dict[str, list[dict[str, Any]]] = {}
    problems: list[LogProblem] = []
    for line_no, record in read_json_lines(path, problems):
        if not isinstance(record, dict) or "episode_id" not in record:
            problems.append(LogProblem(path, line_no, "field 'episode_id': missing"))
            continue
        by_episode.setdefault(str(record["episode_id"]), []).append(record)
    return by_episode, problems


def find_logs(path: Path | str) -> list[Path]:
    """The episode logs a path stands for: the file itself, a run's log, or every run's below."""
    path = Path(path).expanduser()
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise CrsimError(f"{path}: no such log file or directory")
    if (path / EPISODES_FILE).is_file():
        return [path / EPISODES_FILE]
    logs = sorted(p for p in path.rglob(EPISODES_FILE) if p.is_file())
    if not logs:
        raise CrsimError(f"{path}: no {EPISODES_FILE} in it or below it")
    return logs


def load_run(log: Path | str, label: str | None = None) -> LoggedRun:
    """Load one run from its log file or directory (a sweep directory is an error here)."""
    logs = find_logs(log)
    if len(logs) > 1:
        raise CrsimError(f"{log}: holds {len(logs)} runs; name one of them (e.g. {logs[0].parent})")
    return _load(logs[0], label or logs[0].parent.name)


def load_runs(path: Path | str) -> list[LoggedRun]:
    """Every run at or below `path`, labelled by the overrides that tell them apart."""
    path = Path(path).expanduser()
    logs = find_logs(path)
    if len(logs) == 1:
        return [_load(logs[0], _single_label(logs[0]))]
    labels = job_labels([log.parent for log in logs], path)
    return [_load(log, label) for log, label in zip(logs, labels, strict=True)]


def _single_label(log: Path) -> str:
    overrides = job_overrides(log.parent)
    return ",".join(overrides) if overrides else log.parent.name or "run"


def _load(log: Path, label: str) -> LoggedRun:
    episodes, problems = read_episodes(log)
    config = _read_config(log.parent / CONFIG_FILE) if log.name == EPISODES_FILE else None
    hash_file = log.parent / CONFIG_HASH_FILE
    if config is not None and hash_file.is_file():
        wanted = hash_file.read_text(encoding="utf-8").strip()
        current = [e for e in episodes if e.config_hash == wanted]
        episodes = current or episodes  # an edited config: keep what is there rather than nothing
    latest = {e.id: e for e in episodes}  # a resumed run may re-log an episode; the last line wins
    ordered = sorted(latest.values(), key=lambda e: (e.index, e.id))
    return LoggedRun(log, label, ordered, problems, config)


def _read_config(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise CrsimError(f"{path}: not valid YAML ({exc})") from None
    return data if isinstance(data, dict) else None
