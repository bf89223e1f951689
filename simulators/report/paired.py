"""Paired comparisons between configurations on the episodes they share.

Configurations run with the same seed see the same episodes (same id, same targets, same
seeker), so the fair question is not "do the two CIs overlap" but "on the same episodes,
how much better is A than B": the per-episode differences are bootstrapped jointly
(`stats.paired_bootstrap_diff`), which removes the between-episode variance that makes
unpaired intervals wide. Episodes are matched by id; a pair whose logged targets differ
(e.g. two environments whose ids happen to coincide) is not the same episode and is left
out, as is any episode that one side could not score (crashed or without records). Two
configurations are compared on the metrics both were scored with.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import pandas as pd

from environments.models import Episode
from simulators.metrics import Metric, episode_metrics, is_scorable, metric_from_name
from simulators.report.tables import md_escape
from simulators.results.runlog import LoggedRun
from simulators.results.stats import paired_bootstrap_diff

PAIRED_COLUMNS: tuple[str, ...] = (
    "config_a", "config_b", "turn", "metric", "n_pairs", "mean_a", "mean_b",
    "diff", "ci_low", "ci_high", "significant", "better",
)
"""`diff` is mean(a - b); `significant`: the CI excludes 0; `better`: that config's label
when significant (direction from `higher_is_better`), else empty."""


def shared_episodes(a: LoggedRun, b: LoggedRun) -> list[tuple[Episode, Episode]]:
    """Episodes both runs logged under the same id (and target) and both can score."""
    by_id = {e.id: e for e in b.episodes}
    pairs = []
    for episode in a.episodes:
        other = by_id.get(episode.id)
        if other is None or not (is_scorable(episode) and is_scorable(other)):
            continue
        if episode.targets and other.targets and episode.targets != other.targets:
            continue
        pairs.append((episode, other))
    return pairs


def shared_metrics(a: LoggedRun, b: LoggedRun, names: Sequence[str] | None) -> list[Metric]:
    """The metrics named (default: `a`'s) that both runs can be scored with: configured for
    both, or built in (`hits@K`, `mrr`, ...)."""
    by_name = {m.name: m for m in a.metrics}
    in_b = {m.name for m in b.metrics}
    chosen = []
    for name in (names if names is not None else list(by_name)):
        builtin = metric_from_name(name)
        if (name in by_name and name in in_b) or builtin is not None:
            chosen.append(by_name.get(name) or builtin)
    return chosen


def compare_pair(
    a: LoggedRun, b: LoggedRun, metrics: Sequence[str] | None = None, *, n_resamples: int = 1000, seed: int = 0
) -> list[dict]:
    """Rows (see `PAIRED_COLUMNS`) for every turn and shared metric of one pair of configs.

    A turn counts an episode pair only when both sides have a value there (carry-forward
    included), so both means are over the same episodes and `diff = mean_a - mean_b`.
    """
    chosen = shared_metrics(a, b, metrics)
    max_turns = max(a.max_turns, b.max_turns)
    values: dict[tuple[int, str], tuple[list[float], list[float]]] = {}
    for ep_a, ep_b in shared_episodes(a, b):
        per_a = episode_metrics(ep_a, max_turns, chosen)
        per_b = episode_metrics(ep_b, max_turns, chosen)
        for turn in sorted(per_a.keys() & per_b.keys()):
            for metric in chosen:
                if metric.name in per_a[turn] and metric.name in per_b[turn]:
                    xs, ys = values.setdefault((turn, metric.name), ([], []))
                    xs.append(per_a[turn][metric.name])
                    ys.append(per_b[turn][metric.name])
    rows = []
    for turn in range(1, max_turns + 1):
        for metric in chosen:
            xs, ys = values.get((turn, metric.name), ([], []))
            rows.append(_row(a.label, b.label, turn, metric, xs, ys, n_resamples=n_resamples, seed=seed))
    return rows


def _row(label_a: str, label_b: str, turn: int, metric: Metric, xs: list[float], ys: list[float], *,
         n_resamples: int, seed: int) -> dict:
    nan = float("nan")
    if not xs:
        diff = low = high = mean_a = mean_b = nan
    else:
        diff, low, high = paired_bootstrap_diff(xs, ys, n_resamples=n_resamples, seed=seed)
        mean_a, mean_b = sum(xs) / len(xs), sum(ys) / len(ys)
    significant = bool(xs) and (low > 0 or high < 0)
    better = ""
    if significant:
        a_wins = (diff > 0) == metric.higher_is_better
        better = label_a if a_wins else label_b
    return {
        "config_a": label_a, "config_b": label_b, "turn": turn, "metric": metric.name, "n_pairs": len(xs),
        "mean_a": mean_a, "mean_b": mean_b, "diff": diff, "ci_low": low, "ci_high": high,
        "significant": significant, "better": better,
    }


def paired_frame(
    runs: Sequence[LoggedRun], metrics: Sequence[str] | None = None, *, n_resamples: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Every pair of configurations (in run order, A before B), every turn and metric."""
    rows: list[dict] = []
    for a, b in itertools.combinations(runs, 2):
        rows += compare_pair(a, b, metrics, n_resamples=n_resamples, seed=seed)
    df = pd.DataFrame(rows, columns=list(PAIRED_COLUMNS))
    return df.astype({"turn": "int64", "n_pairs": "int64", "significant": bool})


def format_diff(metric: str, diff: float, low: float, high: float) -> str:
    """'+0.125 [+0.050, +0.200]' (differences beyond ±1, e.g. of ranks, with one decimal);
    '-' when there were no pairs."""
    if math.isnan(diff):
        return "-"
    if not -1.0 <= low <= high <= 1.0:
        return f"{diff:+.1f} [{low:+.1f}, {high:+.1f}]"
    return f"{diff:+.3f} [{low:+.3f}, {high:+.3f}]"  # 3 decimals: a CI just above 0 must not read 0.00


def paired_wide_rows(df: pd.DataFrame, metrics: Sequence[str]) -> list[dict]:
    """One dict per (pair, turn): labels, `n`, and per metric (text, winner): winner is
    "A" or "B" when the CI excludes 0, else "" (labels are long; the columns name them)."""
    rows = []
    for (label_a, label_b), pair in df.groupby(["config_a", "config_b"], sort=False):
        for turn, group in pair.groupby("turn", sort=True):
            by_metric = {r.metric: r for r in group.itertuples(index=False)}
            cells = []
            for metric in metrics:
                r = by_metric.get(metric)
                if r is None:
                    cells.append(("-", ""))
                    continue
                winner = "" if not r.better else ("A" if r.better == label_a else "B")
                cells.append((format_diff(metric, r.diff, r.ci_low, r.ci_high), winner))
            rows.append({"config_a": str(label_a), "config_b": str(label_b), "turn": int(turn),
                         "n": int(group["n_pairs"].max()), "cells": cells})
    return rows


def paired_markdown(df: pd.DataFrame, metrics: Sequence[str]) -> str:
    """Paired differences as Markdown; a cell whose CI excludes 0 names the better config."""
    lines = [
        "# Paired comparisons",
        "",
        "Mean difference A - B over the episodes both configurations ran (matched by episode id),",
        'with a paired-bootstrap 95% CI. "A better" / "B better": the CI excludes 0.',
        "",
    ]
    if df.empty:
        lines.append("Nothing to compare: the report covers a single configuration.")
        return "\n".join(lines) + "\n"
    if int(df["n_pairs"].max()) == 0:
        lines.append("No shared scorable episodes between any two configurations.")
        return "\n".join(lines) + "\n"
    lines.append("| " + " | ".join(["A", "B", "turn", "n", *metrics]) + " |")
    lines.append("| " + " | ".join(["---", "---", "---:", "---:", *("---:" for _ in metrics)]) + " |")
    for row in paired_wide_rows(df, metrics):
        cells = [f"{text} **{winner} better**" if winner else text for text, winner in row["cells"]]
        lines.append("| " + " | ".join([md_escape(row["config_a"]), md_escape(row["config_b"]),
                                         str(row["turn"]), str(row["n"]), *cells]) + " |")
    return "\n".join(lines) + "\n"
