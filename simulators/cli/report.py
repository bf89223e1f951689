"""`crsim report DIR`: the report of a run or a sweep (see `simulators.report`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from environments.errors import CrsimError
from simulators.cli.commands import command

DESCRIPTION = """\
Report on a run or a whole sweep: results.csv / results.md (bootstrap 95% CI per metric,
turn and configuration), paired.csv / paired.md (paired-bootstrap differences between
configurations on the episodes they share), metric-vs-turn PNGs and index.html (tables,
plots and an episode browser; opens from disk, no server). Unreadable log lines are
reported with file and line and skipped."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crsim report", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", type=Path, help="a run directory, a sweep directory or an episodes.jsonl file")
    p.add_argument("--out", type=Path, default=None, help="output directory (default: DIR/report)")
    p.add_argument("--catalog", type=Path, default=None,
                   help="catalog directory for item cards (default: the environment in each run's config.yaml)")
    p.add_argument("--metrics", nargs="+", default=None, metavar="METRIC",
                   help="metrics to report (default: each run's configured metrics; any hits@K / recall@K works)")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default: 1000)")
    return p


@command()
def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    from simulators.report import build_report

    if args.resamples < 1:
        raise CrsimError(f"--resamples must be at least 1, got {args.resamples}")
    build_report(args.dir, args.out, catalog=args.catalog, metrics=args.metrics, n_resamples=args.resamples)
    return 0
