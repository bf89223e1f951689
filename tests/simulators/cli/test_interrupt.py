"""Interrupted runs: SIGINT/SIGTERM and kill -9 mid-run, then the same command again.

The resumed log must hold exactly the uninterrupted run's episodes: the same ids, no
duplicate, no unreadable line, and (sorted by index) the same bytes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from crsim_testing import CRSIM, crsim, make_tiny_catalog

EPISODES = 40  # enough that a signal sent after 3 logged episodes lands mid-run even on a loaded machine
WORKER_EPISODES = 300  # the same with two worker processes
COMMON = ["environment.target_pool_size=5", "max_turns=2", "progress=false", "concurrency=1"]


def _start(catalog: Path, run_dir: Path, episodes: int, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([CRSIM, "run", f"environment.catalog={catalog}", f"episodes={episodes}", *COMMON, *extra,
                             f"hydra.run.dir={run_dir}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ})


def _wait_for_lines(path: Path, n: int, process: subprocess.Popen, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().count("\n") >= n:
            return
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    raise AssertionError(f"{path} never reached {n} lines")


def _sorted_lines(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    assert all(json.loads(line) for line in lines)  # every line readable
    return sorted(lines, key=lambda line: json.loads(line)["index"])


@pytest.fixture(scope="module")
def tiny_catalog_dir_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_catalog().save(tmp_path_factory.mktemp("tiny") / "tiny")


def _reference(catalog: Path, run_dir: Path, episodes: int) -> tuple[Path, list[str]]:
    done = crsim("run", f"environment.catalog={catalog}", f"episodes={episodes}", *COMMON, f"hydra.run.dir={run_dir}")
    assert done.returncode == 0, done.stderr[-2000:]
    return catalog, _sorted_lines(run_dir / "episodes.jsonl")


@pytest.fixture(scope="module")
def reference(tiny_catalog_dir_module: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    return _reference(tiny_catalog_dir_module, tmp_path_factory.mktemp("reference"), EPISODES)


@pytest.fixture(scope="module")
def long_reference(tiny_catalog_dir_module: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """Tiny-catalog episodes are logged faster than a signal lands after the third (two workers
    even more so): enough episodes that the signal still lands mid-run."""
    return _reference(tiny_catalog_dir_module, tmp_path_factory.mktemp("long-reference"), WORKER_EPISODES)


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_a_polite_signal_leaves_a_valid_log_a_summary_and_status_130(long_reference, tmp_path: Path, how) -> None:
    """Compared against the long reference: on a loaded machine a tiny-catalog run logged 46
    episodes between the third line and the signal, past a 40-episode reference."""
    catalog, expected = long_reference
    run_dir = tmp_path / "run"
    process = _start(catalog, run_dir, 5000)
    _wait_for_lines(run_dir / "episodes.jsonl", 3, process)
    process.send_signal(how)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err[-2000:]
    assert "crsim: interrupted:" in err and f"hydra.run.dir={run_dir}" in err
    logged = _sorted_lines(run_dir / "episodes.jsonl")
    assert 3 <= len(logged) < WORKER_EPISODES, "the signal came too late for this test to mean anything"
    assert logged == expected[: len(logged)]  # one at a time: the first episodes, finished
    again = crsim("run", f"environment.catalog={catalog}", f"episodes={WORKER_EPISODES}", *COMMON,
                  f"hydra.run.dir={run_dir}")
    assert again.returncode == 0, again.stderr[-2000:]
    assert _sorted_lines(run_dir / "episodes.jsonl") == expected


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["processes", "ray"])
def test_sigint_with_worker_processes_or_ray_actors(long_reference, tmp_path: Path, backend: str) -> None:
    """Workers ignore Ctrl-C (it reaches the whole process group); the parent stops them,
    logs what finished once, and the same command completes the run."""
    if backend == "ray":
        pytest.importorskip("ray")
    catalog, expected = long_reference
    run_dir = tmp_path / "run"
    extra = (f"runner.backend={backend}", "runner.workers=2")
    process = _start(catalog, run_dir, 5000, *extra)
    _wait_for_lines(run_dir / "episodes.jsonl", 3, process)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130 and "crsim: interrupted:" in err, err[-2000:]
    logged = _sorted_lines(run_dir / "episodes.jsonl")
    # at most two episodes queued per worker: with this many logged, every index is < WORKER_EPISODES
    assert 3 <= len(logged) <= WORKER_EPISODES - 5, "the signal came too late for this test to mean anything"
    assert len(logged) == len(set(logged)) and set(logged) <= set(expected), "a duplicate or a foreign episode"
    again = crsim("run", f"environment.catalog={catalog}", f"episodes={WORKER_EPISODES}", *COMMON, *extra,
                  f"hydra.run.dir={run_dir}")
    assert again.returncode == 0, again.stderr[-2000:]
    assert _sorted_lines(run_dir / "episodes.jsonl") == expected


def test_kill_9_then_the_same_command_completes_the_run_exactly(reference, tmp_path: Path) -> None:
    catalog, expected = reference
    run_dir = tmp_path / "run"
    process = _start(catalog, run_dir, EPISODES)
    _wait_for_lines(run_dir / "episodes.jsonl", 4, process)
    process.kill()
    process.communicate()
    log = run_dir / "episodes.jsonl"
    with log.open("a") as handle:  # what a write cut by the kill leaves behind
        handle.write('{"id": "s0-e00099", "index": 99, "turns": [{"ind')
    again = crsim("run", f"environment.catalog={catalog}", f"episodes={EPISODES}", *COMMON, f"hydra.run.dir={run_dir}")
    assert again.returncode == 0, again.stderr[-2000:]
    assert _sorted_lines(log) == expected  # no cut line, no duplicate, the same episodes


def test_a_larger_episodes_extends_a_run(reference, tmp_path: Path) -> None:
    catalog, expected = reference
    run_dir = tmp_path / "run"
    first = crsim("run", f"environment.catalog={catalog}", "episodes=5", *COMMON, f"hydra.run.dir={run_dir}")
    assert first.returncode == 0, first.stderr[-2000:]
    more = crsim("run", f"environment.catalog={catalog}", f"episodes={EPISODES}", *COMMON, f"hydra.run.dir={run_dir}")
    assert more.returncode == 0 and f"ran {EPISODES - 5}, resumed 5" in more.stdout, more.stdout[-2000:]
    assert _sorted_lines(run_dir / "episodes.jsonl") == expected
