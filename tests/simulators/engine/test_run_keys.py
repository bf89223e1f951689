"""Top-level keys are checked before anything is built; each bad one is a one-line fix."""

from __future__ import annotations

import pytest

from crsim_testing import crsim
from environments.errors import CrsimError
from simulators.engine.run_keys import check_run_keys

GOOD = {"episodes": 10, "max_turns": 5, "seed": 0, "concurrency": 8, "progress": True,
        "budget": {"max_tokens": None, "max_cost_usd": None}}


@pytest.mark.parametrize(("key", "value", "fix"), [
    ("episodes", -1, "episodes=100"),
    ("episodes", 0, "episodes=100"),
    ("episodes", "ten", "episodes=100"),
    ("max_turns", 0, "max_turns=5"),
    ("seed", "abc", "seed=3"),
    ("seed", -2, "seed=3"),
    ("seed", 1.5, "seed=3"),
    ("concurrency", 0, "concurrency=8"),
    ("progress", "maybe", "progress=false"),
    ("budget", {"max_tokens": -5, "max_cost_usd": None}, "budget.max_tokens=200000"),
    ("budget", {"max_tokens": None, "max_cost_usd": "lots"}, "budget.max_cost_usd=5"),
    ("runner", {"backend": "threads", "workers": 2}, "runner.backend=processes"),
    ("runner", {"backend": "processes", "workers": 0}, "runner.workers=2"),
    ("runner", {"backend": "processes", "workres": 2}, "runner.backend=asyncio"),
])
def test_each_bad_value_names_itself_and_what_to_write(key, value, fix):
    with pytest.raises(CrsimError) as caught:
        check_run_keys({**GOOD, key: value})
    message = str(caught.value)
    assert "\n" not in message and "is not valid: write" in message and fix in message


def test_a_budget_cannot_be_split_across_worker_processes():
    with pytest.raises(CrsimError, match="runner.backend=asyncio"):
        check_run_keys({**GOOD, "runner": {"backend": "processes"}, "budget": {"max_tokens": 100}})


def test_good_values_pass():
    keys = check_run_keys(GOOD)
    assert (keys.episodes, keys.max_turns, keys.seed, keys.budget.max_tokens) == (10, 5, 0, None)


@pytest.mark.parametrize("override", ["episodes=-1", "max_turns=0", "seed=abc"])
def test_crsim_run_answers_with_one_line_before_building_anything(override, tmp_path):
    out = crsim("run", override, f"hydra.run.dir={tmp_path / 'run'}", "environment.catalog=/nonexistent")
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"crsim: error: {override.split('=')[0]}=")
    assert "Traceback" not in out.stderr and "write" in lines[0]
    assert not (tmp_path / "run" / "episodes.jsonl").exists()
