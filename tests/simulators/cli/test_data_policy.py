"""`crsim data policy` as a user runs it: fit on a training split, read the file, give it to a seeker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crsim_testing import crsim, import_redial_fixture
from environments.acts.policy import load_policy
from simulators.validity.held_out import refuse_training_split


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return import_redial_fixture(tmp_path_factory, n_train=20, n_test=6)


def test_fits_on_the_training_split_and_a_seeker_runs_with_it(corpus: Path, tmp_path: Path):
    out = crsim("data", "policy", str(corpus), "--split", "train_data", "--out", str(tmp_path / "p.json"))
    assert out.returncode == 0, out.stderr
    assert "fitted on 20 conversations" in out.stdout and "after recommend" in out.stdout
    policy = load_policy(tmp_path / "p.json")
    assert policy.source.splits == ["train_data"] and policy.source.conversations == 20
    assert sum(policy.counts["recommend"].values()) > 0  # every fixture conversation answers a suggestion
    run = crsim("run", "environment=grounded", f"environment.catalog={corpus}", "environment.split=test_data",
                "recommender=popularity", "episodes=3", "max_turns=3", f"seeker.policy={tmp_path / 'p.json'}",
                f"hydra.run.dir={tmp_path / 'run'}", "progress=false")
    assert run.returncode == 0, run.stderr
    turns = [t for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()
             for t in json.loads(line)["turns"] if t["role"] == "seeker" and not t["metadata"].get("opening")]
    assert turns and all("decisions" in t["metadata"] for t in turns)  # its view of every item on screen


def test_an_unknown_split_is_one_line(corpus: Path, tmp_path: Path):
    out = crsim("data", "policy", str(corpus), "--split", "nope", "--out", str(tmp_path / "p.json"))
    assert out.returncode == 2 and "no dialogue of split(s) nope (found: test_data, train_data)" in out.stderr
    assert not (tmp_path / "p.json").exists()


def test_validity_refuses_the_split_a_policy_was_fitted_on(corpus: Path, tmp_path: Path):
    crsim("data", "policy", str(corpus), "--split", "train_data", "--out", str(tmp_path / "p.json"))
    with pytest.raises(Exception, match="was fitted on that split"):
        refuse_training_split("train_data", [f"seeker.policy={tmp_path / 'p.json'}"])
    refuse_training_split("test_data", [f"seeker.policy={tmp_path / 'p.json'}"])
    refuse_training_split("train_data", ["seeker.policy=null"])  # no policy: nothing fitted on it
    with pytest.raises(Exception, match="agents/policies/redial.json was fitted on that split"):
        refuse_training_split("train_data")  # the shipped policy (auto) came from ReDial's train_data
