"""Run one retriever over CPCD conversations and write what the public evaluator would.

`evaluate` ranks every scored turn (turns whose gold is used up are never ranked, as
the evaluator skips them) and scores it with `cpcd_protocol`. The written files:

- `scores.csv`: the evaluator's layout (`metric, macro, micro, Turn 0 … Turn 9`; rows
  `hit@1`, `counts`, `hit@5`, … `recall@100`; four decimals; fractions), so the two can
  be diffed cell by cell;
- `run.json`: the settings (files with their sha256, retriever, query mode, k) and
  every metric's macro value with a bootstrap 95% CI over conversations, and micro;
- `timings.json`: seconds per stage (kept apart so `run.json` is byte-identical
  between runs of the same settings);
- `--predictions-out`: one JSON line per scored turn, `{"docid": "<dialog_id>:<turn>",
  "neighbor": [{"docid": "<track_id>"}, ...]}`, the evaluator's input format. Each
  ranking holds one track per cluster and no seed cluster, so after the evaluator's
  own deduplication and seed removal it still holds `depth` (≥ the largest k) tracks.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, Field

from environments.errors import CrsimError
from simulators.offline.cpcd.data import CpcdData
from simulators.offline.cpcd.protocol import MAX_TURNS, Aggregate, metric_names, score_ranking, turn_tasks
from simulators.offline.cpcd.queries import TurnContext
from simulators.offline.cpcd.retrievers import ClusterRanker, Retriever
from simulators.results.stats import bootstrap_ci

PREDICTION_DEPTH = 100  # the evaluator's largest default k: every written turn must reach it


class MetricRow(BaseModel):
    name: str = Field(description="'hit@10', 'mrr@10', ... as the evaluator names them.")
    macro: float = Field(description="Mean over conversations of the mean over their scored turns.")
    macro_ci: tuple[float, float] = Field(description="Percentile-bootstrap 95% CI of macro, over conversations.")
    micro: float = Field(description="Mean over all scored turns.")
    turns: list[float | None] = Field(description="Mean at the i-th scored turn (None: no conversation reaches it).")


class CpcdEvalReport(BaseModel):
    """What `run.json` holds: the run's settings and its scores."""

    protocol: str = "cpcd-eval (seed = first 3 liked per earlier turn; clusters once; macro and micro)"
    settings: dict[str, Any]
    conversations: int = Field(description="Conversations with at least one scored turn.")
    scored_turns: int
    turn_counts: list[int] = Field(description="Conversations reaching the i-th scored turn.")
    metrics: list[MetricRow]


@dataclass
class Evaluation:
    aggregate: Aggregate
    predictions: list[tuple[str, int, list[str]]] = field(default_factory=list)  # (dialog id, turn, track ids)


def evaluate(data: CpcdData, retriever: Retriever, ks: Sequence[int], depth: int,
             progress: bool = False) -> Evaluation:
    """Rank and score every scored turn of every conversation (one progress step per conversation).

    No turn is skipped on an error: the figures are compared cell by cell with the public
    evaluator's over the same turns, so the first failure ends the evaluation (a retriever's
    exception is a bug in crsim's own code and keeps its traceback) and nothing is written."""
    from tqdm.auto import tqdm

    ranker = ClusterRanker(data.catalog)
    evaluation = Evaluation(Aggregate(tuple(ks)))
    for conversation in tqdm(data.conversations, desc=f"cpcd {retriever.name}", unit="conv", disable=not progress):
        tasks = turn_tasks([t.liked for t in conversation.turns], conversation.goal, ranker.cluster_of)
        contexts = [TurnContext.at(conversation.dialog_id, conversation.turns, task.turn, ranker.excluded(task.seeds))
                    for task in tasks]
        values = []
        for task, context, scores in zip(tasks, contexts, retriever.score(contexts)):
            ranking = ranker.top(scores, context.excluded, depth)
            if len(ranking) < depth:
                raise CrsimError(f"dialog '{conversation.dialog_id}', turn {task.turn}: only {len(ranking)} track "
                                 f"clusters left to rank, fewer than {depth} (lower --k, or give --tracks)")
            values.append(score_ranking(ranking, task, ranker.cluster_of, ks))
            evaluation.predictions.append((conversation.dialog_id, task.turn, ranking))
        evaluation.aggregate.add(values)
    if not evaluation.aggregate.conversations:
        raise CrsimError("no turn to score: every conversation's goal playlist is empty")
    return evaluation


def report(aggregate: Aggregate, settings: dict[str, Any], seed: int = 0) -> CpcdEvalReport:
    rows = []
    for name in metric_names(aggregate.ks):
        macro, micro, turns = aggregate.row(name)
        _, low, high = bootstrap_ci(aggregate.macro_values(name), seed=seed)
        rows.append(MetricRow(name=name, macro=macro, macro_ci=(low, high), micro=micro,
                              turns=[None if math.isnan(v) else v for v in turns]))
    conversations, turns_scored, turn_counts = aggregate.counts()
    return CpcdEvalReport(settings=settings, conversations=conversations, scored_turns=turns_scored,
                          turn_counts=turn_counts, metrics=rows)


def scores_csv(result: CpcdEvalReport) -> str:
    """The evaluator's CSV: its row order (`counts` after the first metric), 4 decimals, 0 for empty turns."""
    def cells(values: Sequence[float | None]) -> list[str]:
        return [f"{(v or 0.0):0.4f}" for v in values]

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")  # csv's default, as the evaluator writes it
    writer.writerow(["metric", "macro", "micro", *[f"Turn {i}" for i in range(MAX_TURNS)]])
    counts = [result.conversations, result.scored_turns, *result.turn_counts]
    for position, row in enumerate(result.metrics):
        writer.writerow([row.name, *cells([row.macro, row.micro, *row.turns])])
        if position == 0:
            writer.writerow(["counts", *cells(counts)])
    return buffer.getvalue()


def write_outputs(out: Path, result: CpcdEvalReport, timings: dict[str, float]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "scores.csv").write_text(scores_csv(result), encoding="utf-8", newline="")
    (out / "run.json").write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
    (out / "timings.json").write_text(orjson.dumps(timings, option=orjson.OPT_INDENT_2).decode() + "\n",
                                      encoding="utf-8")


def write_predictions(path: Path, predictions: Sequence[tuple[str, int, list[str]]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        for dialog_id, turn, ranking in predictions:
            handle.write(orjson.dumps({"docid": f"{dialog_id}:{turn}", "neighbor": [{"docid": t} for t in ranking]},
                                      option=orjson.OPT_APPEND_NEWLINE))


def print_scores(result: CpcdEvalReport) -> None:
    """The table: one row per metric, macro with its CI, micro, then the scored turns reached."""
    from rich.table import Table

    from simulators.results.table import table_console

    shown = [i for i, count in enumerate(result.turn_counts) if count]
    title = (f"CPCD, {result.settings.get('retriever')}: {result.conversations} conversations, "
             f"{result.scored_turns} scored turns (fractions; macro CI = bootstrap 95% over conversations)")
    table = Table(title=title)
    for column in ("metric", "macro", "95% CI", "micro", *[f"T{i}" for i in shown]):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for row in result.metrics:
        table.add_row(row.name, f"{row.macro:.4f}", f"[{row.macro_ci[0]:.3f}, {row.macro_ci[1]:.3f}]",
                      f"{row.micro:.4f}", *[f"{row.turns[i]:.4f}" for i in shown])
    table.add_row("n", str(result.conversations), "", str(result.scored_turns),
                  *[str(result.turn_counts[i]) for i in shown])
    table_console().print(table)
