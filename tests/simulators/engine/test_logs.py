"""Reading episode logs: older schema versions load, unknown ones and cut lines are reported."""

from __future__ import annotations

import json

from crsim_testing import make_episode

from environments.models import EPISODE_SCHEMA_VERSION
from simulators.engine.logs import read_episodes


def _line(index: int, **changes) -> str:
    data = json.loads(make_episode(index, [3, 1]).model_dump_json())
    data.update(changes)
    return json.dumps(data)


def _old(version: int) -> dict:
    """An episode line as releases with schema 1 and 2 wrote it: one target, `rankings`."""
    turns = [{"index": 0, "role": "recommender", "text": "Hello?", "items_shown": [], "feedback": {},
              "metadata": {"opening": True}},
             {"index": 1, "role": "seeker", "text": "Thai", "items_shown": [], "feedback": {}, "metadata": {}},
             {"index": 2, "role": "recommender", "text": "Price?", "items_shown": ["i1", "i2"], "feedback": {},
              "metadata": {"aspect": "price"}},
             {"index": 3, "role": "seeker", "text": "Cheap", "items_shown": [], "feedback": {}, "metadata": {}},
             {"index": 4, "role": "recommender", "text": "Noise?", "items_shown": ["i2", "i1"], "feedback": {},
              "metadata": {}}]
    call = {"step": "s", "role": "seeker", "prompt_hash": "h", "ok": True}
    if version >= 2:
        call["cost_usd"] = 0.5
    return {"schema_version": version, "id": f"v{version}", "index": version, "config_hash": "h", "seed": 1,
            "environment": "single_target", "target_item": "i2", "profile": {}, "turns": turns,
            "rankings": [{"turn": 1, "target_rank": 3, "n_better": 2, "n_tied": 1, "n_candidates": 9, "top": ["i1"]},
                         {"turn": 2, "target_rank": 1, "n_better": 0, "n_tied": 1, "n_candidates": 9, "top": ["i2"]}],
            "termination": "max_turns", "llm_calls": [call], "error": None}


def test_version_1_and_2_logs_load_and_are_upgraded(tmp_path):
    log = tmp_path / "episodes.jsonl"
    log.write_text(json.dumps(_old(1)) + "\n" + json.dumps(_old(2)) + "\n" + _line(3) + "\n", encoding="utf-8")
    episodes, problems = read_episodes(log)
    assert problems == []
    assert [e.schema_version for e in episodes] == [EPISODE_SCHEMA_VERSION] * 3
    assert episodes[0].llm_calls[0].cost_usd is None and episodes[1].llm_calls[0].cost_usd == 0.5
    for old in episodes[:2]:
        assert old.targets == ["i2"] and old.target_item == "i2"
        assert [(r.turn, r.source_turn, r.n_candidates, r.top) for r in old.evaluations] == \
            [(1, 2, 9, ["i1"]), (2, 4, 9, ["i2"])]
        assert [(t.item_id, t.rank, t.n_better) for r in old.evaluations for t in r.ranks] == [("i2", 3, 2), ("i2", 1, 0)]


def test_unknown_versions_and_cut_lines_are_reported_by_line_and_the_rest_is_used(tmp_path):
    log = tmp_path / "episodes.jsonl"
    cut = _line(3)[:40]
    log.write_text("\n".join([_line(0), _line(1, schema_version=99), cut, _line(2, schema_version="x"),
                              _line(4, termination="exploded"), _line(5)]) + "\n", encoding="utf-8")
    episodes, problems = read_episodes(log)
    assert [e.index for e in episodes] == [0, 5]
    by_line = {p.line: p.message for p in problems}
    assert set(by_line) == {2, 3, 4, 5}
    assert "version 99 was written by a newer crsim" in by_line[2]
    assert "cut or corrupted" in by_line[3]
    assert "schema_version" in by_line[4]
    assert "field 'termination'" in by_line[5]
    assert all(str(log) in str(p) for p in problems)


def test_a_write_the_disk_cannot_take_is_undone_and_reported(tmp_path, monkeypatch):
    import errno
    import os

    import pytest

    from simulators.engine.logs import JsonlAppender, LogWriteError

    log = tmp_path / "episodes.jsonl"
    appender = JsonlAppender(log)
    appender.append({"id": "e0"})
    real_write, calls = os.write, []

    def full_disk(fd, data):  # takes the first 5 bytes of the line, then the disk is full
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, bytes(data[:5]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(LogWriteError, match=r"episodes.jsonl \(No space left on device\).*run the same command"):
        appender.append({"id": "e1", "text": "x" * 100})
    monkeypatch.setattr(os, "write", real_write)
    assert log.read_text() == '{"id": "e0"}\n'  # no partial line left behind
    appender.append({"id": "e2"})
    assert log.read_text().splitlines() == ['{"id": "e0"}', '{"id": "e2"}']
