"""`LoggedEpisodes`: a run's episodes read lazily from its log, in index order, latest line
per id, this config only; what a run scores without holding every transcript."""

from __future__ import annotations

import json
from pathlib import Path

from environments.models import Episode, TerminationReason
from simulators.engine.logs import JsonlAppender, LoggedEpisodes


def episode(index: int, config_hash: str = "abc", termination: str = "accepted", text: str = "") -> Episode:
    return Episode(id=f"e{index}", index=index, config_hash=config_hash, seed=index, environment="x",
                   termination=TerminationReason(termination), profile={"note": text})


def test_latest_line_per_id_in_index_order_this_config_only(tmp_path: Path) -> None:
    log = tmp_path / "episodes.jsonl"
    appender = JsonlAppender(log)
    for record in (episode(2), episode(0), episode(1, termination="budget"), episode(5, config_hash="other"),
                   episode(1, text="rerun")):
        appender.append(record)
    with log.open("a") as handle:
        handle.write('{"id": "e9", "cut here\n')
    logged = LoggedEpisodes(log, "abc")
    assert len(logged) == 3 and [e.id for e in logged] == ["e0", "e1", "e2"]
    assert [e.profile.get("note") for e in logged] == ["", "rerun", ""]  # the re-run replaced the first
    assert [e.id for e in logged] == ["e0", "e1", "e2"]  # iterating twice reads the log again
    assert logged.count("accepted") == 3 and logged.ids_except("accepted") == frozenset()
    assert [p.line for p in logged.problems] == [6] and "cut or corrupted" in logged.problems[0].message
    assert [e.id for e in LoggedEpisodes(log, "abc", wanted={"e0", "e2"})] == ["e0", "e2"]


def test_a_json_line_that_is_no_episode_is_reported_once_when_read(tmp_path: Path) -> None:
    log = tmp_path / "episodes.jsonl"
    JsonlAppender(log).append(episode(0))
    bad = json.loads(episode(1).model_dump_json())
    bad["termination"] = "exploded"
    with log.open("a") as handle:
        handle.write(json.dumps(bad) + "\n")
    logged = LoggedEpisodes(log, "abc")
    assert len(logged) == 2 and not logged.problems
    assert [e.id for e in logged] == ["e0"] and [e.id for e in logged] == ["e0"]
    assert len(logged.problems) == 1 and logged.problems[0].line == 2 and "termination" in logged.problems[0].message


def test_a_missing_log_has_no_episodes(tmp_path: Path) -> None:
    logged = LoggedEpisodes(tmp_path / "none.jsonl", "abc")
    assert len(logged) == 0 and list(logged) == [] and not logged.problems
