"""A small logged offline run (tiny catalog, BM25 recommender, target-biased seeker), made once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from crsim_testing import crsim, make_tiny_catalog


@pytest.fixture(scope="module")
def logged_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("replay")
    catalog = make_tiny_catalog().save(base / "tiny")
    run_dir = base / "run"
    ran = crsim("run", f"environment.catalog={catalog}", "environment.target_pool_size=5", "episodes=4",
                "max_turns=3", "progress=false", f"hydra.run.dir={run_dir}")
    assert ran.returncode == 0, ran.stderr[-3000:]
    return run_dir


@pytest.fixture
def run_copy(logged_run: Path, tmp_path: Path) -> Path:
    """A private copy of the logged run, for tests that tamper with it or write into it."""
    return Path(shutil.copytree(logged_run, tmp_path / "run"))
