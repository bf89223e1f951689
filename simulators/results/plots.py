"""Metric-versus-turn plots: how fast does each configuration find the target?

The figure is built with matplotlib's object API (`matplotlib.figure.Figure`) rather than
`pyplot`: a bare Figure renders through the Agg canvas when saved, never opens a window,
never touches the process-wide backend (so calling this from a notebook or a GUI program
does not switch their backend) and is garbage-collected like any object, so there is no
global figure registry to leak into across hundreds of sweep jobs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

HEADLINE: tuple[str, ...] = ("hits@10", "mrr")


def headline_metrics(metrics: Sequence[str]) -> list[str]:
    """The overview plot's metrics: hits@10 and MRR when present, else the first two."""
    chosen = [m for m in HEADLINE if m in metrics]
    return chosen or list(metrics[:2])


def plot_metrics_vs_turn(
    frames: Mapping[str, pd.DataFrame],
    path: Path | str,
    metrics: Sequence[str] = HEADLINE,
    *,
    title: str | None = None,
    dpi: int = 120,
) -> Path:
    """Write one PNG with a subplot per metric and a line (+ CI band) per configuration.

    `frames` maps a label (shown in the legend) to a results frame as produced by
    `results.results_frame`. A configuration lacking a metric is skipped in that subplot
    only; turns with no data (NaN means) are simply gaps in the line.
    """
    if not frames:
        raise ValueError("nothing to plot: no result frames given")
    if not metrics:
        raise ValueError("nothing to plot: no metrics given")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)

    higher: dict[str, bool] = {}
    for df in frames.values():
        if "higher_is_better" in df.columns:
            higher.update(zip(df["metric"], df["higher_is_better"]))
    fig = Figure(figsize=(5.0 * len(metrics), 4.0), layout="constrained")
    axes = fig.subplots(1, len(metrics), squeeze=False)[0]
    for ax, metric in zip(axes, metrics, strict=True):
        for label, df in frames.items():
            rows = df[df["metric"] == metric].sort_values("turn")
            if rows.empty:
                continue
            (line,) = ax.plot(rows["turn"], rows["mean"], marker="o", markersize=3, label=label)
            ax.fill_between(
                rows["turn"], rows["ci_low"], rows["ci_high"], color=line.get_color(), alpha=0.2
            )
        better = "higher" if higher.get(metric, True) else "lower"
        ax.set_title(f"{metric} ({better} is better)")
        ax.set_xlabel("turn")
        ax.set_ylabel(metric)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(True, alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:
        fig.legend(
            handles, labels, loc="outside lower center", ncols=min(len(labels), 3), fontsize="small"
        )
    if title:
        fig.suptitle(title)
    fig.savefig(path, dpi=dpi, format="png")
    return path
