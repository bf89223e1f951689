"""`crsim data answer-wordings FILE... --out FILE`: how people word what they want when asked.

Reads Schema-Guided Dialogue files (github.com/google-research-datasets/dstc8-schema-guided-dialogue,
`train/dialogues_*.json`; take the training split only) and writes the bank the target-biased
seeker says a wanted thing in outside grounded episodes (`seeker.answer_wordings`;
`environments.acts.answer_wordings` says which turns are taken and why).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from simulators.cli.commands import command


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crsim data answer-wordings", description=(
        "Take how people word a wanted thing when an assistant asks for it (\"I would like {value}.\") from "
        "Schema-Guided Dialogue files, and write them with their counts as JSON."))
    p.add_argument("files", type=Path, nargs="+", metavar="FILE", help="SGD dialogue files (train/dialogues_*.json)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE", help="the bank to write")
    p.add_argument("--min-count", type=int, default=2, metavar="N",
                   help="keep a wording said at least N times (default: 2)")
    return p


@command(interrupted="nothing was written")
def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    from environments.acts.answer_wordings import build_answer_wordings, save_answer_wordings

    bank = build_answer_wordings(args.files, min_count=args.min_count)
    save_answer_wordings(bank, args.out)
    source = bank.source
    print(f"took {source.kept} of {source.answers} answers to a request for a kind of thing, in "
          f"{len(source.files)} files; {len(bank.wordings)} wordings; wrote {args.out}")
    return 0
