"""The results table of a report: per-configuration results frames, CSV and Markdown.

Each configuration is scored exactly as `crsim run` scored it (`results.results_frame`
with the run's own seed), so a report of one run reproduces that run's `results.csv`;
the frames are then stacked with a leading `config` column, the same long format as a
sweep's `summary.csv`, so every downstream tool reads one shape.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from simulators.metrics import select_metrics
from simulators.results.runlog import LoggedRun
from simulators.results.table import COLUMNS, directions, format_cell, results_frame


def config_frames(
    runs: Sequence[LoggedRun], metrics: Sequence[str] | None = None, *, n_resamples: int = 1000
) -> dict[str, pd.DataFrame]:
    """Label -> results frame of each run: its configured metrics, or those named (in order)."""
    frames: dict[str, pd.DataFrame] = {}
    for run in runs:
        chosen = select_metrics(run.metrics, metrics)
        frame = results_frame(run.episodes, run.max_turns, chosen, seed=run.seed, n_resamples=n_resamples)
        frames[run.label] = frame
    return frames


def metric_order(frames: dict[str, pd.DataFrame]) -> list[str]:
    """Every metric the frames hold, in first-seen order: the columns of every table."""
    return list(dict.fromkeys(m for frame in frames.values() for m in frame["metric"]))


def combined_frame(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """All frames stacked with a leading `config` column, configs in the order given."""
    parts = []
    for label, frame in frames.items():
        part = frame.copy()
        part.insert(0, "config", label)
        parts.append(part)
    if not parts:
        return pd.DataFrame(columns=["config", *COLUMNS])
    return pd.concat(parts, ignore_index=True)


def has_scores(df: pd.DataFrame) -> bool:
    """Whether any cell has data: logs without rankings (imported dialogues) have none."""
    return bool(len(df)) and int(df["n"].max()) > 0


def best_means(df: pd.DataFrame) -> dict[tuple[int, str], float]:
    """(turn, metric) -> the best mean across configs, for highlighting the winner.

    Cells where every config has the same mean (all 0 at turn 1, say) have no winner:
    bolding all of them would draw the eye to nothing.
    """
    higher = directions(df)
    best: dict[tuple[int, str], float] = {}
    for (turn, metric), rows in df.groupby(["turn", "metric"], sort=False):
        means = rows["mean"].dropna()
        if means.nunique() > 1:
            best[(int(turn), str(metric))] = float(means.max() if higher[str(metric)] else means.min())
    return best


def wide_rows(df: pd.DataFrame, metrics: Sequence[str]) -> list[dict]:
    """One dict per (config, turn): `config`, `turn`, `n`, and per metric (text, is_best).

    The single place that decides what a table row shows, shared by Markdown and HTML.
    """
    best = best_means(df)
    rows = []
    for config in dict.fromkeys(df["config"]):
        at_config = df[df["config"] == config]
        for turn, group in at_config.groupby("turn", sort=True):
            by_metric = {r.metric: r for r in group.itertuples(index=False)}
            cells = []
            for metric in metrics:
                r = by_metric.get(metric)
                if r is None or math.isnan(r.mean):
                    cells.append(("-", False))
                else:
                    text = format_cell(metric, r.mean, r.ci_low, r.ci_high)
                    cells.append((text, best.get((int(turn), metric)) == r.mean))
            rows.append({"config": str(config), "turn": int(turn), "n": int(group["n"].max()), "cells": cells})
    return rows


def md_escape(text: str) -> str:
    """Make text safe inside a Markdown table cell (pipes split cells, newlines end rows)."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def results_markdown(df: pd.DataFrame, metrics: Sequence[str], notes: Sequence[str] = ()) -> str:
    """The results table as GitHub Markdown: one row per (config, turn), best mean in bold."""
    lines = ["# Results", "", "Mean per turn with bootstrap 95% CI; best mean per turn in bold.", ""]
    lines += [f"> {md_escape(note)}" for note in notes]
    if notes:
        lines.append("")
    if not has_scores(df):
        lines.append("No scorable episodes: no episode has evaluation records, so there is nothing to score.")
        return "\n".join(lines) + "\n"
    lines.append("| " + " | ".join(["config", "turn", "n", *metrics]) + " |")
    lines.append("| " + " | ".join(["---", "---:", "---:", *("---:" for _ in metrics)]) + " |")
    for row in wide_rows(df, metrics):
        cells = [f"**{text}**" if bold else text for text, bold in row["cells"]]
        lines.append("| " + " | ".join([md_escape(row["config"]), str(row["turn"]), str(row["n"]), *cells]) + " |")
    return "\n".join(lines) + "\n"


def write_text(path: Path, text: str) -> Path:
    """Write UTF-8 text (parents created); returns the path for the list of files written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def excluded_notes(frames: dict[str, pd.DataFrame]) -> list[str]:
    """One note per config with crashed or rank-less episodes left out of its scores."""
    return [
        f"{label}: {frame.attrs['n_excluded']} episode(s) not scored (crashed or without evaluation records)"
        for label, frame in frames.items()
        if frame.attrs.get("n_excluded")
    ]
