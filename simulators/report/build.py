"""`crsim report`: every report file from a run or a sweep directory, in one call.

This module only orchestrates; each step's logic lives in its own module (tables,
paired, figures, cards, browser, html) so that each can be tested alone. The order
matters in one place: plots are written before the page because the page embeds them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console
from rich.markup import escape

from simulators.engine.logs import LogProblem
from simulators.report import browser, cards, figures, html, paired, tables
from simulators.results.runlog import LLM_CALLS_FILE, LoggedRun, load_runs, read_llm_calls
from simulators.results.sweep import render_comparison_table
from simulators.results.table import table_console, write_results_csv

REPORT_DIR = "report"


@dataclass
class Report:
    """What `build_report` produced: the files, the log problems and the notes it printed."""

    out: Path
    files: list[Path] = field(default_factory=list)
    problems: list[LogProblem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    results: pd.DataFrame | None = None
    paired: pd.DataFrame | None = None


def _llm_calls(runs: Sequence[LoggedRun]) -> tuple[list[dict[str, list[dict[str, Any]]]], list[LogProblem]]:
    """Each run's full LLM call records, plus the problems of their files (not fatal)."""
    calls, problems = [], []
    for run in runs:
        by_episode, bad = read_llm_calls(run.run_dir / LLM_CALLS_FILE)
        calls.append(by_episode)
        problems += bad
    return calls, problems


def _paired_note(runs: Sequence[LoggedRun]) -> str:
    """Why the page has no paired table (shown only when it has none)."""
    if len(runs) < 2:
        return "Nothing to compare: the report covers a single configuration."
    return "No shared scorable episodes between any two configurations (matched by episode id)."


def build_report(
    path: Path | str,
    out: Path | str | None = None,
    *,
    catalog: Path | str | None = None,
    metrics: Sequence[str] | None = None,
    n_resamples: int = 1000,
    console: Console | None = None,
) -> Report:
    """Write results.csv/.md, paired.csv/.md, the plots and index.html for `path`.

    `path` is a run directory, a sweep directory or an episode log file; the output goes
    to `out` (default `<path>/report/`, or next to a log file). Prints the results table,
    each skipped log line ("skipped <file>, line N: ...") and the files written. `metrics`
    names the metrics to report; by default each run's configured metrics.
    """
    console = console or table_console()
    source = Path(path).expanduser()
    runs = load_runs(source)
    report = Report(Path(out) if out else _default_out(source))
    calls, call_problems = _llm_calls(runs)
    report.problems = [p for run in runs for p in run.problems] + call_problems

    frames = tables.config_frames(runs, metrics, n_resamples=n_resamples)
    metrics = tables.metric_order(frames)
    report.results = tables.combined_frame(frames)
    report.notes += tables.excluded_notes(frames)
    if not tables.has_scores(report.results):
        report.notes.append("no episode has evaluation records (e.g. imported dialogues): the results are empty")
    report.paired = paired.paired_frame(runs, metrics, n_resamples=n_resamples)
    card_set = cards.collect_cards(runs, catalog)
    report.notes += card_set.notes
    report.notes += _remote_notes(runs)

    _write_tables(report, metrics)
    report.files += figures.write_plots(frames, report.out, metrics)  # before the page: it embeds them
    episodes = browser.episode_records(runs, calls, card_set.run_catalog)
    page = _page_content(report, source, runs, metrics, episodes, card_set.cards)
    report.files.append(html.write_page(page, report.out / "index.html"))
    _print(console, report, metrics)
    return report


def _remote_notes(runs: Sequence[LoggedRun]) -> list[str]:
    """Per run with a remote agent (`recommender=http`): its latency percentiles and the
    replies that could not be scored (`simulators/results/remote.py`)."""
    from simulators.results.remote import remote_summary

    found = ((run.label, remote_summary(run.episodes)) for run in runs)
    return [f"{label}: {summary.line()}" for label, summary in found if summary is not None]


def _page_content(report: Report, source: Path, runs: Sequence[LoggedRun], metrics: Sequence[str],
                  episodes: list[dict[str, Any]], card_tables: dict[str, dict[str, Any]]) -> html.PageContent:
    """What the page shows, from the frames already computed and the plots already written."""
    assert report.results is not None and report.paired is not None
    scored = tables.has_scores(report.results)
    paired_df = report.paired
    show_paired = not paired_df.empty and int(paired_df["n_pairs"].max()) > 0
    plots = [(m, report.out / figures.plot_file_name(m)) for m in metrics]
    validity_columns, validity_rows, validity_plot = _validity(source)
    return html.PageContent(
        title=f"crsim report — {source.name or source}",
        source=str(source),
        metrics=list(metrics),
        results_rows=tables.wide_rows(report.results, metrics) if scored else [],
        has_scores=scored,
        paired_rows=paired.paired_wide_rows(paired_df, metrics) if show_paired else [],
        paired_note=_paired_note(runs),
        plots=[(m, path) for m, path in plots if path in report.files],
        episodes=episodes,
        cards=card_tables,
        n_configs=len(runs),
        notes=report.notes,
        problems=[str(p) for p in report.problems],
        validity_columns=validity_columns,
        validity_rows=validity_rows,
        validity_plot=validity_plot,
    )


def _validity(source: Path) -> tuple[list[str], list[list[str]], Path | None]:
    """`crsim validate`'s table and plot, when it wrote them into the reported directory."""
    directory = source.parent if source.is_file() else source
    if not (directory / VALIDITY_CSV).is_file():
        return [], [], None
    from simulators.validity.compare import table_rows

    columns, rows = table_rows(pd.read_csv(directory / VALIDITY_CSV))
    plot = directory / VALIDITY_PNG
    return columns, rows, plot if plot.is_file() else None


VALIDITY_CSV, VALIDITY_PNG = "validity.csv", "validity.png"


def _default_out(source: Path) -> Path:
    return (source.parent if source.is_file() else source) / REPORT_DIR


def _write_tables(report: Report, metrics: Sequence[str]) -> None:
    assert report.results is not None and report.paired is not None
    out = report.out
    report.files.append(write_results_csv(report.results, out / "results.csv"))
    report.files.append(tables.write_text(out / "results.md",
                                          tables.results_markdown(report.results, metrics, report.notes)))
    report.files.append(write_results_csv(report.paired, out / "paired.csv"))
    report.files.append(tables.write_text(out / "paired.md", paired.paired_markdown(report.paired, metrics)))


def _print(console: Console, report: Report, metrics: Sequence[str]) -> None:
    """Problems and notes first (they qualify the numbers), then the table, then the files."""
    for problem in report.problems:
        console.print(f"skipped {escape(str(problem))}", highlight=False)
    for note in report.notes:
        console.print(f"note: {escape(note)}", highlight=False)
    if report.results is not None and tables.has_scores(report.results):
        console.print(render_comparison_table(report.results, title="Results (mean [95% CI])", metrics=metrics))
    console.print("wrote:", highlight=False)
    for path in report.files:
        console.print(f"  {escape(str(path))}", highlight=False)
