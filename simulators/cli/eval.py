"""`crsim eval ...`: offline evaluations of logged or recorded dialogues.

`crsim eval cpcd` scores a retriever on CPCD's real conversations exactly as CPCD's
public evaluator does (`simulators.offline.cpcd.protocol`), so its numbers sit next
to the paper's Table 5. `crsim eval dialogues` scores recommenders on logged dialogues
(CRAG's protocol on ReDial; `simulators.cli.eval_dialogues`). `crsim eval judge` puts an LLM
judge's grades of CRS Arena's conversations beside the people's labels
(`simulators.cli.eval_judge`). Input problems print one `crsim: error: ...` line (file, line
and field where there is one) and exit with status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime
from pathlib import Path

from environments.errors import CrsimError
from simulators.cli.commands import command, run_subcommand, show_listing

CPCD_DESCRIPTION = """\
Score a retriever on CPCD conversations (cpcd_v1.dialogs.*.jsonl) the way CPCD's public
evaluator does: at each turn the goal playlist is the gold, the first three tracks liked
at every earlier turn are removed from predictions and gold, turns with no gold left are
skipped, and tracks sharing a cluster id count once. Prints one row per metric (macro,
its bootstrap 95% CI over conversations, micro, then the mean at each scored turn) and
writes scores.csv (the evaluator's layout), run.json and timings.json into --out."""


#: evaluation -> the module (or `module:function`) whose `main(argv)` runs it
SUBCOMMANDS = {
    "dialogues": "simulators.cli.eval_dialogues",
    "judge": "simulators.cli.eval_judge",
    "cpcd": "simulators.cli.eval:cpcd",
}


def parser() -> argparse.ArgumentParser:
    """`crsim eval`'s own parser: the listing of its evaluations (each parses its own arguments)."""
    p = argparse.ArgumentParser(prog="crsim eval", description="Offline evaluations of recorded dialogues.")
    commands = p.add_subparsers(title="evaluations", metavar="{cpcd,dialogues,judge}")
    commands.add_parser("dialogues", help="recommenders on logged dialogues (crsim eval dialogues --help)",
                        add_help=False)
    commands.add_parser("judge", help="an LLM judge against people's labels of CRS Arena conversations "
                                      "(crsim eval judge --help)", add_help=False)
    commands.add_parser("cpcd", help="retrieval on CPCD conversations, scored like CPCD's evaluator",
                        add_help=False)
    return p


def cpcd_parser() -> argparse.ArgumentParser:
    cpcd = argparse.ArgumentParser(prog="crsim eval cpcd", description=CPCD_DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    cpcd.add_argument("--dialogs", type=Path, nargs="+", required=True, metavar="FILE",
                      help="CPCD dialog files to score (e.g. cpcd_v1.dialogs.test.jsonl)")
    cpcd.add_argument("--tracks", type=Path, metavar="FILE",
                      help="cpcd_v1.tracks.jsonl: the candidates (default: the tracks the conversations embed)")
    cpcd.add_argument("--retriever", required=True, choices=["popularity", "bm25", "dense", "hybrid"],
                      help="popularity (needs --train), bm25, dense (sentence encoder) or hybrid (RRF of the two)")
    cpcd.add_argument("--train", type=Path, nargs="+", metavar="FILE",
                      help="dialog files whose likes popularity counts (never the scored ones)")
    cpcd.add_argument("--query", choices=["user", "user+items"], default=None,
                      help="user: the user's turns; user+items: plus the first three liked tracks of each earlier "
                           "turn (default: user for bm25, user+items for dense, each for its half of hybrid)")
    cpcd.add_argument("--k", default="1,5,10,20,100", help="cut-offs, comma-separated (default: 1,5,10,20,100)")
    cpcd.add_argument("--encoder", default=None,
                      help="sentence-transformers model directory for dense/hybrid (default: the packaged MiniLM)")
    cpcd.add_argument("--predictions-out", type=Path, metavar="PATH",
                      help="write the rankings in the evaluator's input format (JSONL, 100+ clusters per turn)")
    cpcd.add_argument("--out", type=Path, metavar="DIR",
                      help="output directory (default: outputs/eval/cpcd-<retriever>-<time>)")
    cpcd.add_argument("--no-progress", action="store_true", help="no progress bar (also off when not a TTY)")
    return cpcd


@command()
def main(argv: list[str]) -> int:
    return run_subcommand(argv, SUBCOMMANDS, lambda rest: show_listing(parser(), rest))


def cpcd(argv: list[str]) -> int:
    """`crsim eval cpcd ...`."""
    return run_cpcd(cpcd_parser().parse_args(argv))


def parse_ks(text: str) -> list[int]:
    try:
        ks = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise CrsimError(f"--k takes positive integers separated by commas, got '{text}'") from None
    if not ks or min(ks) < 1 or len(set(ks)) != len(ks):
        raise CrsimError(f"--k takes distinct positive integers separated by commas, got '{text}'")
    return ks


def run_cpcd(args: argparse.Namespace) -> int:
    from simulators.offline.cpcd.data import load_cpcd, load_training_likes
    from simulators.offline.cpcd.evaluate import (
        PREDICTION_DEPTH, evaluate, print_scores, report, write_outputs, write_predictions,
    )
    from simulators.offline.cpcd.retrievers import build_retriever

    ks = parse_ks(args.k)
    if args.retriever == "popularity" and not args.train:
        raise CrsimError("--retriever popularity needs --train FILE... (the conversations whose likes it counts)")
    progress = not args.no_progress and sys.stderr.isatty()
    timings: dict[str, float] = {}
    started = time.perf_counter()
    data = load_cpcd(args.dialogs, args.tracks, progress=progress)
    timings["load_seconds"] = time.perf_counter() - started
    likes, train_sources = None, []
    if args.retriever == "popularity":
        likes, train_sources = load_training_likes(args.train, args.tracks, data.conversations, progress=progress)
    encoder = None
    if args.encoder and args.retriever in ("dense", "hybrid"):
        from environments.search.encoders import get_encoder

        encoder = get_encoder(args.encoder)
    mark = time.perf_counter()
    retriever = build_retriever(args.retriever, data.catalog, query=args.query, likes=likes, encoder=encoder,
                                progress=progress)
    timings["index_seconds"] = time.perf_counter() - mark
    depth = max(max(ks), PREDICTION_DEPTH if args.predictions_out else 0)
    mark = time.perf_counter()
    evaluation = evaluate(data, retriever, ks, depth, progress)
    timings["rank_and_score_seconds"] = time.perf_counter() - mark
    settings = {
        "retriever": retriever.name, "retriever_settings": retriever.settings(), "k": ks,
        "dialogs": data.sources[:len(args.dialogs)], "tracks": data.sources[len(args.dialogs)] if args.tracks else None,
        "train": train_sources, "candidates": len(data.candidates),
        "conversations_in_files": len(data.conversations), "ranking_depth": depth,
    }
    result = report(evaluation.aggregate, settings)
    out = args.out or Path("outputs/eval") / f"cpcd-{args.retriever}-{datetime.now():%Y-%m-%d_%H-%M-%S}"
    timings["total_seconds"] = time.perf_counter() - started
    write_outputs(out, result, {name: round(value, 3) for name, value in timings.items()})
    if args.predictions_out:
        write_predictions(args.predictions_out, evaluation.predictions)
    print_scores(result)
    print(f"wrote {out}/scores.csv, run.json, timings.json"
          + (f" and {args.predictions_out}" if args.predictions_out else ""))
    return 0
