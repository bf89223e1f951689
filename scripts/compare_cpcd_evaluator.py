"""Check `crsim eval cpcd` against CPCD's public evaluator, cell by cell.

Runs the release's own `eval.py` (from a checkout you provide; crsim does not ship it)
on the predictions crsim wrote, with the same dialog and tracks files, and compares its
CSV with crsim's `scores.csv`. The evaluator needs `absl-py` and `tqdm`: give it an
interpreter that has them (a throw-away venv), not crsim's.

    crsim eval cpcd --dialogs D --tracks T --retriever bm25 --out runs/bm25 --predictions-out runs/bm25.jsonl
    python scripts/compare_cpcd_evaluator.py --evaluator ~/src/cpcd --python /tmp/venv/bin/python \\
        --run runs/bm25 --predictions runs/bm25.jsonl --dialogs D --tracks T

Prints and writes `<run>/evaluator_comparison.json`: whether every cell agrees, the
differing cells, and both macro hit@10 values. Exit status 1 if any cell differs.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def read_csv(path: Path) -> dict[str, list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return {row[0]: row[1:] for row in csv.reader(handle)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--evaluator", type=Path, required=True, help="directory holding the release's eval.py")
    parser.add_argument("--python", default=sys.executable, help="interpreter with absl-py and tqdm")
    parser.add_argument("--run", type=Path, required=True, help="crsim eval cpcd --out directory")
    parser.add_argument("--predictions", type=Path, required=True, help="its --predictions-out file")
    parser.add_argument("--dialogs", type=Path, required=True, help="the one dialog file that was scored")
    parser.add_argument("--tracks", type=Path, required=True, help="the tracks file that was given")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        theirs_path = Path(tmp) / "evaluator.csv"
        done = subprocess.run([args.python, "eval.py", "--model_output", str(args.predictions.resolve()),
                               "--gold_data", str(args.dialogs.resolve()), "--tracks", str(args.tracks.resolve()),
                               "--output", str(theirs_path)], cwd=args.evaluator, capture_output=True, text=True)
        if done.returncode:
            print(done.stderr[-3000:], file=sys.stderr)
            return 2
        theirs = read_csv(theirs_path)
        same_bytes = theirs_path.read_bytes() == (args.run / "scores.csv").read_bytes()
    ours = read_csv(args.run / "scores.csv")
    missing = [None] * len(theirs["metric"])
    differing = [{"metric": name, "column": theirs["metric"][i], "evaluator": value,
                  "crsim": ours.get(name, missing)[i]}
                 for name, values in theirs.items() for i, value in enumerate(values)
                 if ours.get(name, missing)[i] != value]
    result = {"identical_cells": not differing and set(ours) == set(theirs), "identical_bytes": same_bytes,
              "differing_cells": differing, "evaluator_macro_hit@10": theirs.get("hit@10", [None])[0],
              "crsim_macro_hit@10": ours.get("hit@10", [None])[0]}
    (args.run / "evaluator_comparison.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    return 0 if result["identical_cells"] else 1


if __name__ == "__main__":
    sys.exit(main())
