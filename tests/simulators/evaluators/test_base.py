"""The generic post-run evaluator hook: built from config, run after the table, out of the hash."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from omegaconf import OmegaConf

from crsim_testing import crsim
from environments.errors import CrsimError
from simulators.engine.config_hash import config_hash
from simulators.evaluators.base import build_evaluators, run_evaluators

TOY = Path(__file__).parents[1] / "protocol" / "toy"
ENV = {"PYTHONPATH": os.pathsep.join([str(TOY), os.environ.get("PYTHONPATH", "")])}


class TurnCounter:
    name = "turns"

    def __init__(self, per: str = "episode"):
        self.per = per

    def evaluate(self, episodes, setup):
        return pd.DataFrame([{"setup": setup.name, "episodes": len(episodes),
                              "turns": float(sum(len(e.turns) for e in episodes))}])

    def summary_lines(self, frame):
        return [f"counted {int(frame.turns[0])} turns"]


TOY_EVAL = """
import pandas as pd


class TurnCounter:
    name = "turns"

    def evaluate(self, episodes, setup):
        return pd.DataFrame([{"setup": setup.name, "episodes": len(episodes),
                              "turns": float(sum(len(e.turns) for e in episodes))}])

    def summary_lines(self, frame):
        return [f"counted {int(frame.turns[0])} turns"]
"""


def test_build_checks_each_entry():
    assert build_evaluators(None) == [] and build_evaluators([]) == []
    built = build_evaluators([{"_target_": f"{__name__}.TurnCounter", "per": "run"}])
    assert built[0].name == "turns" and built[0].per == "run"
    with pytest.raises(CrsimError, match=r"evaluators\[0\] names no _target_"):
        build_evaluators([{"per": "run"}])
    with pytest.raises(CrsimError, match="not an evaluator"):
        build_evaluators([{"_target_": "builtins.dict"}])
    with pytest.raises(CrsimError, match="share a name"):
        build_evaluators([{"_target_": f"{__name__}.TurnCounter"}] * 2)
    with pytest.raises(CrsimError, match="must be a list"):
        build_evaluators({"_target_": f"{__name__}.TurnCounter"})


def test_evaluators_do_not_enter_the_config_hash():
    base = OmegaConf.create({"seed": 1, "environment": {"_target_": "x"}, "evaluators": []})
    other = OmegaConf.create({"seed": 1, "environment": {"_target_": "x"},
                              "evaluators": [{"_target_": f"{__name__}.TurnCounter"}]})
    assert config_hash(base) == config_hash(other) != config_hash(OmegaConf.create({"seed": 2, "evaluators": []}))


def test_run_evaluators_writes_csv(tmp_path):
    class Setup:
        name = "s"

    frames = run_evaluators(build_evaluators([{"_target_": f"{__name__}.TurnCounter"}]), [], Setup(), tmp_path)
    assert frames["turns"].episodes[0] == 0
    assert pd.read_csv(tmp_path / "eval-turns.csv").setup[0] == "s"


def test_crsim_run_prints_and_writes_the_toy_evaluator(tmp_path):
    (tmp_path / "toy_eval.py").write_text(TOY_EVAL)
    run_dir = tmp_path / "run"
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), ENV["PYTHONPATH"]])}
    out = crsim("run", f"hydra.searchpath=[file://{TOY / 'conf'}]", "experiment=toy_basket", "progress=false",
                "episodes=3", "max_turns=2", f"hydra.run.dir={run_dir}", "evaluators=[{_target_: toy_eval.TurnCounter}]",
                env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "turns — 3 episodes" in out.stdout and "counted" in out.stdout
    written = pd.read_csv(run_dir / "eval-turns.csv")
    assert written.setup[0] == "toy_basket" and written.episodes[0] == 3
    bad = crsim("run", f"hydra.searchpath=[file://{TOY / 'conf'}]", "experiment=toy_basket", "progress=false",
                "episodes=1", f"hydra.run.dir={tmp_path / 'bad'}", "evaluators=[{per: 1}]", env=env)
    assert bad.returncode == 2 and "crsim: error: evaluators[0] names no _target_" in bad.stderr
