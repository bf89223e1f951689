"""Part 1 of `scripts/bench_llm.py`: the language-model clients' throughput and latency,
and the cost of crsim's call path over them (the script's docstring says what is measured
and how). The timing here (`run_segment`, `compare`, `pct`) serves part 2 too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

from .server import DEFAULT_REPLY, MODEL, ServerProcess


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
