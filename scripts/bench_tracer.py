"""Benchmark: TRACER dataset generation speed (`crsim generate shopping`), offline.

Generates `--dialogues` single-pass (and optionally interactive) dialogues per domain
into a temporary directory through the CLI's own code path and records, per domain and
mode, wall-clock seconds per dialogue (world generation and planning included), the
Table-5 statistics and how many final products satisfy their preference, plus the
process's peak RSS. Writes JSON (default `outputs/bench/bench_tracer.json`).
Target (issue 18): >= 300 dialogues per domain in minutes.
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dialogues", type=int, default=300)
    parser.add_argument("--modes", nargs="+", default=["single_pass"], choices=["single_pass", "interactive"])
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_tracer.json"))
    args = parser.parse_args()

    from simulators.cli.generate import DOMAINS
    from simulators.cli.generate import main as generate

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for mode in args.modes:
            for domain in DOMAINS:
                out = Path(tmp) / mode / domain
                started = time.perf_counter()
                code = generate(["shopping", "--domain", domain, "--dialogues", str(args.dialogues), "--mode", mode,
                                 "--out", str(out), "--no-progress"])
                seconds = time.perf_counter() - started
                stats = json.loads((out / "stats.json").read_text())
                results.append({"mode": mode, "domain": domain, "exit": code, "seconds": seconds,
                                "seconds_per_dialogue": seconds / args.dialogues, **{
                                    k: stats[k] for k in ("dialogues", "avg_utterances", "avg_searches",
                                                          "avg_words_per_utterance", "final_products_satisfying")}})
    report = {"dialogues_per_domain": args.dialogues, "results": results,
              "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
