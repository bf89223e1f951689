"""The main job: a sweep over recommenders on the default world, compared with CIs."""

from __future__ import annotations

import pandas as pd
import pytest

from crsim_testing import crsim


def _final(frame: pd.DataFrame, config: str, metric: str, turn: int) -> pd.Series:
    rows = frame[(frame.config == config) & (frame.metric == metric) & (frame.turn == turn)]
    assert len(rows) == 1, (config, metric, turn)
    return rows.iloc[0]


@pytest.mark.slow
def test_sweep_on_default_world_beats_popularity_by_more_than_the_cis(tmp_path):
    sweep_dir = tmp_path / "sweep"
    out = crsim("run", "-m", "recommender=popularity,bm25,dense", "episodes=60", "max_turns=5",
                f"hydra.sweep.dir={sweep_dir}", "progress=false")
    assert out.returncode == 0, out.stderr[-3000:]
    summary = pd.read_csv(sweep_dir / "summary.csv")
    assert (sweep_dir / "summary.png").stat().st_size > 1000
    for name in ("recommender=popularity", "recommender=bm25", "recommender=dense"):
        assert name in out.stdout
        assert len(list(sweep_dir.glob(f"*{name}/results.csv"))) == 1  # dir named after all overrides
    popularity = _final(summary, "recommender=popularity", "hits@10", 5)
    for config in ("recommender=bm25", "recommender=dense"):
        better = _final(summary, config, "hits@10", 5)
        assert better.ci_low > popularity.ci_high, (config, better.to_dict(), popularity.to_dict())
