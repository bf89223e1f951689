"""Results frame shape and values, CSV round trip, rich table, plot file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rich.console import Console

from crsim_testing import make_episode

from environments.models import Episode, TerminationReason
from simulators.metrics import default_metrics

METRICS = [m.name for m in default_metrics()]
from simulators.results.plots import plot_metrics_vs_turn
from simulators.results.table import (
    COLUMNS,
    print_results,
    read_results_csv,
    render_table,
    results_frame,
    write_results_csv,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def episodes(offset: int = 0) -> list[Episode]:
    rng = np.random.default_rng(offset)
    eps = [make_episode(i, [int(r) for r in rng.integers(1, 30, size=3)]) for i in range(20)]
    eps.append(make_episode(20, [4, 1], TerminationReason.accepted))
    eps.append(make_episode(21, [2], TerminationReason.error))
    eps.append(make_episode(22, []))
    return eps


def render(renderable: object) -> str:
    console = Console(record=True, width=200)
    console.print(renderable)
    return console.export_text()


def test_results_frame_layout() -> None:
    df = results_frame(episodes(), max_turns=3, n_resamples=200)
    assert list(df.columns) == list(COLUMNS)
    assert len(df) == 3 * len(METRICS)
    assert df["turn"].tolist() == [t for t in (1, 2, 3) for _ in METRICS]
    assert df["metric"].tolist() == list(METRICS) * 3
    # 20 full episodes + 1 accepted (carried forward); the errored and the empty are excluded.
    assert (df["n"] == 21).all()
    assert df.attrs["n_excluded"] == 2
    assert (df["ci_low"] <= df["mean"]).all() and (df["mean"] <= df["ci_high"]).all()


def test_results_frame_values() -> None:
    eps = [make_episode(0, [1, 1]), make_episode(1, [3, 20]), make_episode(2, [12], TerminationReason.accepted)]
    df = results_frame(eps, max_turns=2).set_index(["turn", "metric"])
    assert df.loc[(1, "hits@1"), "mean"] == pytest.approx(1 / 3)
    assert df.loc[(1, "mrr"), "mean"] == pytest.approx((1 + 1 / 3 + 1 / 12) / 3)
    assert df.loc[(2, "avg_position"), "mean"] == pytest.approx((1 + 20 + 12) / 3)
    assert df.loc[(2, "hits@10"), "mean"] == pytest.approx(1 / 3)


def test_results_frame_is_deterministic_and_handles_no_episodes() -> None:
    pd.testing.assert_frame_equal(results_frame(episodes(), 3), results_frame(episodes(), 3))
    empty = results_frame([], max_turns=2)
    assert len(empty) == 2 * len(METRICS)
    assert (empty["n"] == 0).all() and empty["mean"].isna().all()


def test_csv_round_trip(tmp_path: Path) -> None:
    df = results_frame(episodes(), max_turns=3, n_resamples=200)
    path = write_results_csv(df, tmp_path / "sub" / "results.csv")
    back = read_results_csv(path)
    pd.testing.assert_frame_equal(back, df, check_dtype=False)
    assert back["turn"].dtype == "int64" and back["n"].dtype == "int64"
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="missing columns"):
        read_results_csv(tmp_path / "bad.csv")


def test_render_table() -> None:
    df = results_frame(episodes(), max_turns=3, n_resamples=200)
    text = render_table(df, title="bm25 run").columns
    assert [c.header for c in text] == ["turn", *METRICS, "n"]
    out = render(render_table(df, title="bm25 run"))
    assert "bm25 run" in out and "hits@10" in out and "avg_position" in out
    row = df[(df["turn"] == 1) & (df["metric"] == "mrr")].iloc[0]
    assert f"{row['mean']:.3f} [{row['ci_low']:.2f}, {row['ci_high']:.2f}]" in out
    console = Console(record=True, width=200)
    print_results(df, title="again", console=console)
    assert "again" in console.export_text()


def test_plot_written(tmp_path: Path) -> None:
    frames = {
        "bm25": results_frame(episodes(0), 3, n_resamples=100),
        "dense": results_frame(episodes(1), 3, n_resamples=100),
    }
    path = plot_metrics_vs_turn(frames, tmp_path / "plots" / "m.png", metrics=("hits@10", "mrr", "avg_position"))
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 1000
    with pytest.raises(ValueError):
        plot_metrics_vs_turn({}, tmp_path / "empty.png")
