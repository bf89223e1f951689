"""One run per directory, with real `crsim run` processes: a second run into a directory
another run is writing stops at once (one `crsim: error:` line naming the first's pid and
host, status 2, nothing written); once the first is killed with SIGKILL, the same command
takes over its stale lock and completes the run with exactly an uninterrupted run's
episodes."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from crsim_testing import CRSIM, crsim

from simulators.engine.run_lock import LOCK_FILE

PLUGINS = Path(__file__).parent / "plugins"
EPISODES = 40
SLOW = "0.5"  # seconds per seeker reply, in the first run only: 20-40 s in all, so the second meets it mid-run
COMMON = ["environment.target_pool_size=5", f"episodes={EPISODES}", "max_turns=2", "progress=false", "concurrency=1",
          f"hydra.searchpath=[file://{PLUGINS / 'conf'}]", "seeker=slow"]
ENV = {"PYTHONPATH": os.pathsep.join([str(PLUGINS), os.environ.get("PYTHONPATH", "")])}
UNTOUCHED = (".hydra/config.yaml", ".hydra/hydra.yaml", ".hydra/overrides.yaml", "config.yaml", "config_hash.txt",
             "run.log")


def _by_index(run_dir: Path) -> list[str]:
    lines = (run_dir / "episodes.jsonl").read_text().splitlines()
    assert all(json.loads(line) for line in lines)
    return sorted(lines, key=lambda line: json.loads(line)["index"])


def _wait_for_episode(run_dir: Path, process: subprocess.Popen, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log = run_dir / "episodes.jsonl"
        if log.exists() and log.read_text().count("\n") >= 1:
            return
        assert process.poll() is None, f"exited with {process.returncode}"
        time.sleep(0.2)
    raise AssertionError(f"{run_dir} never logged an episode")


@pytest.mark.parametrize("backend", ["asyncio", "processes"])
def test_a_second_run_is_refused_and_a_killed_runs_lock_is_taken_over(tiny_catalog_dir: Path, tmp_path: Path,
                                                                       backend: str) -> None:
    run_dir = tmp_path / "run"
    command = ["run", f"environment.catalog={tiny_catalog_dir}", *COMMON, f"runner.backend={backend}",
               "runner.workers=2", f"hydra.run.dir={run_dir}"]
    # its own process group: the worker processes a SIGKILL of the run leaves orphaned are cleaned up below
    first = subprocess.Popen([CRSIM, *command], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env={**os.environ, **ENV, "CRSIM_TEST_SLOW_SECONDS": SLOW}, start_new_session=True)
    try:
        _run_then_kill(first, command, run_dir)
        _resume_and_compare(command, run_dir, first.pid, tmp_path / "whole")
    finally:
        first.kill()
        first.wait()
        try:
            os.killpg(first.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _run_then_kill(first: subprocess.Popen, command: list[str], run_dir: Path) -> None:
    _wait_for_episode(run_dir, first)  # running, and holding the lock since before Hydra wrote anything
    holder = json.loads((run_dir / LOCK_FILE).read_text())
    assert holder["pid"] == first.pid and holder["host"] == socket.gethostname()
    before = {name: (run_dir / name).read_bytes() for name in UNTOUCHED}

    second = crsim(*command, env=ENV)  # the same command again: a sweep started twice, a retried job
    assert second.returncode == 2, second.stderr[-2000:]
    assert second.stderr.startswith("crsim: error:") and len(second.stderr.splitlines()) == 1, second.stderr
    assert f"pid {first.pid} on host {socket.gethostname()}" in second.stderr
    assert "run the same command again to resume" in second.stderr and not second.stdout
    assert first.poll() is None, "the first run ended before the second met it"
    assert {name: (run_dir / name).read_bytes() for name in UNTOUCHED} == before

    first.kill()  # SIGKILL, the run's own process only (its worker processes, if any, live on holding nothing)
    first.wait()


def _resume_and_compare(command: list[str], run_dir: Path, pid: int, whole_dir: Path) -> None:
    assert json.loads((run_dir / LOCK_FILE).read_text())["pid"] == pid  # left behind, held by no one
    logged = (run_dir / "episodes.jsonl").read_text().count("\n")
    assert 1 <= logged < EPISODES

    resumed = crsim(*command, env=ENV)  # the same command, after the kill
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"crsim: note: {run_dir} was locked by a run that is no longer running" in resumed.stderr
    assert f"pid {pid}" in resumed.stderr
    assert f"ran {EPISODES - logged}, resumed {logged}, errors 0" in resumed.stdout
    assert not (run_dir / LOCK_FILE).exists()

    whole = crsim(*command[:-1], f"hydra.run.dir={whole_dir}", env=ENV)  # never interrupted, never met
    assert whole.returncode == 0 and "crsim: note" not in whole.stderr, whole.stderr[-2000:]
    assert _by_index(run_dir) == _by_index(whole_dir)  # each episode once: the refused run logged none
    assert (run_dir / "results.csv").read_text() == (whole_dir / "results.csv").read_text()


def test_each_job_of_a_sweep_locks_its_own_directory(tiny_catalog_dir: Path, tmp_path: Path) -> None:
    """Hydra's basic launcher runs the jobs one after another in one process: each takes and
    releases its own directory's lock; a job whose directory is in use stops the sweep."""
    sweep_dir = tmp_path / "sweep"
    command = ["run", "-m", f"environment.catalog={tiny_catalog_dir}", *COMMON[:-2], "episodes=3", "seed=0,1",
               f"hydra.sweep.dir={sweep_dir}"]
    done = crsim(*command)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(list(sweep_dir.glob("*/episodes.jsonl"))) == 2 and not list(sweep_dir.rglob(LOCK_FILE))

    from simulators.engine.run_lock import run_dir_lock

    second_job = next(path.parent for path in sweep_dir.glob("*/episodes.jsonl")
                      if "seed=1" in (path.parent / ".hydra" / "overrides.yaml").read_text())
    with run_dir_lock(second_job):  # another run is writing the second job's directory
        refused = crsim(*command)
    assert refused.returncode == 2 and f"pid {os.getpid()}" in refused.stderr, refused.stderr[-2000:]
    assert refused.stderr.splitlines()[-1].startswith("crsim: error:") and "hydra.sweep.dir" in refused.stderr
    assert "resumed 3" in refused.stdout  # the first job ran (nothing to do), the second stopped at once
    assert (second_job / "episodes.jsonl").read_text().count("\n") == 3
