"""LLM usage per episode and per run: calls, tokens, cost and cache hits, with 95% CIs.

Ranking metrics say how good a configuration is; usage says what it cost to find out.
Both come from the episode log alone (`Episode.llm_calls`), so a re-scored or reported
log shows the same totals as the run that wrote it. Usage is per episode, not per turn,
so it is its own small table (`usage.csv`) next to `results.csv` rather than more rows
in the per-turn one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from rich.table import Table

from environments.models import Episode
from simulators.results.stats import bootstrap_ci

USAGE_METRICS: tuple[str, ...] = ("llm_calls", "input_tokens", "output_tokens", "cost_usd", "cache_hits",
                                   "unpriced_calls")
SHOWN_PER_EPISODE: tuple[str, ...] = USAGE_METRICS[:5]
USAGE_COLUMNS: tuple[str, ...] = ("metric", "per_episode", "ci_low", "ci_high", "total", "n")


def episode_usage(episode: Episode) -> dict[str, float]:
    """One episode's totals. Calls whose model litellm's price table lacks add nothing to
    `cost_usd` and are counted in `unpriced_calls`, so a cost is never silently low."""
    calls = episode.llm_calls
    return {
        "llm_calls": float(len(calls)),
        "input_tokens": float(sum(c.input_tokens or 0 for c in calls)),
        "output_tokens": float(sum(c.output_tokens or 0 for c in calls)),
        "cost_usd": float(sum(c.cost_usd or 0.0 for c in calls)),
        "cache_hits": float(sum(c.cache_hit for c in calls)),
        "unpriced_calls": float(sum(1 for c in calls if c.cost_usd is None and (c.input_tokens or c.output_tokens))),
    }


def usage_frame(episodes: Iterable[Episode], *, seed: int = 0, n_resamples: int = 1000) -> pd.DataFrame:
    """Per-episode mean (bootstrap 95% CI) and run total of every usage metric.

    Every logged episode counts, crashed ones too: their calls were made and paid for.
    """
    per_episode = [episode_usage(e) for e in episodes]  # numbers only: the episodes may be streamed
    rows = []
    for name in USAGE_METRICS:
        values = np.asarray([u[name] for u in per_episode], dtype=float)
        mean, low, high = bootstrap_ci(values, n_resamples=n_resamples, seed=seed)
        rows.append((name, mean, low, high, float(values.sum()), int(values.size)))
    return pd.DataFrame(rows, columns=list(USAGE_COLUMNS))


def has_usage(df: pd.DataFrame) -> bool:
    """Whether any language-model call was made (offline runs print no usage table)."""
    calls = df[df["metric"] == "llm_calls"]["total"]
    return bool(len(calls)) and float(calls.iloc[0]) > 0


def write_usage_csv(df: pd.DataFrame, path: Path | str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False)
    return path


def format_usage(metric: str, value: float) -> str:
    if np.isnan(value):
        return "-"
    if metric == "cost_usd":
        return f"${value:.4f}"
    return f"{value:,.1f}" if value % 1 else f"{value:,.0f}"


def render_usage_table(frames: Mapping[str, pd.DataFrame], title: str = "LLM usage") -> Table:
    """One row per configuration: each metric's per-episode mean [CI] and the run's total."""
    table = Table(title=title)
    table.add_column("config", no_wrap=True)
    for metric in SHOWN_PER_EPISODE:
        table.add_column(f"{metric}/episode", justify="right")
    table.add_column("tokens (run)", justify="right")
    table.add_column("cost (run)", justify="right")
    for label, df in frames.items():
        by_metric = {row.metric: row for row in df.itertuples(index=False)}
        cells = [label]
        for metric in SHOWN_PER_EPISODE:
            row = by_metric[metric]
            cells.append(f"{format_usage(metric, row.per_episode)} "
                         f"[{format_usage(metric, row.ci_low)}, {format_usage(metric, row.ci_high)}]")
        tokens = by_metric["input_tokens"].total + by_metric["output_tokens"].total
        cells.append(format_usage("input_tokens", tokens))
        unpriced = int(by_metric["unpriced_calls"].total)
        cells.append(format_usage("cost_usd", by_metric["cost_usd"].total) + (f" (+{unpriced} unpriced)" if unpriced else ""))
        table.add_row(*cells)
    return table


def read_usage_csv(path: Path | str) -> pd.DataFrame:
    df = pd.read_csv(path)
    missing = [c for c in USAGE_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: not a usage table, missing columns {missing}")
    return df
