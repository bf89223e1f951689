"""Benchmark: LLM client throughput/latency and the cost of crsim's call path; cached sweeps.

Everything runs against a minimal OpenAI-compatible server that this script starts on
127.0.0.1 (aiohttp, in a separate *process*, so its CPU is not counted as client
overhead; it answers at once with a fixed small JSON completion including usage). No
network beyond that.

1. Client throughput and latency, for the `openai` backend (ChatOpenAI over httpx) and
   the `litellm` backend (`LiteLLMChat`): requests/s and per-call latency p50/p95/p99 at
   concurrency 1, 8, 32, 128 (exactly that many calls in flight), both through crsim's
   `run_structured` (trivial prompt, one-field output model) and through a direct
   `chat_model.ainvoke` of the very same messages. "Framework overhead per call" is
   p50(run_structured) - p50(ainvoke) per concurrency (target < 5 ms at 32); because a
   saturated client's latency is roughly concurrency x CPU per call, the client CPU per
   call (`time.process_time`, this process only) is reported too. Paths are measured in
   interleaved segments (A B B A ...) because other processes share the machine. Also:
   the openai SDK called directly (splits SDK from langchain cost), a raw aiohttp client
   posting the same body (the floor set by transport and server), and run_structured vs
   ainvoke over an in-process instant model (crsim's own overhead, no server at all).
2. Episodes/s for a small sweep whose calls are all cache hits: N episodes (popularity
   recommender x target-biased seeker, tiny catalog, hash encoder) through
   `with_cache(openai backend)` once to fill the cache (server requests counted), then
   again (server requests must not grow: `cache_warm_requests` 0), compared with the
   same episodes on the offline backend (`llm=None`). Target ratio <= 2x.

Writes JSON (default `outputs/bench/bench_llm.json`) and prints it. Every loop is bounded
in count and time; the server process is stopped at the end, also on error, and exits
by itself if this process dies or after `--server-lifetime` seconds.

The parts live in `scripts/llm_bench/`: the stub server (`server.py`), part 1 with the
timing both parts use (`clients.py`), part 2 (`sweep.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # before litellm is imported
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # `scripts.llm_bench`, however this file is started

from scripts.llm_bench.clients import bench_clients  # noqa: E402
from scripts.llm_bench.server import ServerProcess  # noqa: E402
from scripts.llm_bench.sweep import bench_cached_sweep  # noqa: E402

CONCURRENCY = (1, 8, 32, 128)  # the default points; --concurrency sets others (bench_scale asks for 1-256)


async def run_all(server: ServerProcess, args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    result: dict[str, Any] = {}
    if not args.skip_clients:
        result["clients"] = await bench_clients(server, args)
    if not args.skip_episodes:
        result["cached_sweep"] = await bench_cached_sweep(server, args, scratch)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=600, help="calls per (backend, path, concurrency) point")
    parser.add_argument("--point-time-limit", type=float, default=20.0, help="seconds per point, at most")
    parser.add_argument("--clients-budget", type=float, default=130.0,
                        help="seconds for all of part 1, at most (points share what is left)")
    parser.add_argument("--backends", nargs="+", default=["openai", "litellm"], choices=["openai", "litellm"])
    parser.add_argument("--concurrency", nargs="+", type=int, default=list(CONCURRENCY),
                        help="calls in flight per measured point")
    parser.add_argument("--episodes", type=int, default=30)
    parser.add_argument("--max-turns", type=int, default=5)
    parser.add_argument("--episode-concurrency", type=int, default=1)
    parser.add_argument("--sweep-time-limit", type=float, default=60.0, help="seconds per sweep, at most")
    parser.add_argument("--server-lifetime", type=float, default=600.0)
    parser.add_argument("--skip-clients", action="store_true")
    parser.add_argument("--skip-episodes", action="store_true")
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_llm.json"))
    args = parser.parse_args()
    args.calls = max(1, min(args.calls, 5000))

    started = time.perf_counter()
    load_before = os.getloadavg()[0]  # other processes share the 2 cores: results are noisier under load
    with ServerProcess(args.server_lifetime) as server, tempfile.TemporaryDirectory() as scratch:
        result = asyncio.run(run_all(server, args, Path(scratch)))
        server_stats = server.stats()
    result = {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                    "loadavg_1m_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)]},
        **result,
        "server": {"kind": "aiohttp, separate process, fixed completion", **server_stats,
                   "cpu_ms_per_request": round(server_stats["cpu_s"] / max(1, server_stats["completions"]) * 1000, 4)},
        "total_s": round(time.perf_counter() - started, 1),
        "targets": {"overhead_p50_ms_at_32_max": 5.0, "cached_slowdown_vs_offline_max": 2.0},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
