"""`runner.backend=processes`: the same episodes as one process, whatever order they finish in."""

from __future__ import annotations

import json
from pathlib import Path

from crsim_testing import crsim

COMMON = ["environment.target_pool_size=5", "episodes=10", "max_turns=2", "progress=false"]


def _by_index(path: Path) -> list[str]:
    return sorted(path.read_text().splitlines(), key=lambda line: json.loads(line)["index"])


def test_two_worker_processes_log_what_one_process_logs(tiny_catalog_dir: Path, tmp_path: Path) -> None:
    runs = {}
    for backend in ("asyncio", "processes"):
        run_dir = tmp_path / backend
        done = crsim("run", f"environment.catalog={tiny_catalog_dir}", *COMMON, f"runner.backend={backend}",
                     "runner.workers=2", f"hydra.run.dir={run_dir}")
        assert done.returncode == 0, done.stderr[-2000:]
        runs[backend] = run_dir
    assert _by_index(runs["processes"] / "episodes.jsonl") == _by_index(runs["asyncio"] / "episodes.jsonl")
    assert (runs["processes"] / "results.csv").read_text() == (runs["asyncio"] / "results.csv").read_text()
    assert (runs["processes"] / "config_hash.txt").read_text() == (runs["asyncio"] / "config_hash.txt").read_text()
    resumed = crsim("run", f"environment.catalog={tiny_catalog_dir}", *COMMON, "runner.backend=processes",
                    f"hydra.run.dir={runs['processes']}")
    assert resumed.returncode == 0 and "ran 0, resumed 10" in resumed.stdout
