"""The report's metric-vs-turn PNGs, drawn by `simulators.results.plots`.

`metrics.png` is the overview `crsim run` also draws (hits@10 and MRR when selected);
then one PNG per selected metric, because a single figure with every metric side by side
gets too wide to read and the page lays the per-metric plots out in a grid.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from simulators.results.plots import headline_metrics, plot_metrics_vs_turn


def plot_file_name(metric: str) -> str:
    """'hits@10' -> 'plot-hits_at_10.png': safe on every file system and in a URL."""
    return "plot-" + re.sub(r"[^A-Za-z0-9_.-]", "_", metric.replace("@", "_at_")) + ".png"


def write_plots(frames: dict[str, pd.DataFrame], out: Path, metrics: Sequence[str]) -> list[Path]:
    """Write the overview and per-metric plots into `out`; [] when there is nothing to plot."""
    scored = {label: df for label, df in frames.items() if len(df) and int(df["n"].max()) > 0}
    if not scored:
        return []
    paths = [plot_metrics_vs_turn(scored, out / "metrics.png", metrics=headline_metrics(metrics))]
    for metric in metrics:
        paths.append(plot_metrics_vs_turn(scored, out / plot_file_name(metric), metrics=[metric]))
    return paths
