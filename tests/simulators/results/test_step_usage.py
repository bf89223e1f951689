"""Per-step LLM usage: uses, repairs and fallbacks are told apart, episodes interleave safely."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from environments.errors import CrsimError
from simulators.results.step_usage import markdown_table, read_calls, step_usage


def call(step: str, attempt: int, ok: bool, episode: str = "e0", **extra: object) -> dict:
    return {"step": step, "attempt": attempt, "ok": ok, "episode_id": episode, "input_tokens": 10,
            "output_tokens": 2, **extra}


def test_first_try_repaired_and_fallen_back_uses_are_counted_per_step() -> None:
    calls = [
        call("ask", 0, True, generation_s=30.0),
        call("ask", 0, False, episode="e1"),            # e1's use is repaired below, after e0's calls
        call("ask", 0, False), call("ask", 1, False),   # e0: falls back
        call("ask", 1, True, episode="e1"),
        call("pick", 0, True, generation_s=90.0),
    ]
    ask, pick = step_usage(calls)
    assert (ask.step, ask.uses, ask.requests) == ("ask", 3, 5)
    assert (ask.valid_first_try, ask.valid_after_repair, ask.fell_back) == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert (ask.input_tokens, ask.output_tokens, ask.model_minutes) == (50, 10, 0.5)
    assert (pick.uses, pick.valid_first_try, pick.model_minutes) == (1, 1.0, 1.5)
    table = markdown_table([ask, pick])
    assert "| `ask` | 3 | 0.33 | 0.33 | 0.33 | 50 / 10 | 0.5 |" in table
    assert table.splitlines()[-1] == "| all | 4 | | | | 60 / 12 | 2.0 |"


def test_a_bad_log_line_is_named_by_file_and_line(tmp_path: Path) -> None:
    log = tmp_path / "llm_calls.jsonl"
    log.write_text(json.dumps(call("ask", 0, True)) + "\n" + json.dumps({"step": "ask", "ok": True}) + "\n")
    with pytest.raises(CrsimError, match=r"llm_calls.jsonl:2: call record without field 'attempt'"):
        read_calls(tmp_path)
    with pytest.raises(CrsimError, match="no LLM call log"):
        read_calls(tmp_path / "missing")
