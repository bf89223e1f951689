"""`crsim eval dialogues DIR --recommender NAME...`: recommenders on logged dialogues (CRAG §4.2).

The evaluation itself is `simulators.offline.dialogues`; this module builds each named
recommender from `conf/recommender/NAME.yaml` (plus `--set` overrides, exactly as
`crsim run recommender=NAME ...` would compose it) on the evaluation's catalog view, runs
it, writes `OUT/NAME/` (episodes.jsonl, llm_calls.jsonl, results.csv, config.yaml, so
`crsim report OUT` works) and prints Recall@K and NDCG@K with bootstrap 95% CIs. A turn the
recommender fails on is logged with its traceback and left out of the numbers (one warning
line says how many); a recommender that fails on every turn measured nothing, and the
command ends with one `crsim: error:` line and status 2 once every recommender has run.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from environments.errors import CrsimError
from simulators.cli.commands import command, user_error
from simulators.cli.failures import Failures, failures_of, warn

DESCRIPTION = """\
Evaluate recommenders offline on the logged dialogues of an imported dataset (e.g.
`crsim data import redial train_data.jsonl test_data.jsonl --out DIR`): for each
recommender turn of a test dialogue that names new items, the recommender reads the
dialogue before it and ranks the candidates; Recall@K and NDCG@K (K = 5, 10, 15, 20) of
the items that turn names, with bootstrap 95% CIs. Collaborative filtering is fitted on
the training dialogues only (one pseudo-user per dialogue)."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crsim eval dialogues", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", type=Path, help="catalog directory of an import with dialogues.jsonl")
    p.add_argument("--recommender", nargs="+", required=True, metavar="NAME",
                   help="conf/recommender options to evaluate, e.g. ease crag zero_shot")
    p.add_argument("--set", nargs="+", default=[], metavar="OVERRIDE", dest="overrides",
                   help="Hydra overrides for every recommender, e.g. recommender.k=10 llm@recommender.llm=openai")
    p.add_argument("--train-split", nargs="+", default=["train_data"], metavar="SPLIT",
                   help="dialogue splits (profile.split) the recommenders may learn from (default: train_data)")
    p.add_argument("--test-split", default="test_data", help="the split evaluated (default: test_data)")
    p.add_argument("--candidates", choices=("train", "catalog"), default="train",
                   help="rank the items recommenders mentioned in training dialogues (default) or every item")
    p.add_argument("--limit", type=int, default=None, help="evaluate only the first N test dialogues")
    p.add_argument("--out", type=Path, default=None, help="output directory (default: DIR/eval-dialogues)")
    p.add_argument("--seed", type=int, default=0, help="seed for tie-breaking and the bootstrap (default: 0)")
    p.add_argument("--concurrency", type=int, default=4, help="dialogues in flight (LLM backends; default: 4)")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default: 1000)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def build_recommender(name: str, overrides: list[str], catalog: Any) -> tuple[Any, dict[str, Any]]:
    """The recommender `conf/recommender/<name>.yaml` composes to, built on `catalog`."""
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

    from simulators.replay.agents_config import compose_agent_config

    node = compose_agent_config("recommender", name, {}, overrides)
    if "ask" in node:
        node["ask"] = False  # questions are not evaluated here; with an LLM they would cost a call each
    try:
        agent = instantiate(OmegaConf.create(node), catalog=catalog, _convert_="partial")
    except Exception as exc:  # Hydra wraps the factory's errors; ours (bad settings, no data) surface as is
        cause = user_error(exc)
        if cause is None:
            raise
        raise cause from None
    return agent, node


def run_one(name: str, args: argparse.Namespace, setup: Any) -> tuple[Any, Failures]:
    """Evaluate one recommender; returns its results frame (also written under OUT/name/) and
    how many of its turns failed."""
    import yaml
    from tqdm.auto import tqdm

    from simulators.engine.logs import EPISODES_FILE, LLM_CALLS_FILE, JsonlAppender
    from simulators.offline.dialogues import CUTOFFS, dialogue_metrics, evaluate, metric_specs
    from simulators.results.table import results_frame, write_results_csv

    agent, node = build_recommender(name, args.overrides, setup.catalog)
    out = (args.out or args.dir / "eval-dialogues") / name
    out.mkdir(parents=True, exist_ok=True)
    for stale in (EPISODES_FILE, LLM_CALLS_FILE):
        (out / stale).unlink(missing_ok=True)
    config = {"recommender": node, "environment": {"metrics": metric_specs(CUTOFFS)}, "max_turns": 1,
              "seed": args.seed, "dialogue_eval": {"dir": str(args.dir), "train_splits": args.train_split,
                                                    "test_split": args.test_split, "candidates": args.candidates,
                                                    "limit": args.limit}}
    config_hash = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]
    (out / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    (out / "config_hash.txt").write_text(config_hash + "\n", encoding="utf-8")
    bar = tqdm(total=len(setup.turns), desc=name, unit="turn", disable=args.no_progress)
    calls: dict[str, list[Any]] = {}

    def finished(episode: Any, records: list[Any]) -> None:
        calls[episode.id] = records
        bar.update()

    started = time.perf_counter()
    try:
        episodes = asyncio.run(evaluate(agent, setup, config_hash=config_hash, seed=args.seed,
                                        concurrency=args.concurrency, on_episode=finished))
    finally:
        bar.close()
    # written in turn order once all are done, so the same data and seed give the same files
    episodes_log, calls_log = JsonlAppender(out / EPISODES_FILE), JsonlAppender(out / LLM_CALLS_FILE)
    for episode in episodes:
        for call in calls.get(episode.id, []):
            calls_log.append({"episode_id": episode.id, **call.model_dump(mode="json")})
        episodes_log.append(episode)
    frame = results_frame(episodes, 1, dialogue_metrics(CUTOFFS), seed=args.seed, n_resamples=args.resamples)
    failures = failures_of(episodes, out / EPISODES_FILE)
    frame.attrs.update(seconds=time.perf_counter() - started, errors=failures.failed)
    write_results_csv(frame, out / "results.csv")
    return frame, failures


def print_summary(frames: dict[str, Any], stats: dict[str, Any]) -> None:
    from rich.table import Table

    from simulators.results.table import format_cell, table_console

    console = table_console()
    console.print(", ".join(f"{key}: {value:.3f}" if isinstance(value, float) else f"{key}: {value}"
                            for key, value in stats.items()))
    metrics = list(dict.fromkeys(next(iter(frames.values()))["metric"]))
    table = Table(title="Recall / NDCG at K on logged dialogues (mean [95% CI] over evaluated turns)")
    for column in ["recommender", *metrics, "n", "errors", "seconds"]:
        table.add_column(column, justify="left" if column == "recommender" else "right")
    for name, frame in frames.items():
        cells = {row.metric: format_cell(row.metric, row.mean, row.ci_low, row.ci_high)
                 for row in frame.itertuples()}
        table.add_row(name, *(cells[m] for m in metrics), str(int(frame["n"].max())),
                      str(frame.attrs.get("errors", 0)), f"{frame.attrs.get('seconds', 0.0):.0f}")
    console.print(table)


@command()
def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    from simulators.engine.hydra_setup import quiet_environment
    from simulators.offline.dialogues import prepare

    quiet_environment()
    for flag, value, least in (("--limit", args.limit, 1), ("--concurrency", args.concurrency, 1),
                               ("--resamples", args.resamples, 1)):
        if value is not None and value < least:
            raise CrsimError(f"{flag} must be at least {least}, got {value}")
    setup = prepare(args.dir, train_splits=args.train_split, test_split=args.test_split,
                    candidates=args.candidates, limit=args.limit)
    if not setup.turns:
        raise CrsimError(f"{args.dir}: the test dialogues have no recommender turn that names a new item")
    frames, failures = {}, {}
    for name in dict.fromkeys(args.recommender):
        frames[name], failures[name] = run_one(name, args, setup)
    print_summary(frames, setup.stats())
    for name, failed in failures.items():
        if failed.failed and not failed.every:
            warn(failed.warning(f"recommender {name}", "evaluated turn"))
    useless = [failed.error(f"recommender {name}", "evaluated turn") for name, failed in failures.items() if failed.every]
    if useless:
        raise CrsimError("; ".join(useless))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
