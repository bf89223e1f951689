"""Summarise a Hydra multirun sweep: one table, one CSV and one plot across all jobs.

Hydra writes each job of a sweep to `<sweep_dir>/<subdir>/` (by default the job number)
with the job's command-line overrides in `<subdir>/.hydra/overrides.yaml`. The overrides
are exactly what distinguishes one job from another, so they make the configuration label;
the job number means nothing to a reader and is only used when the overrides are missing.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import yaml
from rich.console import Console
from rich.table import Table
from rich.text import Text

from simulators.results.plots import headline_metrics, plot_metrics_vs_turn
from simulators.results.table import directions, format_cell, read_results_csv, table_console, write_results_csv
from simulators.results.usage import has_usage, read_usage_csv, render_usage_table


def job_overrides(job_dir: Path) -> list[str]:
    overrides_file = job_dir / ".hydra" / "overrides.yaml"
    if overrides_file.is_file():
        overrides = yaml.safe_load(overrides_file.read_text(encoding="utf-8")) or []
        if isinstance(overrides, list):
            return [str(o) for o in overrides]
    return []


def job_label(job_dir: Path, sweep_dir: Path, shared: frozenset[str] = frozenset()) -> str:
    """The job's overrides joined by ',' (e.g. 'recommender=bm25,seed=1'), else its subdir.

    Overrides every job of the sweep has (`shared`, e.g. `episodes=60`) are left out: they
    do not tell the configurations apart and only make the table wide.
    """
    overrides = [o for o in job_overrides(job_dir) if o not in shared]
    if overrides:
        return ",".join(overrides)
    return job_dir.relative_to(sweep_dir).as_posix() or "."


def job_labels(job_dirs: Sequence[Path], sweep_dir: Path) -> list[str]:
    """Labels for the jobs of one sweep: overrides all of them share are left out, and two
    jobs that would get the same label get their subdir appended so they never merge."""
    per_job = [set(job_overrides(d)) for d in job_dirs]
    shared = frozenset(set.intersection(*per_job)) if len(job_dirs) > 1 else frozenset()
    labels = [job_label(d, sweep_dir, shared) for d in job_dirs]
    return [f"{label} [{d.relative_to(sweep_dir).as_posix()}]" if labels.count(label) > 1 else label
            for label, d in zip(labels, job_dirs, strict=True)]


def collect_sweep(sweep_dir: Path | str) -> pd.DataFrame:
    """All jobs' `results.csv` under `sweep_dir`, concatenated with a leading `config` column.

    Sorted by config then turn; within a turn the metric order of each job's file is kept
    (stable sort). Two jobs with identical labels get their subdir appended so their rows
    never silently merge. A sweep without any results is an error naming the directory.
    """
    sweep_dir = Path(sweep_dir)
    files = sorted(p for p in sweep_dir.rglob("results.csv") if p.parent != sweep_dir)
    if not files:
        raise FileNotFoundError(f"no <job>/results.csv found under {sweep_dir}")
    frames = []
    for label, file in zip(job_labels([f.parent for f in files], sweep_dir), files, strict=True):
        df = read_results_csv(file)
        df.insert(0, "config", label)
        frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    return out.sort_values(["config", "turn"], kind="stable").reset_index(drop=True)


def collect_usage(sweep_dir: Path) -> dict[str, pd.DataFrame]:
    """Each job's `usage.csv`, labelled like its results (jobs without one are left out)."""
    files = sorted(p for p in sweep_dir.rglob("usage.csv") if p.parent != sweep_dir)
    if not files:
        return {}
    labels = job_labels([f.parent for f in files], sweep_dir)
    return {label: read_usage_csv(f) for label, f in zip(labels, files, strict=True)}


def _cell(rows: pd.DataFrame, metric: str) -> tuple[str, float]:
    match = rows[rows["metric"] == metric]
    if match.empty:
        return "-", float("nan")
    r = match.iloc[0]
    return format_cell(metric, r["mean"], r["ci_low"], r["ci_high"]), float(r["mean"])


def render_comparison_table(
    df: pd.DataFrame,
    *,
    title: str | None = None,
    metrics: Sequence[str] | None = None,
) -> Table:
    """One row per (config, turn), one column per metric with its CI; configs in sections.

    Metrics are `metrics` (default: every metric in the table, in its order). Within each
    turn the best mean per metric is bold (direction from the table's `higher_is_better`),
    so the winner is visible at a glance; whether it is a real win is for the CIs (or
    `stats.paired_bootstrap_diff`).
    """
    configs = list(dict.fromkeys(df["config"]))
    present = list(dict.fromkeys(df["metric"]))
    metrics = present if metrics is None else [m for m in metrics if m in present]
    higher = directions(df)
    best: dict[tuple[int, str], float] = {}
    for (turn, metric), rows in df.groupby(["turn", "metric"]):
        means = rows["mean"].dropna()
        if not means.empty and metric in metrics:
            best[(int(turn), metric)] = means.max() if higher[metric] else means.min()

    table = Table(title=title)
    table.add_column("config", overflow="fold", max_width=30)  # long override labels wrap, metrics stay whole
    table.add_column("turn", justify="right")
    table.add_column("n", justify="right")
    for m in metrics:
        table.add_column(m, justify="right", no_wrap=True)
    for position, config in enumerate(configs):
        if position:
            table.add_section()
        rows = df[df["config"] == config]
        for turn in sorted(int(t) for t in rows["turn"].unique()):
            at_turn = rows[rows["turn"] == turn]
            label = Text(config) if turn == int(rows["turn"].min()) else Text("")  # Text: no markup
            row: list[str | Text] = [label, str(turn), str(int(at_turn["n"].max()))]
            for m in metrics:
                text, mean = _cell(at_turn, m)
                row.append(f"[bold]{text}[/bold]" if best.get((turn, m)) == mean else text)
            table.add_row(*row)
    return table


def summarize_sweep(
    sweep_dir: Path | str,
    console: Console | None = None,
    metrics: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Write `summary.csv` and `summary.png` into `sweep_dir`, print the comparison table.

    `summary.png` plots `metrics` (default: the headline ones, see `plots.headline_metrics`),
    and the printed table shows them too when given (`summary.csv` always has every metric).
    Returns the collected long-format frame (with its `config` column).
    """
    sweep_dir = Path(sweep_dir)
    df = collect_sweep(sweep_dir)
    write_results_csv(df, sweep_dir / "summary.csv")
    frames = {
        config: group.drop(columns="config")
        for config, group in df.groupby("config", sort=False)
    }
    plotted = list(metrics) if metrics else headline_metrics(list(dict.fromkeys(df["metric"])))
    plot_metrics_vs_turn(frames, sweep_dir / "summary.png", metrics=plotted)
    console = console or table_console()
    console.print(render_comparison_table(df, title=f"Sweep {sweep_dir}", metrics=list(metrics) if metrics else None))
    usage = collect_usage(sweep_dir)
    if any(has_usage(frame) for frame in usage.values()):
        console.print(render_usage_table(usage, title="LLM usage per configuration"))
    console.print(f"wrote {sweep_dir / 'summary.csv'} and {sweep_dir / 'summary.png'}")
    return df


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m simulators.results.sweep SWEEP_DIR [--metrics hits@10 mrr]`."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("sweep_dir", type=Path)
    parser.add_argument("--metrics", nargs="+", default=None)
    args = parser.parse_args(argv)
    summarize_sweep(args.sweep_dir, metrics=args.metrics)


if __name__ == "__main__":
    main()
