"""The disk filling mid-run (simulated with a file size limit, RLIMIT_FSIZE: writes past it
fail as they would on a full disk): the run stops with one line and status 2, the log
holds only whole lines, and the same command on a disk with room finishes the run so that
it equals an uninterrupted one."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
from pathlib import Path

from crsim_testing import CRSIM, crsim

COMMON = ["environment.target_pool_size=5", "episodes=30", "max_turns=2", "progress=false"]
LIMIT = 40_000  # bytes per file: a few episodes fit in the log, not thirty


def _limited() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def _by_index(run_dir: Path) -> list[str]:
    return sorted((run_dir / "episodes.jsonl").read_text().splitlines(), key=lambda line: json.loads(line)["index"])


def test_a_full_disk_stops_the_run_with_whole_lines_only(tiny_catalog_dir: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    command = ["run", f"environment.catalog={tiny_catalog_dir}", *COMMON, f"hydra.run.dir={run_dir}"]
    full = subprocess.run([CRSIM, *command], capture_output=True, text=True, timeout=900, preexec_fn=_limited,
                          env=os.environ.copy())
    assert full.returncode == 2, full.stderr[-2000:]
    assert full.stderr.startswith("crsim: error: cannot write") and "File too large" in full.stderr
    assert len(full.stderr.strip().splitlines()) == 1
    raw = (run_dir / "episodes.jsonl").read_bytes()
    assert raw.endswith(b"\n") and 0 < len(raw.splitlines()) < 30
    assert all(json.loads(line) for line in raw.splitlines())  # every line whole

    resumed = crsim(*command)
    assert resumed.returncode == 0 and f"resumed {len(raw.splitlines())}" in resumed.stdout, resumed.stderr[-2000:]
    whole = crsim("run", f"environment.catalog={tiny_catalog_dir}", *COMMON, f"hydra.run.dir={tmp_path / 'whole'}")
    assert whole.returncode == 0
    assert _by_index(run_dir) == _by_index(tmp_path / "whole")
    assert (run_dir / "results.csv").read_text() == (tmp_path / "whole" / "results.csv").read_text()
