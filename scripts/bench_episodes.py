"""Benchmark: world generation, index builds, and offline episodes per second.

Measures, on the default 3,000-item restaurant world:
- world generation time (fresh, into a temporary cache),
- BM25 and dense index build times (fresh),
- episodes/second for the offline BM25 recommender x target-biased seeker, 5 turns,
  after one warm-up pass (steady state: model loaded, indexes built, embedding memo warm
  for the phrase-bank sentences), plus the split of time per turn between the agents,
- peak RSS of the process.
Writes JSON (default `outputs/bench/bench_episodes.json`). Target: >= 20 episodes/s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(fn):
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


async def run_batch(setup, recommender, seeker, episodes: int, run_dir: Path, seed: int):
    from simulators.engine.runner import run_episodes

    return await run_episodes(setup, {"recommender": recommender, "seeker": seeker}, episodes=episodes, max_turns=5, seed=seed,
                              concurrency=1, run_dir=run_dir, config_hash="bench", progress=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--embedding-model", default="minilm-int8",
                        help="the seeker's and the dense index's encoder (default: the config's default; "
                             "'none' for the full MiniLM)")
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_episodes.json"))
    args = parser.parse_args()
    embedding_model = None if args.embedding_model.lower() in ("none", "null") else args.embedding_model

    from agents.recommenders import bm25 as bm25_recommender
    from agents.seekers import target_biased
    from environments.search import BM25Index, DenseIndex, get_encoder
    from environments.single_target import SingleTargetSetup
    from environments.worlds import generate_world, load_world

    with tempfile.TemporaryDirectory() as scratch:
        cache = Path(scratch)
        _, generate_s = timed(lambda: generate_world("restaurant"))
        catalog, cached_world_s = timed(lambda: load_world("restaurant", cache_dir=cache))
        _, reload_world_s = timed(lambda: load_world("restaurant", cache_dir=cache))
        setup = SingleTargetSetup(catalog)
        view = setup.recommender_catalog
        _, bm25_build_s = timed(lambda: BM25Index.build(view, cache_dir=cache))
        encoder = get_encoder(embedding_model)
        _, model_load_s = timed(lambda: encoder.encode(["warm up"]))  # loads lazily on first use
        _, dense_build_s = timed(lambda: DenseIndex.build(view, encoder, cache_dir=cache))

        recommender = bm25_recommender.build(view, cache_dir=str(cache), embedding_model=embedding_model)
        seeker = target_biased.build(embedding_model=embedding_model)
        _, warmup_s = timed(lambda: asyncio.run(run_batch(setup, recommender, seeker, args.warmup, cache / "w", 1)))
        summary, run_s = timed(lambda: asyncio.run(run_batch(setup, recommender, seeker, args.episodes,
                                                             cache / "r", 2)))
        timings = [json.loads(line) for line in (cache / "r" / "timings.jsonl").read_text().splitlines()]

    per_turn = {role: statistics.mean(s for t in timings for s in t["seconds"].get(role, []))
                for role in ("recommender", "seeker")}
    result = {
        "catalog": {"items": len(catalog.items), "reviews": len(catalog.reviews), "users": len(catalog.users)},
        "world_generation_s": round(generate_s, 3),
        "world_generate_and_cache_s": round(cached_world_s, 3),
        "world_load_from_cache_s": round(reload_world_s, 3),
        "bm25_build_s": round(bm25_build_s, 3),
        "embedding_model_load_s": round(model_load_s, 3),
        "dense_build_s": round(dense_build_s, 3),
        "pairing": "bm25 x target_biased (offline), 5 turns, concurrency 1",
        "embedding_model": args.embedding_model,
        "warmup_episodes": args.warmup, "warmup_s": round(warmup_s, 3),
        "episodes": args.episodes, "errors": summary.errors,
        "episodes_per_s": round(args.episodes / run_s, 2),
        "mean_seconds_per_turn": {k: round(v * 1000, 3) for k, v in per_turn.items()} | {"unit": "ms"},
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "target_episodes_per_s": 20,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
