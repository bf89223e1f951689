"""A run whose every episode failed measured nothing: `crsim run` says so and exits 2.

Fault isolation keeps one crashed episode from ending a run; these tests hold the other
side of it: all failed is one `crsim: error:` line and status 2 (in a sweep after the other
jobs ran and the summary was written), some failed is one warning line and status 1, and
both name the log with the tracebacks. The plug-in `recommender=broken` raises on the moves it is told to.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
from crsim_testing import crsim

PLUGINS = Path(__file__).parent / "plugins"
ENV = {"PYTHONPATH": os.pathsep.join([str(PLUGINS), os.environ.get("PYTHONPATH", "")])}
FAILURE = "RuntimeError: broken recommender: told to fail at turn 0"


def run(tiny_catalog_dir: Path, *overrides: str, sweep: bool = False):
    return crsim("run", *(["-m"] if sweep else []), f"hydra.searchpath=[file://{PLUGINS / 'conf'}]", f"environment.catalog={tiny_catalog_dir}",
                 "environment.target_pool_size=5", "episodes=3", "max_turns=2", "progress=false", *overrides, env=ENV)


def test_a_run_whose_every_episode_failed_is_one_error_line_and_status_2(tiny_catalog_dir, tmp_path):
    run_dir = tmp_path / "run"
    out = run(tiny_catalog_dir, "recommender=broken", f"hydra.run.dir={run_dir}")
    assert out.returncode == 2, out.stderr[-3000:]
    assert out.stderr.strip().splitlines() == [
        (f"crsim: error: every episode of this run failed (3 of 3): {FAILURE} "
         f"(tracebacks in {run_dir / 'episodes.jsonl'})")]
    assert len((run_dir / "episodes.jsonl").read_text().splitlines()) == 3  # the tracebacks are kept


def test_a_run_with_some_failed_episodes_warns_once_and_exits_1(tiny_catalog_dir, tmp_path):
    run_dir = tmp_path / "run"
    out = run(tiny_catalog_dir, "recommender=broken", "recommender.episodes=[1]", f"hydra.run.dir={run_dir}")
    assert out.returncode == 1, out.stderr[-3000:]  # the numbers stand, but it was not a clean run
    assert out.stderr.strip().splitlines() == [
        (f"crsim: warning: 1 of 3 episodes of this run failed and are left out of its numbers; the first: "
         f"{FAILURE} (tracebacks in {run_dir / 'episodes.jsonl'})")]
    frame = pd.read_csv(run_dir / "results.csv")
    assert (frame[frame.metric == "hits@10"].n == 2).all()


def test_a_sweep_runs_every_job_and_then_fails_for_the_job_that_measured_nothing(tiny_catalog_dir, tmp_path):
    sweep_dir = tmp_path / "sweep"
    out = run(tiny_catalog_dir, "recommender=broken,random", f"hydra.sweep.dir={sweep_dir}", sweep=True)
    assert out.returncode == 2, out.stderr[-3000:]
    summary = pd.read_csv(sweep_dir / "summary.csv")
    assert set(summary.config) == {"recommender=broken", "recommender=random"}  # the other job ran
    random = summary[(summary.config == "recommender=random") & (summary.metric == "hits@10")]
    assert (random.n == 3).all()
    lines = out.stderr.strip().splitlines()
    assert "Traceback" not in out.stderr and all(line.startswith("crsim: error: ") for line in lines)
    (log,) = [p for p in sweep_dir.rglob("episodes.jsonl")
              if "recommender=broken" in (p.parent / ".hydra" / "overrides.yaml").read_text()]
    assert lines[-1] == (f"crsim: error: every episode failed in 1 of 2 sweep jobs (recommender=broken: {FAILURE}); "
                         f"tracebacks in each job's episodes.jsonl, e.g. {log}")
    assert out.stdout.index("Sweep summary") > 0  # the summary came first


def test_the_first_error_is_the_exception_line_not_a_note_after_it():
    import traceback

    from simulators.cli.failures import error_line

    try:
        try:
            raise KeyError("inner")
        except KeyError as exc:
            exc.add_note("During task with name 'inner'")
            raise ValueError("outer\nsecond line of the message") from exc
    except ValueError as exc:
        exc.add_note("During task with name 'retrieve' and id 'x'")
        text = traceback.format_exc()
    assert error_line(text) == "ValueError: outer"
    assert error_line("budget spent") == "budget spent"


def test_a_sweep_whose_jobs_lost_some_episodes_exits_1_after_its_summary(tiny_catalog_dir, tmp_path):
    sweep_dir = tmp_path / "sweep"
    out = run(tiny_catalog_dir, "recommender=broken", "recommender.episodes=[1]", "environment.top_k=3,4",
              f"hydra.sweep.dir={sweep_dir}", sweep=True)
    assert out.returncode == 1, out.stderr[-3000:]
    assert (sweep_dir / "summary.csv").is_file()
    assert out.stderr.count("crsim: warning: 1 of 3 episodes") == 2 and "crsim: error" not in out.stderr
