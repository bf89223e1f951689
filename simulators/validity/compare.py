"""Runs beside the people: every validity figure for a corpus's real seekers and for each
run's simulated ones, with CIs and differences, as a table, `validity.csv` and a plot."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from environments.catalog import Catalog
from environments.models import Episode
from simulators.validity.classifier import LabelledTurn, distinguishability
from simulators.validity.figures import SPECS, Figure, compute_figures, verbatim_overlap
from simulators.validity.items import TitleFinder, rare_vocabulary
from simulators.validity.turns import SeekerDialogue, seeker_dialogues

PEOPLE = "people"
COLUMNS = ["set", "figure", "value", "ci_low", "ci_high", "n", "people", "difference"]
MAX_SAMPLE_TURNS = 1000


@dataclass
class SeekerSet:
    """One set of seeker dialogues and the catalog its item figures are read against."""

    label: str
    dialogues: list[SeekerDialogue]
    catalog: Catalog | None = None
    notes: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, label: str, episodes: Sequence[Episode], catalog: Catalog | None) -> SeekerSet:
        return cls(label, seeker_dialogues(episodes), catalog)

    @property
    def turns(self) -> int:
        return sum(len(d.turns) for d in self.dialogues)


def validity_frame(people: SeekerSet, runs: Sequence[SeekerSet], *, encoder: Any | None = None,
                   seed: int = 0) -> pd.DataFrame:
    """Long table: one row per (set, figure); `people` and `difference` (set - people) filled
    for the runs. `encoder` None skips the classifier."""
    sample = min([MAX_SAMPLE_TURNS, people.turns, *(r.turns for r in runs)])
    figures = {s.label: _figures(s, sample, seed) for s in (people, *runs)}
    for seekers in (people, *runs):
        figures[seekers.label]["verbatim_overlap"] = verbatim_overlap(
            seekers.dialogues, people.dialogues, own_excluded=seekers is people, seed=seed)
    if encoder is not None:
        real = _labelled(people)
        for run in runs:
            figures[run.label]["distinguishability_auc"] = distinguishability(real, _labelled(run), encoder, seed=seed)
    rows = []
    for label, by_name in figures.items():
        for name, figure in by_name.items():
            reference = figures[PEOPLE].get(name) if label != PEOPLE else None
            base = reference.value if reference is not None else math.nan
            rows.append([label, name, figure.value, figure.low, figure.high, figure.n, base,
                         figure.value - base if label != PEOPLE else math.nan])
    return pd.DataFrame(rows, columns=COLUMNS)


def _figures(seekers: SeekerSet, sample: int, seed: int) -> dict[str, Figure]:
    finder = TitleFinder(seekers.catalog) if seekers.catalog is not None else None
    rare = rare_vocabulary(seekers.catalog) if seekers.catalog is not None else None
    return dict(compute_figures(seekers.dialogues, finder=finder, rare=rare, sample_turns=sample, seed=seed))


def _labelled(seekers: SeekerSet) -> list[LabelledTurn]:
    return [LabelledTurn(t.text, d.id) for d in seekers.dialogues for t in d.turns]


def format_value(value: float, low: float, high: float) -> str:
    if math.isnan(value):
        return "-"
    digits = 1 if abs(value) >= 10 else 2 if abs(value) >= 1 else 3
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def table_rows(frame: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    """(columns, rows): figures as rows; the people, then each run with its difference to them."""
    sets = list(dict.fromkeys(frame["set"]))
    columns = ["figure"] + [c for label in sets for c in ([label] if label == PEOPLE else [label, "Δ"])]
    order = [spec.name for spec in SPECS] + ["distinguishability_auc"]
    rows = []
    for name in [n for n in order if n in set(frame["figure"])]:
        cells = [name]
        for label in sets:
            row = frame[(frame["set"] == label) & (frame["figure"] == name)]
            if row.empty:
                cells += ["-"] if label == PEOPLE else ["-", "-"]
                continue
            r = row.iloc[0]
            cells.append(format_value(r.value, r.ci_low, r.ci_high))
            if label != PEOPLE:
                cells.append("-" if math.isnan(r.difference) else f"{r.difference:+.3g}")
        rows.append(cells)
    return columns, rows


def render_table(frame: pd.DataFrame) -> Any:
    from rich.table import Table

    columns, rows = table_rows(frame)
    table = Table(title="Seeker turns: simulated vs people (95% CI over dialogues)")
    for position, column in enumerate(columns):
        table.add_column(column, justify="left" if position == 0 else "right")
    for row in rows:
        table.add_row(*row)
    return table


def plot_validity(frame: pd.DataFrame, path: Path) -> Path:
    """One panel per figure: each set's value with its CI, the people's as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in dict.fromkeys(frame["figure"])]
    sets = list(dict.fromkeys(frame["set"]))
    cols = 4
    rows = math.ceil(len(names) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.4 * rows), squeeze=False)
    for ax, name in zip(axes.flat, names):
        part = frame[frame["figure"] == name].set_index("set")
        for x, label in enumerate(sets):
            if label not in part.index or math.isnan(part.loc[label, "value"]):
                continue
            r = part.loc[label]
            color = "black" if label == PEOPLE else f"C{x}"
            below, above = max(r.value - r.ci_low, 0.0), max(r.ci_high - r.value, 0.0)
            ax.errorbar([x], [r.value], yerr=[[below], [above]], fmt="o", color=color)
        if PEOPLE in part.index and not math.isnan(part.loc[PEOPLE, "value"]):
            ax.axhline(part.loc[PEOPLE, "value"], color="black", lw=0.8, ls="--")
        ax.set_title(name, fontsize=9)
        ax.set_xticks(range(len(sets)), [s if len(s) <= 14 else s[:13] + "…" for s in sets], fontsize=7,
                      rotation=30, ha="right")
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path
