"""Metric-versus-turn plots: how fast does each configuration find the target?

The figure is built with matplotlib's object API (`matplotlib.figure.Figure`) rather than
`pyplot`: a bare Figure renders through the Agg canvas when saved, never opens a window,
never touches the process-wide backend (so calling this from a notebook or a GUI program
does not switch their backend) and is garbage-collected like any object, so there is no
global figure registry to leak into across hundreds of sweep jobs.

The legend sits below the plots, outside the figure's layout, and the PNG is saved with
`bbox_inches="tight"`, so the image grows to hold the legend instead of cutting it:
configuration labels are Hydra overrides ("recommender=popularity,seeker=target_free")
and were cut at the image's edges when the legend was centred in a fixed-size figure. A
long label is also wrapped after its commas (`legend_label`), so the image does not grow
much wider than its plots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

HEADLINE: tuple[str, ...] = ("hits@10", "mrr")
LABEL_WIDTH = 40  # characters per legend line before a label wraps
SAVE_OPTIONS = {"bbox_inches": "tight", "pad_inches": 0.1}  # the saved image holds every artist whole


def headline_metrics(metrics: Sequence[str]) -> list[str]:
    """The overview plot's metrics: hits@10 and MRR when present, else the first two."""
    chosen = [m for m in HEADLINE if m in metrics]
    return chosen or list(metrics[:2])


def legend_label(label: str, width: int = LABEL_WIDTH) -> str:
    """`label` on lines of at most `width` characters, broken after its commas (between
    overrides) where it can be, inside an override only where it cannot; no character is
    dropped (joining the lines gives `label` back)."""
    lines: list[str] = []
    for part in (piece + "," for piece in label.split(",")):
        if lines and len(lines[-1]) + len(part) <= width:
            lines[-1] += part
        else:
            lines.extend(part[start:start + width] for start in range(0, len(part), width))
    return "\n".join(lines)[:-1]  # less the comma added after the last piece


def legend_columns(labels: Sequence[str], figure_width: float, fontsize: float) -> int:
    """As many columns as fit across `figure_width` inches (at least one), at most three."""
    widest = max(len(line) for label in labels for line in label.splitlines())
    entry = (widest * 0.6 * fontsize + 3 * fontsize) / 72  # inches: ~0.6 em per character, plus the handle
    return max(1, min(len(labels), 3, int(figure_width // entry)))


def metrics_figure(
    frames: Mapping[str, pd.DataFrame],
    metrics: Sequence[str] = HEADLINE,
    *,
    title: str | None = None,
) -> Figure:
    """The figure `plot_metrics_vs_turn` saves: a subplot per metric, a line (+ CI band) per
    configuration, one legend below them all."""
    if not frames:
        raise ValueError("nothing to plot: no result frames given")
    if not metrics:
        raise ValueError("nothing to plot: no metrics given")
    higher: dict[str, bool] = {}
    for df in frames.values():
        if "higher_is_better" in df.columns:
            higher.update(zip(df["metric"], df["higher_is_better"]))
    width = 5.0 * len(metrics)
    fig = Figure(figsize=(width, 4.0), layout="constrained")
    axes = fig.subplots(1, len(metrics), squeeze=False)[0]
    for ax, metric in zip(axes, metrics, strict=True):
        for label, df in frames.items():
            rows = df[df["metric"] == metric].sort_values("turn")
            if rows.empty:
                continue
            (line,) = ax.plot(rows["turn"], rows["mean"], marker="o", markersize=3, label=legend_label(label))
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
        fontsize = 8.0
        # under the figure, outside the layout: the plots keep their size however many
        # labels there are, and the tight bounding box of the saved image takes it in
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), fontsize=fontsize,
                   ncols=legend_columns(labels, width, fontsize))
    if title:
        fig.suptitle(title)
    return fig


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
    fig = metrics_figure(frames, metrics, title=title)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, format="png", **SAVE_OPTIONS)
    return path
