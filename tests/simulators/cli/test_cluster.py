"""The `cluster` extra: sweeps through Hydra's joblib, Ray (on a local Ray instance the run
starts, loopback only) and submitit (its local executor, SLURM's stand-in) launchers give
the table a one-process sweep gives, and `runner.backend=ray` runs one run's episodes on
Ray actors with the log of a one-process run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from crsim_testing import crsim

pytest.importorskip("ray")
pytest.importorskip("hydra_plugins.hydra_ray_launcher")
pytest.importorskip("hydra_plugins.hydra_joblib_launcher")
pytest.importorskip("hydra_plugins.hydra_submitit_launcher")

COMMON = ["environment.target_pool_size=5", "episodes=6", "max_turns=2", "progress=false"]


def _by_index(run_dir: Path) -> list[str]:
    return sorted((run_dir / "episodes.jsonl").read_text().splitlines(), key=lambda line: json.loads(line)["index"])


def test_every_launcher_writes_the_sweep_table_of_a_local_sweep(tiny_catalog_dir: Path, tmp_path: Path) -> None:
    tables = {}
    for launcher in ("basic", "joblib", "ray_local", "submitit_local"):
        sweep = tmp_path / launcher
        done = crsim("run", "-m", f"hydra/launcher={launcher}", f"environment.catalog={tiny_catalog_dir}", *COMMON,
                     "recommender=popularity,bm25", f"hydra.sweep.dir={sweep}")
        assert done.returncode == 0, (launcher, done.stderr[-2000:])
        assert not list(sweep.rglob("crsim.lock")), launcher  # each job locked its directory and let it go
        tables[launcher] = (sweep / "summary.csv").read_text()
    assert "recommender=bm25" in tables["basic"] and "recommender=popularity" in tables["basic"]
    assert tables["joblib"] == tables["basic"] and tables["ray_local"] == tables["basic"]
    assert tables["submitit_local"] == tables["basic"]


def test_ray_actors_log_what_one_process_logs(tiny_catalog_dir: Path, tmp_path: Path) -> None:
    for backend in ("asyncio", "ray"):
        done = crsim("run", f"environment.catalog={tiny_catalog_dir}", *COMMON, f"runner.backend={backend}",
                     "runner.workers=2", f"hydra.run.dir={tmp_path / backend}")
        assert done.returncode == 0, done.stderr[-2000:]
    assert _by_index(tmp_path / "ray") == _by_index(tmp_path / "asyncio")
    assert (tmp_path / "ray" / "results.csv").read_text() == (tmp_path / "asyncio" / "results.csv").read_text()
    resumed = crsim("run", f"environment.catalog={tiny_catalog_dir}", *COMMON, "runner.backend=ray",
                    f"hydra.run.dir={tmp_path / 'ray'}")
    assert resumed.returncode == 0 and "ran 0, resumed 6" in resumed.stdout
