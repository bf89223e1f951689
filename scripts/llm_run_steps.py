"""Per-step LLM usage of one or more runs: valid first try / after repair / fell back,
tokens and model minutes (`simulators.results.step_usage`).

    python scripts/llm_run_steps.py outputs/runs/RUN [RUN ...] [--json OUT.json]

Several runs are pooled (e.g. the cells of a sweep); `--json` also writes the rows.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from environments.errors import CrsimError  # noqa: E402
from simulators.results.step_usage import markdown_table, read_calls, step_usage  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run directories (or llm_calls.jsonl files)")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args(argv)
    try:
        rows = step_usage(call for run in args.runs for call in read_calls(run))
    except CrsimError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(markdown_table(rows))
    if args.json:
        args.json.write_text(json.dumps([r.model_dump() for r in rows], indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
