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
COMMON = ["environment.target_pool_size=5", "max_turns=2", "progress=false", "concurrency=1"]


def _start(catalog: Path, run_dir: Path, episodes: int) -> subprocess.Popen:
    return subprocess.Popen([CRSIM, "run", f"environment.catalog={catalog}", f"episodes={episodes}", *COMMON,
                             f"hydra.run.dir={run_dir}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ})


def _wait_for_lines(path: Path, n: int, process: subprocess.Popen, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().count("\n") >= n:
            return
        assert process.poll() is None, process.communicate()
        time.sleep(0.2)
    raise AssertionError(f"{path} never reached {n} lines")


def _sorted_lines(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    assert all(json.loads(line) for line in lines)  # every line readable
    return sorted(lines, key=lambda line: json.loads(line)["index"])


@pytest.fixture(scope="module")
def tiny_catalog_dir_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_catalog().save(tmp_path_factory.mktemp("tiny") / "tiny")


@pytest.fixture(scope="module")
def reference(tiny_catalog_dir_module: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    run_dir = tmp_path_factory.mktemp("reference")
    done = crsim("run", f"environment.catalog={tiny_catalog_dir_module}", f"episodes={EPISODES}", *COMMON,
                 f"hydra.run.dir={run_dir}")
    assert done.returncode == 0, done.stderr[-2000:]
    return tiny_catalog_dir_module, _sorted_lines(run_dir / "episodes.jsonl")


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_a_polite_signal_leaves_a_valid_log_a_summary_and_status_130(reference, tmp_path: Path, how) -> None:
    catalog, expected = reference
    run_dir = tmp_path / "run"
    process = _start(catalog, run_dir, 5000)
    _wait_for_lines(run_dir / "episodes.jsonl", 3, process)
    process.send_signal(how)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err[-2000:]
    assert "crsim: interrupted:" in err and f"hydra.run.dir={run_dir}" in err
    logged = _sorted_lines(run_dir / "episodes.jsonl")
    assert 3 <= len(logged) < EPISODES, "the signal came too late for this test to mean anything"
    assert logged == expected[: len(logged)]  # one at a time: the first episodes, finished
    again = crsim("run", f"environment.catalog={catalog}", f"episodes={EPISODES}", *COMMON, f"hydra.run.dir={run_dir}")
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
