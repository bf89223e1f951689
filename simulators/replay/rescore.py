"""Re-scoring a log with the current metric code.

A run's `results.csv` was computed when it ran; re-scoring recomputes it from the log
alone, with the same seed for the bootstrap, so with unchanged metric code the table is
identical (checked cell by cell against the run's file). The metrics are the ones the
run was configured with (its `config.yaml`; the single-target set for older runs). Logs
without evaluation records (imported human dialogues) have nothing to score; they get
dialogue statistics instead.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from rich.table import Table

from environments.models import Episode, TerminationReason
from simulators.replay.scripted import logged_moves
from simulators.results.runlog import LoggedRun
from simulators.results.table import read_results_csv, results_frame

RESULTS_FILE = "results.csv"


def rescore(run: LoggedRun) -> pd.DataFrame:
    return results_frame(run.episodes, run.max_turns, run.metrics, seed=run.seed)


def compare_with_logged(run: LoggedRun, frame: pd.DataFrame) -> tuple[Path, list[str]] | None:
    """(the run's results.csv, differing cells) — None when the run has no results.csv."""
    path = run.run_dir / RESULTS_FILE
    if not path.is_file():
        return None
    logged = read_results_csv(path)
    if len(logged) != len(frame) or list(logged["metric"]) != list(frame["metric"]):
        return path, [f"rows: logged {len(logged)}, re-scored {len(frame)}"]
    differences = []
    for old, new in zip(logged.itertuples(index=False), frame.itertuples(index=False), strict=True):
        for column in ("mean", "ci_low", "ci_high", "n"):
            a, b = getattr(old, column), getattr(new, column)
            if not (a == b or (np.isnan(a) and np.isnan(b)) or np.isclose(a, b, rtol=1e-12, atol=1e-12)):
                differences.append(f"turn {new.turn} {new.metric} {column}: logged {a}, re-scored {b}")
    return path, differences


def has_records(episodes: list[Episode]) -> bool:
    return any(e.evaluations for e in episodes)


def dialogue_stats(episodes: list[Episode]) -> Table:
    """Per-episode means for logs that have transcripts but no evaluation records."""
    def mean(values: list[float]) -> str:
        return f"{np.mean(values):.2f}" if values else "-"

    roles = list(dict.fromkeys(t.role for e in episodes for t in e.turns))
    moves = [[float(len(logged_moves(e, role))) for e in episodes] for role in roles]
    shown = [sum(len(t.items_shown) for t in e.turns) for e in episodes]
    likes = [sum(1 for t in e.turns for kind in t.feedback.values() if kind == "like") for e in episodes]
    dislikes = [sum(1 for t in e.turns for kind in t.feedback.values() if kind == "dislike") for e in episodes]
    accepted = [float(e.termination is TerminationReason.accepted) for e in episodes]
    table = Table(title=f"{len(episodes)} dialogues (no evaluation records logged: dialogue statistics)")
    for column in ("turns", *(f"{role} moves" for role in roles), "items shown", "liked", "disliked", "accepted"):
        table.add_column(column, justify="right")
    table.add_row(mean([float(len(e.turns)) for e in episodes]), *(mean(m) for m in moves), mean(shown),
                  mean(likes), mean(dislikes), mean(accepted))
    return table
