"""`crsim eval judge DIR --llm NAME [KEY=VALUE ...]`: an LLM judge's grades of real conversations
beside the people's labels (CRS Arena; `simulators.offline.judge`).

The judge's backend is a `conf/llm/NAME.yaml` option composed with the given overrides of its
keys, exactly as `llm@judge.llm=NAME judge.llm.KEY=VALUE` would compose it for `crsim run`
(`+KEY=VALUE` adds a key, as in Hydra). Offline there is no judge: the command says so in one
`crsim: error:` line and exits 2. Writes into `--out` (default `DIR/eval-judge`):
`correlations.csv` (one row per label, level, subset and statistic, the Kendall taus of the CRS
rankings, and the published evaluators' figures as reference rows), `scores.csv` and
`turn_scores.csv` (every grade beside every label), `ranking.csv`, `llm_calls.jsonl` and
`run.json`; prints the tables.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

from environments.errors import CrsimError
from simulators.cli.commands import command, user_error

NEEDS_LLM = ("a judge needs a language model; offline there is no judge (give one with --llm, e.g. "
             "--llm openai base_url=http://127.0.0.1:8000/v1 model=NAME)")

DESCRIPTION = """\
Grade the conversations of a CRS Arena import (crsim data import crsarena
crs_arena_dial_open.json crs_arena_dial_closed.json --eval-labels crs_arena_eval.json --out DIR)
with an LLM judge and measure how far its grades follow the people: Pearson and Spearman with
CRSArena-Eval's human labels per aspect (dialogue level; relevance and interestingness per
recommender turn), on all conversations and on the ReDial / OpenDialKG subsets, each with a
bootstrap 95% CI over conversations; the overall grade against the person's own satisfaction;
the CRSs ranked by mean grade against their ranking by people (satisfied share, mean human
overall label, Elo from the votes) as Kendall's tau-b. The published evaluators' overall
correlations (LLM-Direct, G-Eval, FACE) are printed beside them for reference."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crsim eval judge", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", type=Path, help="catalog directory of a CRS Arena import (dialogues.jsonl, votes.jsonl)")
    p.add_argument("--llm", nargs="+", metavar="SPEC", default=None,
                   help="the judge's language model: a conf/llm option, then KEY=VALUE overrides of its keys, "
                        "e.g. --llm openai base_url=http://127.0.0.1:8000/v1 model=qwen2.5-7b-instruct "
                        "(required: offline there is no judge)")
    p.add_argument("--judge", choices=("aspects", "pepper"), default="aspects",
                   help="aspects: one prompt per CRSArena-Eval aspect, on its scale (default); pepper: PEPPER's "
                        "rubric judge (proactiveness, coherence, personalization 1-5; their mean against every "
                        "dialogue-level label)")
    p.add_argument("--labels", nargs="+", metavar="LABEL", default=None,
                   help="the human labels to compare with (default: all the judge can grade), e.g. "
                        "dialogue_overall relevance satisfaction")
    p.add_argument("--split", default=None, help="only conversations of this setting (open, closed)")
    p.add_argument("--limit", type=int, default=None, help="grade only the first N conversations")
    p.add_argument("--sample", type=int, default=None,
                   help="grade N labelled conversations spread evenly over the CRSs, drawn by --seed "
                        "(the first N of an import are a few CRSs only)")
    p.add_argument("--out", type=Path, default=None, help="output directory (default: DIR/eval-judge)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and the sample (default: 0)")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default: 1000)")
    p.add_argument("--concurrency", type=int, default=8, help="conversations graded at once (default: 8)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def build_llm(spec: list[str] | None) -> tuple[Any, dict[str, Any]]:
    """The judge's chat model from `--llm NAME KEY=VALUE...`; offline there is none."""
    if not spec or spec[0] == "offline":
        raise CrsimError(NEEDS_LLM)
    llm, node = compose_llm(spec[0], spec[1:])
    if llm is None:
        raise CrsimError(NEEDS_LLM)
    return llm, node


def compose_llm(name: str, overrides: list[str]) -> tuple[Any, dict[str, Any]]:
    """The chat model `conf/llm/<name>.yaml` + KEY=VALUE overrides composes to (as `crsim run`
    would compose `llm@ROLE.llm=name`), and its resolved config."""
    bad = [o for o in overrides if "=" not in o]
    if bad:
        raise CrsimError(f"--llm {name}: expected KEY=VALUE overrides after the option name, got {' '.join(bad)}")
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

    from simulators.cli.precheck import explain
    from simulators.engine.hydra_setup import compose_config

    composed = [f"+llm@judge.llm={name}"]
    composed += [f"+judge.llm.{o[1:]}" if o.startswith("+") else f"judge.llm.{o}" for o in overrides]
    try:
        cfg = compose_config(composed)
    except Exception as exc:  # Hydra names the missing option or the key it could not override
        raise CrsimError(f"--llm {name}: {explain(exc)}") from None
    node = OmegaConf.to_container(cfg.judge.llm, resolve=True)
    try:
        llm = instantiate(OmegaConf.create(node), _convert_="all")
    except Exception as exc:  # Hydra wraps the factory's errors (a missing key is ours, a CrsimError)
        cause = user_error(exc)
        if cause is None:
            raise
        raise cause from None
    return llm, node  # type: ignore[return-value]


def _cell(value: float, low: float, high: float) -> str:
    if value is None or math.isnan(value):
        return "-"
    if math.isnan(low):
        return f"{value:.3f}"
    return f"{value:.3f} [{low:.2f}, {high:.2f}]"


def print_tables(frame: Any, result: Any, judge_name: str, console: Any) -> None:
    from rich.table import Table

    table = Table(title=f"Judge '{judge_name}' against people: correlation with human labels "
                        "(bootstrap 95% CI over conversations)")
    for column in ("level", "human label", "judge", "subset", "n", "Pearson", "Spearman"):
        table.add_column(column, justify="right" if column in ("n", "Pearson", "Spearman") else "left")
    ours = frame[frame["source"] == "judge"]
    correlations = ours[ours["statistic"].isin(["pearson", "spearman"])]
    for (level, human, judge, subset), group in correlations.groupby(["level", "human", "judge", "subset"],
                                                                      sort=False):
        cells = {row.statistic: _cell(row.value, row.ci_low, row.ci_high) for row in group.itertuples()}
        n = group["n"].iloc[0]
        table.add_row(level, human, judge, subset, "-" if n is None or math.isnan(n) else str(int(n)),
                      cells.get("pearson", "-"), cells.get("spearman", "-"))
    published = frame[frame["source"] != "judge"]
    if len(published):
        table.add_section()
        for (evaluator, subset), group in published.groupby(["evaluator", "subset"], sort=False):
            cells = {row.statistic: f"{row.value:.3f}" for row in group.itertuples()}
            table.add_row("dialogue", "dialogue_overall", f"published: {evaluator}", subset, "-",
                          cells.get("pearson", "-"), cells.get("spearman", "-"))
    console.print(table)
    console.print("published: figures reported by Joko et al. 2025 (FACE, arXiv:2506.00314) on CRSArena-Eval's "
                  "ReDial / OpenDialKG subsets, not computed here", highlight=False, markup=False)
    if result is None:
        return
    from simulators.offline.judge.report import PEOPLE_MEASURES

    ranks = Table(title=f"CRSs by mean judge {result.judge_score} and by people (rank in brackets)")
    columns = {"judge_mean": "judge mean", "satisfied_share": "satisfied share",
               "human_overall_mean": "human overall", "elo": "Elo (votes)"}
    for column in ("CRS", "conversations", *columns.values()):
        ranks.add_column(column, justify="left" if column == "CRS" else "right")
    ordered = result.frame.sort_values("judge_mean", ascending=False, na_position="last")
    positions = {c: result.frame[c].rank(ascending=False, method="min") for c in columns}
    for index, row in ordered.iterrows():
        cells = []
        for column in columns:
            value = row[column]
            digits = 0 if column == "elo" else 3
            cells.append("-" if math.isnan(value) else f"{value:.{digits}f} ({int(positions[column][index])})")
        ranks.add_row(row["crs"], str(int(row["dialogues"])), *cells)
    console.print(ranks)
    for measure, (tau, (low, high), n) in result.taus.items():
        console.print(f"Kendall tau-b, judge ranking vs {PEOPLE_MEASURES[measure]}: {_cell(tau, low, high)} "
                      f"over {n} CRSs", highlight=False, markup=False)


def score_frames(judged: list[Any], judge: Any) -> tuple[Any, Any]:
    """(one row per conversation, one row per graded recommender turn): grades beside labels."""
    import pandas as pd

    rows, turn_rows = [], []
    for j in judged:
        profile = j.episode.profile
        rows.append({"conversation_id": profile.get("conversation_id", j.episode.id), "crs": profile.get("crs"),
                     "subset": profile.get("crs_dataset"), "split": profile.get("split"),
                     "satisfied": profile.get("satisfied"),
                     **{f"human_{k}": v for k, v in (profile.get("labels") or {}).items()},
                     **{f"judge_{k}": v for k, v in j.dialogue.items()}})
        for index, grades in sorted(j.turns.items()):
            labels = j.episode.turns[index].metadata.get("labels") or {}
            turn_rows.append({"conversation_id": profile.get("conversation_id", j.episode.id), "turn": index,
                              **{f"human_{k}": v for k, v in labels.items()},
                              **{f"judge_{k}": v for k, v in grades.items()}})
    return pd.DataFrame(rows), pd.DataFrame(turn_rows)


def grade_counts(judged: list[Any]) -> tuple[int, int]:
    """(grades asked for, grades obtained)."""
    asked = obtained = 0
    for j in judged:
        for grades in [j.dialogue, *j.turns.values()]:
            for value in grades.values():
                asked += 1
                obtained += value is not None
    return asked, obtained


@command()
def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    from simulators.engine.hydra_setup import quiet_environment

    quiet_environment()
    for flag, value in (("--limit", args.limit), ("--sample", args.sample), ("--concurrency", args.concurrency),
                        ("--resamples", args.resamples)):
        if value is not None and value < 1:
            raise CrsimError(f"{flag} must be at least 1, got {value}")
    llm, llm_node = build_llm(args.llm)

    import pandas as pd
    from tqdm.auto import tqdm

    from simulators.cli.failures import warn
    from simulators.engine.logs import LLM_CALLS_FILE, JsonlAppender
    from simulators.offline.judge.grading import build_judge, grade_all, load_arena
    from simulators.offline.judge.report import correlation_frame, ranking, ranking_rows
    from simulators.results.table import table_console

    data = load_arena(args.dir, args.split, args.limit, args.sample, args.seed)
    judge, comparisons = build_judge(args.judge, llm, args.labels, data)
    out = args.out or args.dir / "eval-judge"
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    bar = tqdm(total=len(data.episodes), desc=f"judge {judge.name}", unit="conversation", disable=args.no_progress)
    try:
        judged = asyncio.run(grade_all(judge, data.episodes, args.concurrency, on_done=lambda _j: bar.update()))
    finally:
        bar.close()
    calls_path = out / LLM_CALLS_FILE
    calls_path.unlink(missing_ok=True)
    calls = JsonlAppender(calls_path)
    for j in judged:
        for call in j.calls:
            calls.append({"episode_id": j.episode.id, **call.model_dump(mode="json")})
    asked, obtained = grade_counts(judged)
    if asked and not obtained:
        first = next((c.error for j in judged for c in j.calls if c.error), "no answer")
        raise CrsimError(f"every one of the judge's {asked} grades failed: {first} (calls in {calls_path})")
    frame = correlation_frame(judged, comparisons, judge.name, resamples=args.resamples, seed=args.seed)
    result = ranking(judged, judge.overall, data.votes, resamples=args.resamples, seed=args.seed)
    if result is not None:
        frame = pd.concat([frame, pd.DataFrame(ranking_rows(result, judge.name))], ignore_index=True)
        result.frame.to_csv(out / "ranking.csv", index=False)
    frame["n"] = frame["n"].astype("Int64")
    frame.to_csv(out / "correlations.csv", index=False)
    scores, turn_scores = score_frames(judged, judge)
    scores.to_csv(out / "scores.csv", index=False)
    if len(turn_scores):
        turn_scores.to_csv(out / "turn_scores.csv", index=False)
    settings = {"dir": str(args.dir), "judge": judge.name, "labels": args.labels, "split": args.split,
                "limit": args.limit, "sample": args.sample, "conversations": len(judged), "grades_asked": asked,
                "grades_obtained": obtained, "seed": args.seed, "resamples": args.resamples,
                "llm": {k: v for k, v in llm_node.items() if "key" not in k.lower() or k == "api_key_env"},
                "seconds": round(time.perf_counter() - started, 3)}
    (out / "run.json").write_text(json.dumps(settings, indent=2, default=str) + "\n", encoding="utf-8")
    console = table_console()
    print_tables(frame, result, judge.name, console)
    console.print(f"{len(judged)} conversations, {obtained} of {asked} grades obtained; wrote "
                  f"{out / 'correlations.csv'}, scores.csv, ranking.csv, llm_calls.jsonl", highlight=False,
                  markup=False)
    if obtained < asked:
        warn(f"{asked - obtained} of the judge's {asked} grades could not be obtained and are left out "
             f"(calls in {calls_path})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
