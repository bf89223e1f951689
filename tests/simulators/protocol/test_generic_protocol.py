"""The core is generic: a protocol defined only in the tests runs through run, replay and report.

`toy/toy_basket.py` declares roles crsim has never heard of (`broker`, `buyer`), two
targets per episode, an item set and its own ending (`set_complete`); its configs live in
`toy/conf` and plug in through `hydra.searchpath`, as a user's would.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from crsim_testing import REPO, crsim

TOY = Path(__file__).parent / "toy"
ARGS = (f"hydra.searchpath=[file://{TOY / 'conf'}]", "experiment=toy_basket", "progress=false")
ENV = {"PYTHONPATH": os.pathsep.join([str(TOY), os.environ.get("PYTHONPATH", "")])}


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("toy") / "run"
    out = crsim("run", *ARGS, "episodes=8", "max_turns=4", "seed=3", f"hydra.run.dir={run_dir}", env=ENV)
    assert out.returncode == 0, out.stderr[-3000:]
    return run_dir


def _episodes(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "episodes.jsonl").read_text().splitlines()]


def test_run_follows_the_declared_roles_targets_set_and_metrics(toy_run):
    episodes = _episodes(toy_run)
    assert len(episodes) == 8 and {e["environment"] for e in episodes} == {"toy_basket"}
    for episode in episodes:
        assert len(episode["targets"]) == 2
        roles = [t["role"] for t in episode["turns"]]
        assert roles[:2] == ["broker", "buyer"] and set(roles) == {"broker", "buyer"}
        last = episode["evaluations"][-1]
        assert len(last["ranks"]) == 2 and last["item_set"] is not None
        if episode["termination"] == "set_complete":
            assert set(episode["targets"]) <= set(last["item_set"]["items"])
        else:
            assert episode["termination"] == "max_turns" and len(episode["evaluations"]) == 4
    assert {e["termination"] for e in episodes} == {"set_complete", "max_turns"}  # both endings happen
    results = pd.read_csv(toy_run / "results.csv")
    assert list(dict.fromkeys(results.metric)) == ["hits@3", "recall@3", "set_recall", "set_precision"]
    final = results[results.turn == 4].set_index("metric")["mean"]
    first = results[results.turn == 1].set_index("metric")["mean"]
    assert final["set_recall"] > first["set_recall"]  # the basket fills up over the turns
    assert 0 < final["set_precision"] <= 1.0


def test_replay_rescores_and_reexecutes_it(toy_run):
    rescored = crsim("replay", str(toy_run), "--rescore", env=ENV)
    assert rescored.returncode == 0 and f"identical to {toy_run / 'results.csv'}" in rescored.stdout, rescored.stderr
    again = crsim("replay", str(toy_run), "--reexecute", "--out", str(toy_run.parent / "again"), env=ENV)
    assert again.returncode == 0 and "every transcript is identical" in again.stdout, again.stderr[-2000:]
    rendered = crsim("replay", str(toy_run), "--render", "--episode", "s3-e00001", env=ENV)
    assert rendered.returncode == 0 and "buyer:" in rendered.stdout and "2 targets" in rendered.stdout


def test_replay_holds_a_role_with_another_name_fixed(toy_run):
    out_dir = toy_run.parent / "fixed"
    fixed = crsim("replay", str(toy_run), "--fix", "buyer", "--out", str(out_dir), env=ENV)
    assert fixed.returncode == 0, fixed.stderr[-2000:]
    logged = {e["id"]: e for e in _episodes(toy_run)}
    replayed = {e["id"]: e for e in _episodes(out_dir)}
    assert replayed.keys() == logged.keys()
    for old, new in ((logged[i], replayed[i]) for i in logged):
        assert new["targets"] == old["targets"]
        said = [[t["text"], t["added"]] for t in old["turns"] if t["role"] == "buyer"]
        assert [[t["text"], t["added"]] for t in new["turns"] if t["role"] == "buyer"] == said
    bad = crsim("replay", str(toy_run), "--fix", "seeker", env=ENV)
    assert bad.returncode == 2 and "no such role" in bad.stderr and "broker, buyer" in bad.stderr


def test_report_covers_it(toy_run):
    out = crsim("report", str(toy_run), env=ENV)
    assert out.returncode == 0, out.stderr[-2000:]
    report = toy_run / "report"
    assert "set_recall" in (report / "results.md").read_text()
    assert (report / "plot-set_recall.png").is_file() and (report / "index.html").is_file()
    html = (report / "index.html").read_text()
    assert '"targets":["g' in html and "set: " in html


def test_nothing_in_simulators_names_the_protocol():
    sources = "\n".join(p.read_text() for p in (REPO / "simulators").rglob("*.py"))
    for word in ("toy_basket", "broker", "buyer", "basket"):
        assert word not in sources


def test_the_toy_protocol_keeps_the_environment_contract(monkeypatch):
    from environments.check import check_environment

    monkeypatch.syspath_prepend(str(TOY))
    import toy_basket

    check_environment(toy_basket.build(), rounds=3)
