"""A worker process killed mid-run (`runner.backend=processes`): what finished stays logged
once, the run ends with one clear line and a non-zero status, and the same command
finishes the rest so the log equals an uninterrupted run's."""

from __future__ import annotations

import json
import os
from pathlib import Path

from crsim_testing import crsim

PLUGINS = Path(__file__).parent / "plugins"
COMMON = ["environment.target_pool_size=5", "episodes=8", "max_turns=2", "progress=false",
          "runner.backend=processes", "runner.workers=2", f"hydra.searchpath=[file://{PLUGINS / 'conf'}]",
          "seeker=dying"]


def _by_index(run_dir: Path) -> list[str]:
    return sorted((run_dir / "episodes.jsonl").read_text().splitlines(), key=lambda line: json.loads(line)["index"])


def test_a_killed_worker_ends_the_run_cleanly_and_a_rerun_completes_it(tiny_catalog_dir: Path, tmp_path: Path):
    flag = tmp_path / "died"
    env = {"PYTHONPATH": os.pathsep.join([str(PLUGINS), os.environ.get("PYTHONPATH", "")]),
           "CRSIM_TEST_DIED": str(flag)}
    run_dir = tmp_path / "run"
    command = ["run", f"environment.catalog={tiny_catalog_dir}", *COMMON]
    died = crsim(*command, f"hydra.run.dir={run_dir}", env=env)
    assert flag.exists() and died.returncode == 2, died.stderr[-2000:]
    assert died.stderr.startswith("crsim: error: a worker process died") and len(died.stderr.splitlines()) == 1
    logged = [json.loads(line) for line in (run_dir / "episodes.jsonl").read_text().splitlines()]
    assert len({e["id"] for e in logged}) == len(logged) < 8 and 3 not in {e["index"] for e in logged}

    resumed = crsim(*command, f"hydra.run.dir={run_dir}", env=env)  # the same command, the cause gone
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"ran {8 - len(logged)}, resumed {len(logged)}, errors 0" in resumed.stdout
    whole = crsim(*command, f"hydra.run.dir={tmp_path / 'whole'}", env=env)  # never interrupted
    assert whole.returncode == 0, whole.stderr[-2000:]
    assert _by_index(run_dir) == _by_index(tmp_path / "whole")
    assert (run_dir / "results.csv").read_text() == (tmp_path / "whole" / "results.csv").read_text()
