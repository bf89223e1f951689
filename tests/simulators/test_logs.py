"""Reading episode logs: older schema versions load, unknown ones and cut lines are reported."""

from __future__ import annotations

import json

from crsim_testing import make_episode

from environments.models import EPISODE_SCHEMA_VERSION
from simulators.logs import read_episodes


def _line(index: int, **changes) -> str:
    data = json.loads(make_episode(index, [3, 1]).model_dump_json())
    data.update(changes)
    return json.dumps(data)


def test_version_1_logs_load_and_are_upgraded(tmp_path):
    v1 = json.loads(_line(0, schema_version=1))
    v1["llm_calls"] = [{"step": "s", "role": "seeker", "prompt_hash": "h", "ok": True}]  # no cost_usd in v1
    log = tmp_path / "episodes.jsonl"
    log.write_text(json.dumps(v1) + "\n" + _line(1) + "\n", encoding="utf-8")
    episodes, problems = read_episodes(log)
    assert problems == []
    assert [e.schema_version for e in episodes] == [EPISODE_SCHEMA_VERSION] * 2
    assert episodes[0].llm_calls[0].cost_usd is None and episodes[0].rankings[-1].target_rank == 1


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
