"""The LLM step report: every prompt step on real inputs from offline runs, with one model.

    python scripts/bench_llm_steps.py --llm qwen2.5-1.5b --per-step 20       # conf/llm/qwen2.5-1.5b.yaml
    python scripts/bench_llm_steps.py --llm openai model=gpt-4o-mini          # with a key
    python scripts/bench_llm_steps.py --llm openai base_url=http://127.0.0.1:8000/v1 model=m

Per step: inputs, valid on the first try, valid after the repair request, fell back to the
offline implementation, mean prompt / completion tokens, seconds per call, and the pass rate
of its semantic check where it has one (`simulators/offline/llm_steps.py`). Prints a table,
writes JSON (default outputs/bench/bench_llm_steps.json) and names the steps no offline run
exercised. Responses go through the backend's own cache, so a re-run is free.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def main() -> None:
    from simulators.cli.eval_judge import compose_llm
    from simulators.offline.llm_steps import SOURCES, step_report

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", nargs="+", required=True, metavar=("NAME", "KEY=VALUE"),
                        help="a conf/llm name and its settings, e.g. local model=qwen2.5-1.5b")
    parser.add_argument("--per-step", type=int, default=20)
    parser.add_argument("--steps", nargs="*", default=None, help="only these steps")
    parser.add_argument("--sources", nargs="*", default=list(SOURCES), choices=list(SOURCES))
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_llm_steps.json"))
    args = parser.parse_args()
    llm, _config = compose_llm(args.llm[0], args.llm[1:])  # its backend's own cache makes a re-run free
    started = time.perf_counter()

    def write(results: list, missing: list[str] | None = None) -> None:  # after every step: nothing finished is lost
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"llm": args.llm, "per_step": args.per_step, "rows": [r.row() for r in results],
                                        "missing": missing, "examples": {r.step: r.examples for r in results},
                                        "minutes": round((time.perf_counter() - started) / 60, 1)}, indent=1) + "\n")

    results, missing = step_report(llm, sources=args.sources, per_step=args.per_step, steps=args.steps,
                                   on_result=write)
    write(results, missing)
    rows = [r.row() for r in results]
    header = list(rows[0]) if rows else []
    print(" | ".join(header))
    for row in rows:
        print(" | ".join("-" if v is None else str(v) for v in row.values()))
    if missing:
        print(f"no offline input captured for: {', '.join(missing)}")
    print(f"wrote {args.out}")

if __name__ == "__main__":
    main()
