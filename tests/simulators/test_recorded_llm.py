"""Regression tests on a real instruct model's answers, offline: each fixture under
`fixtures/recorded_llm/` is a run of Qwen2.5-Coder-1.5B-Instruct on the tiny catalog
(`scripts/record_llm_fixtures.py`), replayed here with `llm=replay`.

A prompt edited by mistake changes the prompt's hash and misses the recording; a schema or
parser change that no longer reads the model's real answers changes which calls are
valid, repaired or fall back. Both fail here without running the model. After changing a
prompt on purpose, record again (and read the new transcripts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from crsim_testing import crsim

FIXTURES = Path(__file__).parent / "fixtures" / "recorded_llm"
RECORDINGS = sorted(path.name for path in FIXTURES.iterdir() if (path / "run.json").exists())


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _outcomes(calls: list[dict]) -> dict[str, list[tuple[str, bool, bool]]]:
    """Per episode, in order: each call's step, whether its answer was usable, whether it was a repair."""
    by_episode: dict[str, list[tuple[str, bool, bool]]] = {}
    for call in calls:
        by_episode.setdefault(call["episode_id"], []).append((call["step"], call["ok"], call["repaired"]))
    return by_episode


def _texts(episodes: list[dict]) -> dict[str, list[str]]:
    return {episode["id"]: [turn["text"] for turn in episode["turns"]] for episode in episodes}


def test_there_are_recordings_and_they_are_of_a_real_model():
    assert {"seeker_answer", "sniprec_query", "item_answer"} <= set(RECORDINGS)
    for name in RECORDINGS:
        calls = _lines(FIXTURES / name / "llm_calls.jsonl")
        assert calls and {call["model"] for call in calls} == {"local:qwen2.5-1.5b.gguf"}
        assert all(call["response"] and not call["cache_hit"] for call in calls)  # answered then, not replayed


@pytest.mark.parametrize("name", RECORDINGS)
def test_a_replayed_run_reads_every_answer_as_the_model_gave_it(name, tiny_catalog_dir, tmp_path):
    fixture = FIXTURES / name
    run = json.loads((fixture / "run.json").read_text(encoding="utf-8"))
    recorded_calls = _lines(fixture / "llm_calls.jsonl")
    first = recorded_calls[0]
    params = ",".join(f"{key}:{json.dumps(value)}" for key, value in sorted(first["params"].items()))
    role = run["role"]
    out = crsim("run", f"environment.catalog={tiny_catalog_dir}", *run["overrides"], f"llm@{role}.llm=replay",
                f"{role}.llm.path={fixture / 'llm_calls.jsonl'}", f"{role}.llm.model={first['model']}",
                f"+{role}.llm.params={{{params}}}", f"hydra.run.dir={tmp_path / 'run'}")
    assert out.returncode == 0, out.stderr[-3000:]
    replayed_calls = _lines(tmp_path / "run" / "llm_calls.jsonl")
    assert all(call["cache_hit"] is False for call in replayed_calls)
    # every call found its recorded answer (a miss would have ended the episode with an error),
    # and each answer is usable, repaired or rejected exactly as when the model gave it
    assert _outcomes(replayed_calls) == _outcomes(recorded_calls)
    assert _texts(_lines(tmp_path / "run" / "episodes.jsonl")) == _texts(_lines(fixture / "episodes.jsonl"))
    assert not any(episode.get("error") for episode in _lines(tmp_path / "run" / "episodes.jsonl"))
