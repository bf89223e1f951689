"""The `crsim` command as a user runs it: subprocesses, exit codes, files written."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from crsim_testing import CRSIM, REPO, crsim


def test_help_explains_the_commands():
    out = crsim("--help")
    assert out.returncode == 0
    for word in ("run", "episodes", "max_turns", "seed", "concurrency", "-m", "hydra.searchpath"):
        assert word in out.stdout
    assert crsim("nonsense").returncode == 2


def test_malformed_catalog_gives_one_clear_line(tiny_catalog_dir, tmp_path):
    items = tiny_catalog_dir / "items.jsonl"
    lines = items.read_text().splitlines()
    row = json.loads(lines[4])
    row["attributes"] = "not a dict"
    lines[4] = json.dumps(row)
    items.write_text("\n".join(lines) + "\n")
    out = crsim("run", f"environment.catalog={tiny_catalog_dir}", f"hydra.run.dir={tmp_path / 'run'}",
                "recommender=popularity", "episodes=2")
    assert out.returncode == 2
    assert "items.jsonl, line 5, field 'attributes'" in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) <= 2


@pytest.mark.slow
def test_run_on_a_catalog_dir_writes_results(tiny_catalog_dir, tmp_path):
    run_dir = tmp_path / "run"
    out = crsim("run", f"environment.catalog={tiny_catalog_dir}", f"hydra.run.dir={run_dir}",
                "recommender=bm25", "episodes=6", "max_turns=3", "progress=false", "environment.target_pool_size=10")
    assert out.returncode == 0, out.stderr
    frame = pd.read_csv(run_dir / "results.csv")
    assert list(frame.columns) == ["turn", "metric", "mean", "ci_low", "ci_high", "n", "higher_is_better"]
    assert set(frame.metric) >= {"hits@1", "hits@5", "hits@10", "mrr", "avg_position"}
    assert sorted(frame.turn.unique()) == [1, 2, 3] and (frame.n == 6).all()
    for name in ("episodes.jsonl", "config.yaml", "config_hash.txt", "metrics.png", "timings.jsonl"):
        assert (run_dir / name).exists(), name
    assert "hits@10" in out.stdout
    # a second run into the same directory resumes: nothing left to run
    again = crsim("run", f"environment.catalog={tiny_catalog_dir}", f"hydra.run.dir={run_dir}",
                  "recommender=bm25", "episodes=6", "max_turns=3", "progress=false",
                  "environment.target_pool_size=10", "concurrency=2")
    assert again.returncode == 0 and "ran 0, resumed 6" in again.stdout
    assert len((run_dir / "episodes.jsonl").read_text().splitlines()) == 6


def _readme_blocks() -> dict[str, str]:
    text = (REPO / "README.md").read_text()
    blocks = {}
    for lang, body in re.findall(r"```(\w+)\n(.*?)```", text, flags=re.S):
        first = body.splitlines()[0]
        if first.startswith("# my_"):
            blocks[first[2:].strip()] = body
    blocks["command"] = next(line for line in text.splitlines() if line.startswith("PYTHONPATH=. crsim run"))
    return blocks


@pytest.mark.slow
def test_readme_plugin_example_runs_from_a_user_directory(tmp_path):
    blocks = _readme_blocks()
    assert set(blocks) == {"my_crs/keyword.py", "my_conf/recommender/keyword.yaml", "command"}
    for name, body in blocks.items():
        if name != "command":
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text(body)
    env = {**os.environ, "PATH": f"{Path(CRSIM).parent}:{os.environ['PATH']}"}
    command = blocks["command"] + f" hydra.run.dir={tmp_path / 'out'} progress=false"
    out = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    config = (tmp_path / "out" / "config.yaml").read_text()
    assert "my_crs.keyword.build" in config and "boost: 2.0" in config
    frame = pd.read_csv(tmp_path / "out" / "results.csv")
    assert (frame[frame.metric == "hits@10"].n == 5).all()


@pytest.mark.slow
def test_same_config_and_seed_give_identical_episode_logs(tiny_catalog_dir, tmp_path):
    common = [f"environment.catalog={tiny_catalog_dir}", "environment.target_pool_size=10", "recommender=dense",
              "episodes=5", "max_turns=3", "progress=false"]
    logs = []
    for name, extra in (("a", "concurrency=1"), ("b", "concurrency=4"), ("c", "seed=1")):
        out = crsim("run", *common, extra, f"hydra.run.dir={tmp_path / name}")
        assert out.returncode == 0, out.stderr[-2000:]
        logs.append((tmp_path / name / "episodes.jsonl").read_bytes())
    assert logs[0] == logs[1]  # concurrency is not part of the result
    assert logs[0] != logs[2]  # the seed is


def test_sweep_job_directory_names_are_one_bounded_path_component():
    from simulators.engine.hydra_setup import MAX_DIRNAME, safe_dirname

    assert safe_dirname("recommender=bm25,seed=1") == "recommender=bm25,seed=1"
    assert "/" not in safe_dirname("seeker.llm.base_url=http://127.0.0.1:8000/v1")
    long_a, long_b = "x=" + "a" * 300, "x=" + "a" * 299 + "b"
    assert len(safe_dirname(long_a)) <= MAX_DIRNAME and safe_dirname(long_a) != safe_dirname(long_b)
