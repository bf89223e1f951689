"""Per-turn results: one long table of metric means with bootstrap intervals.

The long format (`turn, metric, mean, ci_low, ci_high, n, higher_is_better`) is what gets
written to disk: it concatenates across runs with one extra column (see `sweep_summary`),
it survives new metrics without a schema change (each row says which way its metric
goes, so a reader needs no metric code to pick a winner), and pandas pivots it into any
wide view. The wide view is only for people: `render_table` prints one row per turn, one
column per metric.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from rich.console import Console
from rich.table import Table

from environments.models import Episode
from simulators.metrics import Metric, check_unique, default_metrics, episode_metrics, higher_is_better, is_scorable
from simulators.results.stats import bootstrap_ci

COLUMNS: tuple[str, ...] = ("turn", "metric", "mean", "ci_low", "ci_high", "n", "higher_is_better")
REQUIRED: tuple[str, ...] = COLUMNS[:6]
"""Columns every results table has; `higher_is_better` is filled in for older tables."""


def results_frame(
    episodes: Iterable[Episode],
    max_turns: int,
    metrics: Sequence[Metric] | None = None,
    *,
    seed: int = 0,
    n_resamples: int = 1000,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Mean and bootstrap CI of every metric (default: the single-target set) at every
    turn 1..`max_turns`.

    Rows are ordered by turn, then by metric in the order given; every (turn, metric) pair
    gets a row even if no episode reached it (n=0, NaN values), so frames from different
    runs line up. Unscorable (crashed or record-less) episodes are left out; their count
    is kept in `df.attrs["n_excluded"]` for the caller to report. Every cell uses the same
    seed, so within a turn all metrics are computed on the same resamples of episodes and
    their intervals are mutually consistent.
    """
    metrics = check_unique(metrics if metrics is not None else default_metrics())
    per_turn: dict[int, dict[str, list[float]]] = {
        t: {m.name: [] for m in metrics} for t in range(1, max_turns + 1)
    }
    n_excluded = 0
    for episode in episodes:
        if not is_scorable(episode):
            n_excluded += 1
            continue
        for turn, values in episode_metrics(episode, max_turns, metrics).items():
            for name, value in values.items():
                per_turn[turn][name].append(value)
    rows = []
    for turn in range(1, max_turns + 1):
        for metric in metrics:
            values = np.asarray(per_turn[turn][metric.name], dtype=float)
            mean, low, high = bootstrap_ci(
                values, n_resamples=n_resamples, confidence=confidence, seed=seed
            )
            rows.append((turn, metric.name, mean, low, high, int(values.size), metric.higher_is_better))
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    df["turn"] = df["turn"].astype("int64")
    df["n"] = df["n"].astype("int64")
    df["higher_is_better"] = df["higher_is_better"].astype(bool)
    df.attrs["n_excluded"] = n_excluded
    return df


def directions(df: pd.DataFrame) -> dict[str, bool]:
    """Metric name -> whether higher is better, as the table itself says."""
    return {str(m): bool(h) for m, h in zip(df["metric"], df["higher_is_better"])}


def write_results_csv(df: pd.DataFrame, path: Path | str) -> Path:
    """Write a results frame as CSV (parent directories created); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False)
    return path


def read_results_csv(path: Path | str) -> pd.DataFrame:
    """Read a CSV written by `write_results_csv`, with the same dtypes.

    Extra leading columns (such as `config` in a sweep summary) are kept; missing
    required columns are an error naming them, not a KeyError deep inside a plot. Tables
    written before `higher_is_better` existed get it from the built-in metric names.
    """
    path = Path(path)
    df = pd.read_csv(path, dtype={"metric": str})
    if "higher_is_better" not in df.columns and "metric" in df.columns:
        df["higher_is_better"] = [higher_is_better(m) for m in df["metric"]]
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: not a results table, missing columns {missing}")
    df["turn"] = df["turn"].astype("int64")
    df["n"] = df["n"].astype("int64")
    df["higher_is_better"] = df["higher_is_better"].astype(bool)
    for col in ("mean", "ci_low", "ci_high"):
        df[col] = df[col].astype(float)
    return df


def table_console() -> Console:
    """A console for results tables: rich falls back to 80 columns when output is not a
    terminal (CI logs, `make run > log`), which folds every CI cell; use 160 there."""
    import os
    import sys

    wide = None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 160
    return Console(width=wide)


def format_cell(metric: str, mean: float, low: float, high: float) -> str:
    """'0.512 [0.47, 0.55]' for values within [0, 1] (rates, shares); larger values such as
    ranks get one decimal ('12.3 [10.1, 14.6]'); NaN gives '-'."""
    if math.isnan(mean):
        return "-"
    if not 0.0 <= low <= high <= 1.0:
        return f"{mean:.1f} [{low:.1f}, {high:.1f}]"
    return f"{mean:.3f} [{low:.2f}, {high:.2f}]"


def render_table(df: pd.DataFrame, title: str | None = None) -> Table:
    """Wide view of a results frame: one row per turn, one column per metric, plus n.

    Metric columns follow their order of first appearance in `df`, which is METRICS
    order for frames made by `results_frame` (and survives a CSV round trip).
    """
    metrics = list(dict.fromkeys(df["metric"]))
    table = Table(title=title)
    table.add_column("turn", justify="right")
    for metric in metrics:
        table.add_column(metric, justify="right")
    table.add_column("n", justify="right")
    for turn, group in df.groupby("turn", sort=True):
        by_metric = {row.metric: row for row in group.itertuples(index=False)}
        cells = [str(turn)]
        for metric in metrics:
            row = by_metric.get(metric)
            cells.append("-" if row is None else format_cell(metric, row.mean, row.ci_low, row.ci_high))
        cells.append(str(int(group["n"].max())))
        table.add_row(*cells)
    return table


TABLE_METRICS = 6  # metric columns per printed table: more would fold every CI cell


def print_results(df: pd.DataFrame, title: str | None = None, console: Console | None = None) -> None:
    """Print `render_table(df, title)` to `console` (a new stdout console by default); a
    frame with many metrics (PEPPER has 16) is printed as several tables of at most
    `TABLE_METRICS` metric columns each, in metric order."""
    console = console or table_console()
    metrics = list(dict.fromkeys(df["metric"]))
    chunks = [metrics[i:i + TABLE_METRICS] for i in range(0, len(metrics), TABLE_METRICS)] or [[]]
    for number, chunk in enumerate(chunks):
        part = df[df["metric"].isin(chunk)] if len(chunks) > 1 else df
        suffix = f" ({number + 1}/{len(chunks)})" if len(chunks) > 1 and title else ""
        console.print(render_table(part, f"{title}{suffix}" if title else None))
