"""`experiment=pepper` on a catalog imported with `crsim data import imdb-reviews`, offline:
the same per-turn coverage tables and the metric-vs-turn plot as on the world."""

from __future__ import annotations

import os
import subprocess

import pandas as pd

from crsim_testing import CRSIM
from imdb_fixture import write_imdb_fixture


def test_pepper_sweep_runs_on_an_imported_imdb_catalog(tmp_path, crsim_cache):
    reviews, meta = write_imdb_fixture(tmp_path / "raw")
    imported = subprocess.run([CRSIM, "data", "import", "imdb-reviews", str(reviews), "--metadata", str(meta),
                               "--rating-scale", "0.5", "--out", str(tmp_path / "catalog"), "--no-progress"],
                              capture_output=True, text=True, timeout=300)
    assert imported.returncode == 0, imported.stderr[-2000:]
    sweep = tmp_path / "sweep"
    done = subprocess.run(
        [CRSIM, "run", "-m", "experiment=pepper", "recommender=popularity,bm25", f"environment.catalog={tmp_path / 'catalog'}",
         "episodes=12", "max_turns=3", "progress=false", f"cache_dir={crsim_cache}", f"hydra.sweep.dir={sweep}"],
        capture_output=True, text=True, timeout=900, env={**os.environ, "COLUMNS": "250"})
    assert done.returncode == 0, done.stderr[-3000:]
    summary = pd.read_csv(sweep / "summary.csv")
    assert summary["config"].nunique() == 4  # both seekers x two recommenders
    assert {"pc@20", "recall@20", "pc_selected@20", "pc_residual@20", "pcir_avg@20"} <= set(summary.metric)
    assert (sweep / "summary.png").stat().st_size > 10_000
    coverage = summary[summary.metric == "pc@20"].sort_values("turn")
    for _, rows in coverage.groupby("config"):
        assert rows["mean"].is_monotonic_increasing  # coverage only grows
    assert "pc_selected@20" in done.stdout and "pc_residual@20" in done.stdout  # the sweep table shows the halves
