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
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # before litellm is imported
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
MODEL = "stub-model"
CONCURRENCY = (1, 8, 32, 128)  # the default points; --concurrency sets others (bench_scale asks for 1-256)

# --- The server (runs in a child process) -----------------------------------------------

# What the server answers, chosen by a marker in the request body (bytes search, no JSON
# parsing): the crsim steps' expected JSON (as tests/openai_stub_server.SCRIPTED) and, for
# anything else (the micro-benchmark prompt), {"answer": "ok"}.
SERVER_REPLIES = (
    (b"summarise customer reviews", {"summary": "STUB: reviewers loved the food."}),
    (b"conversational recommender", {"question": "STUB: which cuisine do you like?", "aspect": "cuisine"}),
    (b"role-playing a person", {"answer": "STUB: something spicy, please.", "has_preference": True}),
)
DEFAULT_REPLY = {"answer": "ok"}


def _completion_body(content: dict[str, Any]) -> bytes:
    text = json.dumps(content)
    return json.dumps({
        "id": "chatcmpl-bench", "object": "chat.completion", "created": 1700000000, "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": "stop", "logprobs": None}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
    }).encode()


def serve(conn: Any, lifetime: float) -> None:
    """Child-process entry point: serve until told to stop, the parent dies, or `lifetime`."""
    import socket

    from aiohttp import web

    bodies = [(marker, _completion_body(reply)) for marker, reply in SERVER_REPLIES]
    default_body = _completion_body(DEFAULT_REPLY)
    stats = {"completions": 0}
    parent = os.getppid()

    async def completions(request: web.Request) -> web.Response:
        raw = await request.read()
        stats["completions"] += 1
        body = next((b for marker, b in bodies if marker in raw), default_body)
        return web.Response(body=body, content_type="application/json")

    async def get_stats(_request: web.Request) -> web.Response:
        return web.json_response({**stats, "cpu_s": time.process_time()})

    async def main() -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", completions)
        app.router.add_get("/stats", get_stats)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(1024)
        site = web.SockSite(runner, sock, backlog=1024)
        await site.start()
        conn.send(sock.getsockname()[1])
        deadline = time.monotonic() + lifetime
        try:
            while time.monotonic() < deadline and os.getppid() == parent:
                if conn.poll():  # any message (or EOF) means stop
                    break
                await asyncio.sleep(0.2)
        except (EOFError, OSError):
            pass
        finally:
            await runner.cleanup()

    asyncio.run(main())


class ServerProcess:
    """The stub server in a spawned process; a context manager that always stops it."""

    def __init__(self, lifetime: float) -> None:
        self.lifetime = lifetime
        self.process: Any = None
        self.conn: Any = None
        self.url = ""
        self.root = ""

    def __enter__(self) -> ServerProcess:
        ctx = mp.get_context("spawn")  # no fork of a process that may already hold threads
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=serve, args=(child, self.lifetime), name="bench-llm-server",
                                   daemon=True)
        self.process.start()
        child.close()
        if not self.conn.poll(60):
            self.stop()
            raise RuntimeError("stub server did not start within 60 s")
        port = self.conn.recv()
        self.root = f"http://127.0.0.1:{port}"
        self.url = f"{self.root}/v1"
        return self

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.root}/stats", timeout=10) as response:  # noqa: S310 - local
            return json.loads(response.read())

    def stop(self) -> None:
        if self.process is None:
            return
        try:
            self.conn.send("stop")
        except (OSError, ValueError):
            pass
        self.process.join(5)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)
        self.conn.close()
        self.process = None

    def __exit__(self, *exc: object) -> None:
        self.stop()


# --- Measurement helpers -----------------------------------------------------------------

def pct(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list (q in [0, 100])."""
    if not sorted_values:
        return float("nan")
    rank = max(1, min(len(sorted_values), round(q / 100 * len(sorted_values) + 0.5)))
    return sorted_values[rank - 1]


class Segment:
    """Latencies, errors, wall and client-CPU time of one batch of calls."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.issued = 0
        self.wall = 0.0
        self.cpu = 0.0
        self.truncated = False


async def run_segment(call: Any, *, calls: int, concurrency: int, deadline: float) -> Segment:
    """Up to `calls` calls of `call()`, exactly `concurrency` in flight (one worker each).

    No new call starts after `deadline` (perf_counter); each call is also bounded by a
    timeout, so a hung client cannot hang the benchmark.
    """
    seg = Segment()
    timeout = max(1.0, deadline - time.perf_counter())

    async def worker() -> None:
        while seg.issued < calls and time.perf_counter() < deadline:
            seg.issued += 1
            started = time.perf_counter()
            try:
                await asyncio.wait_for(call(), timeout=timeout)
            except Exception as exc:  # noqa: BLE001 - counted and reported
                seg.errors.append(f"{type(exc).__name__}: {exc}"[:200])
                continue
            seg.latencies.append(time.perf_counter() - started)

    cpu0, wall0 = time.process_time(), time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    seg.wall, seg.cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    seg.truncated = seg.issued < calls
    return seg


def summarize(segments: list[Segment], concurrency: int) -> dict[str, Any]:
    """Pooled statistics of several segments of the same (path, concurrency)."""
    latencies = sorted(x for s in segments for x in s.latencies)
    errors = [e for s in segments for e in s.errors]
    wall = sum(s.wall for s in segments)
    issued = sum(s.issued for s in segments)
    done = len(latencies)
    return {
        "concurrency": concurrency, "calls": done, "errors": len(errors),
        "first_error": errors[0] if errors else None,
        "truncated_by_time": any(s.truncated for s in segments),
        "segments": len(segments), "wall_s": round(wall, 3),
        "rps": round(done / wall, 1) if wall > 0 else None,
        "p50_ms": round(pct(latencies, 50) * 1000, 3),
        "p95_ms": round(pct(latencies, 95) * 1000, 3),
        "p99_ms": round(pct(latencies, 99) * 1000, 3),
        "max_ms": round(latencies[-1] * 1000, 3) if latencies else None,
        "client_cpu_ms_per_call": round(sum(s.cpu for s in segments) / max(1, issued) * 1000, 3),
    }


def segment_size(concurrency: int) -> int:
    """Calls per segment: long enough that ramp-up and drain do not dominate."""
    return max(150, 2 * concurrency)


async def measure(call: Any, *, calls: int, concurrency: int, time_limit: float) -> dict[str, Any]:
    """One path at one concurrency, after a warm-up that opens `concurrency` connections."""
    deadline = time.perf_counter() + time_limit
    await run_segment(call, calls=min(2 * concurrency, 256), concurrency=concurrency, deadline=deadline)
    seg = await run_segment(call, calls=calls, concurrency=concurrency, deadline=deadline)
    return summarize([seg], concurrency)


async def compare(paths: dict[str, Any], *, calls: int, concurrency: int, time_limit: float,
                  warm_with: str) -> dict[str, dict[str, Any]]:
    """Several paths at one concurrency, in interleaved segments A B B A A B B A ...

    Other processes on this 2-core machine (test suites, builds) come and go; interleaving
    spreads their load over both paths instead of landing it on one.
    """
    names = list(paths)
    size = segment_size(concurrency)
    pairs = max(1, -(-calls // size))  # each path gets `pairs` segments of `size` calls
    deadline = time.perf_counter() + time_limit
    await run_segment(paths[warm_with], calls=min(2 * concurrency, 256), concurrency=concurrency,
                      deadline=deadline)
    segments: dict[str, list[Segment]] = {name: [] for name in names}
    for i in range(pairs):
        for name in (names if i % 2 == 0 else names[::-1]):
            segments[name].append(await run_segment(paths[name], calls=size, concurrency=concurrency,
                                                    deadline=deadline))
    return {name: summarize(segs, concurrency) for name, segs in segments.items()}


def overhead(structured: dict[str, Any], raw: dict[str, Any]) -> dict[str, Any]:
    return {
        "overhead_p50_ms": round(structured["p50_ms"] - raw["p50_ms"], 3),
        "overhead_client_cpu_ms_per_call": round(structured["client_cpu_ms_per_call"]
                                                 - raw["client_cpu_ms_per_call"], 3),
        "overhead_wall_ms_per_call": (round(1000 / structured["rps"] - 1000 / raw["rps"], 3)
                                      if structured["rps"] and raw["rps"] else None),
    }


def fake_chat_model(content: str) -> Any:
    """An in-process chat model that answers `content` at once: no transport, no server."""
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    class InstantChat(BaseChatModel):
        model_name: str = MODEL
        temperature: float = 0.0

        @property
        def _llm_type(self) -> str:
            return "bench-instant"

        def _result(self) -> ChatResult:
            usage = {"input_tokens": 20, "output_tokens": 5, "total_tokens": 25}
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=content, usage_metadata=usage))])

        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
            return self._result()

        async def _agenerate(self, messages: Any, stop: Any = None, run_manager: Any = None,
                             **kwargs: Any) -> ChatResult:
            return self._result()

    return InstantChat()


# --- Part 1: client micro-benchmark --------------------------------------------------------

def log(message: str) -> None:
    print(f"[bench_llm] {message}", file=sys.stderr, flush=True)


async def bench_clients(server: ServerProcess, args: argparse.Namespace) -> dict[str, Any]:
    from pydantic import BaseModel

    from agents.llm import backends
    from agents.llm.structured import build_messages, run_structured
    from agents.prompts import PromptTemplate

    class Ok(BaseModel):
        answer: str

    prompt = PromptTemplate.from_text(
        "## system\nYou are a benchmark endpoint.\n\n## user\nSay ok about {topic}.", name="bench")
    variables = {"topic": "latency"}
    messages = build_messages(prompt, variables, Ok)  # exactly what run_structured sends

    def paths(model: Any) -> dict[str, Any]:
        async def raw_ainvoke() -> None:
            await model.ainvoke(messages)

        async def run_structured_() -> None:
            result = await run_structured(model, prompt, variables, Ok, step="bench", role="bench")
            assert result.answer == "ok"

        return {"raw_ainvoke": raw_ainvoke, "run_structured": run_structured_}

    budget_end = time.perf_counter() + args.clients_budget

    def limit() -> float:
        """This point's time limit: its own, or what is left of the part's budget."""
        return max(1.0, min(args.point_time_limit, budget_end - time.perf_counter()))

    out: dict[str, Any] = {
        "calls_per_point": args.calls, "time_limit_per_point_s": args.point_time_limit,
        "concurrency": list(args.concurrency),
        "method": "per concurrency: warm-up (2c calls), then raw_ainvoke and run_structured in "
                  "interleaved segments (ABBA...) of max(100, 2c) calls; stats pooled per path",
    }

    # No server at all: crsim's path and langchain's over an in-process instant model.
    instant = paths(fake_chat_model(json.dumps(DEFAULT_REPLY)))
    no_server: dict[str, Any] = {}
    for c in (1, 32):
        result = await compare(instant, calls=max(args.calls, 1000), concurrency=c,
                               time_limit=limit(), warm_with="run_structured")
        no_server[str(c)] = {**result, **overhead(result["run_structured"], result["raw_ainvoke"])}
        log(f"no-server c={c}: raw {result['raw_ainvoke']['p50_ms']:.3f} ms, structured "
            f"{result['run_structured']['p50_ms']:.3f} ms p50")
    out["no_server_instant_model"] = no_server

    # The transport floor: a bare aiohttp client posting the same request body (no SDK).
    import aiohttp
    from langchain_core.messages import convert_to_openai_messages

    payload = json.dumps({"model": MODEL, "messages": convert_to_openai_messages(messages),
                          "temperature": 0.0}).encode()
    floor: dict[str, Any] = {}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        async def raw_post() -> None:
            async with session.post(f"{server.url}/chat/completions", data=payload,
                                    headers={"Content-Type": "application/json"}) as response:
                await response.read()
                response.raise_for_status()

        for c in args.concurrency:
            floor[str(c)] = await measure(raw_post, calls=args.calls, concurrency=c,
                                          time_limit=limit())
    out["raw_aiohttp_floor"] = floor

    for backend in args.backends:
        started = time.perf_counter()
        if backend == "openai":
            chat_model = backends.openai(MODEL, base_url=server.url, api_key_env=None)
        else:
            chat_model = backends.litellm(f"openai/{MODEL}", api_base=server.url)
        construct_s = time.perf_counter() - started
        measured = paths(chat_model)
        if backend == "openai":  # the openai SDK alone (same client object): splits SDK from langchain
            sdk_messages = convert_to_openai_messages(messages)

            async def openai_sdk_direct(model: Any = chat_model) -> None:
                await model.async_client.create(model=MODEL, messages=sdk_messages, temperature=0.0)

            measured["openai_sdk_direct"] = openai_sdk_direct
        points: dict[str, Any] = {}
        for c in args.concurrency:
            result = await compare(measured, calls=args.calls, concurrency=c,
                                   time_limit=limit(), warm_with="run_structured")
            raw, structured = result["raw_ainvoke"], result["run_structured"]
            points[str(c)] = {**result, **overhead(structured, raw)}
            if "openai_sdk_direct" in result:
                sdk = result["openai_sdk_direct"]
                log(f"openai  c={c:<3d} sdk {sdk['rps']:6.1f} rps p50 {sdk['p50_ms']:8.2f} ms "
                    f"cpu/call {sdk['client_cpu_ms_per_call']:.2f} ms")
            log(f"{backend:7s} c={c:<3d} raw {raw['rps']:6.1f} rps p50 {raw['p50_ms']:8.2f} ms | "
                f"structured {structured['rps']:6.1f} rps p50 {structured['p50_ms']:8.2f} ms | "
                f"cpu/call {raw['client_cpu_ms_per_call']:.2f} / {structured['client_cpu_ms_per_call']:.2f} ms")
        out[backend] = {
            "client": type(chat_model).__name__,
            "construct_s_incl_import": round(construct_s, 3),
            "points": points,
            "overhead_p50_ms_at_32": points.get("32", {}).get("overhead_p50_ms"),
        }
    return out


# --- Part 2: a cached sweep vs offline -----------------------------------------------------

def make_agents(llm: Any, catalog: Any, encoder: Any) -> tuple[Any, Any, Any]:
    """Popularity recommender x target-biased seeker with every language step on `llm`."""
    from agents.base import GraphAgent
    from agents.recommenders.popularity import build as build_popularity
    from agents.seekers.target_biased import SeekerContext, build_graph
    from agents.steps.seeker_answer import SeekerAnswerStep
    from agents.steps.summarize import SummarizeReviewsStep
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


# --- Main ----------------------------------------------------------------------------------

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
