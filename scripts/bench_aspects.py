"""Benchmark: mining review aspects once per catalog, and the per-turn question it feeds.

Mines the default restaurant world (3,000 items, ~45k reviews) and a larger one
(default 7,000 items, ~100k reviews, the size of a real 5-core category) in fresh
processes, each reporting wall time without and with grouping by meaning (MiniLM,
model loading timed apart), the aspects found and its peak RSS. Then times the offline
clarification step per turn (50 candidates, 30 mined aspects, attributes too), which
is all a recommender does with the vocabulary once it is cached.

Writes JSON (default `outputs/bench/bench_aspects.json`).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path


def child(n_items: int) -> None:
    """Mine one world twice (no encoder, then MiniLM) and print the figures as JSON."""
    from environments.search.aspects import mine_aspects
    from environments.search.encoders import get_encoder
    from environments.worlds import load_world

    catalog = load_world("restaurant", n_items=n_items, n_users=max(1200, n_items * 2 // 5))  # 3000: the default
    started = time.perf_counter()
    plain = mine_aspects(catalog, persist=False)
    plain_seconds = time.perf_counter() - started
    encoder = get_encoder()
    started = time.perf_counter()
    encoder.encode(["warm up"])
    load_seconds = time.perf_counter() - started
    started = time.perf_counter()
    grouped = mine_aspects(catalog, encoder=encoder, persist=False)
    grouped_seconds = time.perf_counter() - started
    print(json.dumps({
        "items": len(catalog.items), "reviews": len(catalog.reviews),
        "seconds_without_encoder": round(plain_seconds, 2), "seconds_with_encoder": round(grouped_seconds, 2),
        "encoder_load_seconds": round(load_seconds, 2),
        "reviews_per_second": round(len(catalog.reviews) / grouped_seconds),
        "aspects": len(grouped.aspects), "aspects_without_encoder": len(plain.aspects),
        "top_aspects": [a.name for a in grouped.aspects[:10]],
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }))


def per_turn(repeats: int) -> dict[str, float]:
    """Microseconds per offline clarification question over the default world's top 50."""
    from agents.steps.recommender.clarify import ClarifyInput, ClarifyStep
    from environments.search.aspects import mine_aspects
    from environments.search.encoders import get_encoder
    from environments.worlds import load_world

    catalog = load_world("restaurant")
    vocabulary = mine_aspects(catalog, encoder=get_encoder())
    step = ClarifyStep()
    candidates = catalog.items[:50]
    inputs = ClarifyInput((), candidates, [], catalog.item_noun, 1, tuple(catalog.aspects), vocabulary)
    step.offline(inputs)  # warm the attribute-value memo, as a run's first turn does
    started = time.perf_counter()
    for turn in range(repeats):
        step.offline(ClarifyInput((), candidates, [], catalog.item_noun, turn, tuple(catalog.aspects), vocabulary))
    return {"clarify_us_per_turn": round((time.perf_counter() - started) / repeats * 1e6, 1),
            "mined_aspects": len(vocabulary.aspects), "candidates": len(candidates)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_aspects.json"))
    parser.add_argument("--sizes", type=int, nargs="+", default=[3000, 7000], help="world sizes (items)")
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    results = {"machine": {"python": platform.python_version(), "cpus": __import__("os").cpu_count()},
               "mining": [], "per_turn": None}
    for size in args.sizes:
        out = subprocess.run([sys.executable, __file__, "--child", str(size)], capture_output=True, text=True,
                             check=True)
        results["mining"].append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(json.dumps(results["mining"][-1]))
    results["per_turn"] = per_turn(args.repeats)
    print(json.dumps(results["per_turn"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
