"""Part 2 of `scripts/bench_llm.py`: episodes/s of a small sweep whose language-model calls
are all cache hits, against the same episodes offline, and where a cache hit's time goes
(the script's docstring says what is run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from .clients import compare, pct
from .server import MODEL, ServerProcess

REPO = Path(__file__).resolve().parents[2]


def make_agents(llm: Any, catalog: Any, encoder: Any) -> tuple[Any, Any, Any]:
    """Popularity recommender x target-biased seeker with every language step on `llm`."""
    from agents.base import GraphAgent
    from agents.recommenders.popularity import build as build_popularity
    from agents.seekers.target_biased import SeekerContext, build_graph
    from agents.steps.seeker.answer import SeekerAnswerStep
    from agents.steps.seeker.summarize import SummarizeReviewsStep
    from environments.models import Role
    from environments.single_target import SingleTargetSetup

    setup = SingleTargetSetup(catalog)
    recommender = build_popularity(setup.recommender_catalog, llm=llm)
    steps = SeekerContext(SeekerAnswerStep(llm, "seeker", encoder=encoder), SummarizeReviewsStep(llm, "seeker"), 3)
    seeker = GraphAgent(Role.seeker, build_graph(), steps, memory_keys=("facts", "stated"))
    return setup, recommender, seeker


def load_crsim_testing() -> Any:
    """tests/crsim_testing.py by file path: putting tests/ on sys.path would let the
    namespace packages tests/agents and tests/environments shadow the real ones."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("crsim_testing", REPO / "tests" / "crsim_testing.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def call_stats(run_dir: Path) -> dict[str, int]:
    path = run_dir / "llm_calls.jsonl"
    calls = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return {"llm_calls": len(calls), "ok": sum(c["ok"] for c in calls),
            "cache_hits": sum(bool(c.get("cache_hit")) for c in calls),
            "repaired": sum(bool(c.get("repaired")) for c in calls)}


def comparable(summary: Any) -> list[Any]:
    """What must match between two runs of the same episodes (not timings)."""
    return [(e.id, e.termination, [r.best_rank for r in e.evaluations]) for e in summary.episodes]


async def bench_cached_sweep(server: ServerProcess, args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    testing = load_crsim_testing()
    HashEncoder, make_tiny_catalog = testing.HashEncoder, testing.make_tiny_catalog
    from agents.llm import backends
    from agents.llm.cache import with_cache
    from simulators.engine.runner import run_episodes

    catalog = make_tiny_catalog()
    encoder = HashEncoder()
    n, turns, c = args.episodes, args.max_turns, args.episode_concurrency

    async def sweep(llm: Any, name: str, concurrency: int = c) -> tuple[Any, float]:
        setup, recommender, seeker = make_agents(llm, catalog, encoder)
        started = time.perf_counter()
        summary = await asyncio.wait_for(
            run_episodes(setup, {"recommender": recommender, "seeker": seeker}, episodes=n, max_turns=turns, seed=7,
                         concurrency=concurrency, run_dir=scratch / name, config_hash="bench-llm",
                         progress=False),
            timeout=args.sweep_time_limit)
        return summary, time.perf_counter() - started

    await sweep(None, "offline-warmup")  # imports, graph compilation, numpy warm-up
    offline, offline_s = await sweep(None, "offline")

    cached = with_cache(backends.openai(MODEL, base_url=server.url, api_key_env=None), scratch / "llm-cache")
    before = server.stats()["completions"]
    cold, cold_s = await sweep(cached, "cache-cold")
    after_cold = server.stats()["completions"]
    hot, hot_s = await sweep(cached, "cache-hot")
    after_hot = server.stats()["completions"]
    hot_c8, hot_c8_s = await sweep(cached, "cache-hot-c8", concurrency=8)
    after_hot_c8 = server.stats()["completions"]

    hits = await cache_hit_costs(cached, args)

    eps = {"offline": n / offline_s, "cache_hot": n / hot_s}
    hot_calls = call_stats(scratch / "cache-hot")["llm_calls"]
    return {
        "pairing": f"popularity x target_biased, tiny catalog ({len(catalog.items)} items), HashEncoder, "
                   f"{turns} turns, episode concurrency {c}",
        "episodes": n,
        "offline": {"s": round(offline_s, 3), "episodes_per_s": round(eps["offline"], 2),
                    "errors": offline.errors, **call_stats(scratch / "offline")},
        "cache_cold": {"s": round(cold_s, 3), "episodes_per_s": round(n / cold_s, 2), "errors": cold.errors,
                       "server_requests": after_cold - before, **call_stats(scratch / "cache-cold")},
        "cache_hot": {"s": round(hot_s, 3), "episodes_per_s": round(eps["cache_hot"], 2), "errors": hot.errors,
                      **call_stats(scratch / "cache-hot")},
        "cache_hot_concurrency_8": {"s": round(hot_c8_s, 3), "episodes_per_s": round(n / hot_c8_s, 2),
                                    "errors": hot_c8.errors, **call_stats(scratch / "cache-hot-c8")},
        "cache_warm_requests": after_hot - after_cold,
        "cache_warm_requests_concurrency_8": after_hot_c8 - after_hot,
        "hot_matches_cold": comparable(hot) == comparable(cold),
        "slowdown_vs_offline": round(hot_s / offline_s, 2),
        "extra_ms_per_cached_call": round((hot_s - offline_s) / max(1, hot_calls) * 1000, 3),
        "cache_hit_call": hits,
        "target_slowdown_max": 2.0,
    }


async def cache_hit_costs(cached: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Where a cache hit's time goes: run_structured vs ainvoke on a hit, and the bare store."""
    from pydantic import BaseModel

    from agents.llm.structured import build_messages, run_structured
    from agents.prompts import PromptTemplate

    class Ok(BaseModel):
        answer: str

    prompt = PromptTemplate.from_text("## system\nYou are a benchmark endpoint.\n\n## user\nCache me.",
                                      name="bench-cache")
    messages = build_messages(prompt, {}, Ok)
    await cached.ainvoke(messages)  # the one miss: stores the answer

    async def raw_ainvoke() -> None:
        answer = await cached.ainvoke(messages)
        assert answer.response_metadata.get("crsim_cache_hit")

    async def run_structured_() -> None:
        await run_structured(cached, prompt, {}, Ok, step="bench", role="bench")

    result = await compare({"raw_ainvoke": raw_ainvoke, "run_structured": run_structured_}, calls=300,
                           concurrency=1, time_limit=args.point_time_limit, warm_with="raw_ainvoke")
    store, key = cached.store, cached.cache_key(messages)
    rounds = 300
    started, cpu0 = time.perf_counter(), time.process_time()
    for _ in range(rounds):
        store.get(key)
    get_ms = (time.perf_counter() - started) / rounds * 1000
    get_cpu_ms = (time.process_time() - cpu0) / rounds * 1000
    thread_ms = []
    for _ in range(rounds):
        started = time.perf_counter()
        await asyncio.to_thread(store.get, key)
        thread_ms.append((time.perf_counter() - started) * 1000)
    thread_ms.sort()
    return {
        "concurrency": 1,
        "raw_ainvoke_p50_ms": result["raw_ainvoke"]["p50_ms"],
        "raw_ainvoke_cpu_ms_per_call": result["raw_ainvoke"]["client_cpu_ms_per_call"],
        "run_structured_p50_ms": result["run_structured"]["p50_ms"],
        "run_structured_cpu_ms_per_call": result["run_structured"]["client_cpu_ms_per_call"],
        "store_get_ms": round(get_ms, 3), "store_get_cpu_ms": round(get_cpu_ms, 3),
        "store_get_via_to_thread_p50_ms": round(pct(thread_ms, 50), 3),
    }
