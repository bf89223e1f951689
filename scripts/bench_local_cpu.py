"""Benchmark: which CPU settings the `local` backend should use (issue 31, item 1).

Replays the first N calls of a real run's `llm_calls.jsonl` (the messages exactly as sent,
in the order the run sent them, so consecutive calls share what they shared in the run)
through llama-cpp-python under each setting, one fresh process per setting so that
environment variables and the loaded weights do not leak between them:

- `threads2`: two threads, the default until 0.2.4 (`conf/llm/qwen2.5-1.5b.yaml` now runs two
  one-thread copies: `docs/llm.md`);
- `threads1`: one thread;
- `flash_attn`: two threads with flash attention;
- `prefix_cache`: two threads with a `LlamaRAMCache`, which keeps the KV state of earlier
  prompts so a call whose prompt starts like an earlier one (not only the previous one)
  skips re-reading the shared prefix;
- `omp_active`: two threads with `OMP_WAIT_POLICY=ACTIVE` (crsim sets PASSIVE);
- `pair_threads1`: two processes at once, one thread each, both replaying the calls: the
  throughput of two episodes in parallel on one-thread models, against one two-thread model;
- `copies2_threads1`: the same inside one process, two one-thread copies of the model on two
  Python threads (what `instances: 2` does when two episodes run at once).

Each call is decoded greedily under a generic JSON grammar, capped at the completion length
the run recorded, so every setting does the same work. Settings run in `--rounds` rounds,
in forward then reverse order (A B C, C B A, ...), so a slow spell of the machine does not
fall on one setting. Reports per setting and round: seconds per call (mean, p50, max),
prompt and completion tokens, the wall time of all its calls (`seconds_total`; a two-copy
or two-process setting makes twice the calls); and per setting the median over rounds.
Run it on an otherwise idle machine: another process on the two cores distorts most the
settings that spin-wait. Writes JSON.

    python scripts/bench_local_cpu.py RUN/llm_calls.jsonl --model qwen2.5-1.5b --calls 16 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

SETTINGS: dict[str, dict[str, Any]] = {
    "threads2": {"n_threads": 2},
    "threads1": {"n_threads": 1},
    "flash_attn": {"n_threads": 2, "flash_attn": True},
    "prefix_cache": {"n_threads": 2, "ram_cache": True},
    "omp_active": {"n_threads": 2, "env": {"OMP_WAIT_POLICY": "ACTIVE"}},
    "pair_threads1": {"n_threads": 1, "processes": 2},
    "copies2_threads1": {"n_threads": 1, "copies": 2},
}


def load_calls(path: Path, count: int) -> list[dict[str, Any]]:
    """The first `count` calls of a run log, in order, each with its messages and the
    completion length it produced."""
    calls = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise SystemExit(f"{path}:{number}: not JSON ({error.msg})") from None
            if not record.get("messages"):
                raise SystemExit(f"{path}:{number}: field 'messages' is missing")
            calls.append({"messages": record["messages"], "step": record.get("step"),
                          "max_tokens": max(8, int(record.get("output_tokens") or 64))})
            if len(calls) == count:
                break
    return calls


def run_setting(name: str, model_path: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """Inside the child process: load the model under one setting and time every call."""
    from llama_cpp import Llama, LlamaRAMCache

    setting = SETTINGS[name]
    started = time.perf_counter()
    copies = [Llama(model_path=model_path, n_ctx=4096, n_threads=setting["n_threads"],
                    flash_attn=setting.get("flash_attn", False), verbose=False)
              for _ in range(setting.get("copies", 1))]
    if setting.get("ram_cache"):
        copies[0].set_cache(LlamaRAMCache(capacity_bytes=2 << 30))
    load_s = time.perf_counter() - started
    seconds: list[float] = []
    tokens = [0, 0]

    def replay(llama: Any) -> None:
        for call in calls:
            started = time.perf_counter()
            out = llama.create_chat_completion(messages=call["messages"], temperature=0.0, seed=0,
                                               max_tokens=call["max_tokens"], response_format={"type": "json_object"})
            seconds.append(time.perf_counter() - started)
            tokens[0] += out["usage"]["prompt_tokens"]
            tokens[1] += out["usage"]["completion_tokens"]

    started = time.perf_counter()
    threads = [threading.Thread(target=replay, args=(llama,)) for llama in copies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    prompt_tokens, completion_tokens = tokens
    return {"setting": name, "load_s": round(load_s, 2), "calls": len(seconds), "seconds_total": round(wall, 1),
            "seconds_per_call_mean": round(statistics.mean(seconds), 2),
            "seconds_per_call_p50": round(statistics.median(seconds), 2),
            "seconds_per_call_max": round(max(seconds), 2),
            "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens}


def spawn(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """Run one setting in fresh processes (two at once for a `processes: 2` setting); the
    result's `seconds_total` is the wall time until all of them finished."""
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE", **SETTINGS[name].get("env", {})}
    command = [sys.executable, __file__, str(args.log), "--model", args.model, "--calls", str(args.calls),
               "--child", name]
    started = time.perf_counter()
    children = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for _ in range(SETTINGS[name].get("processes", 1))]
    outputs = [child.communicate() for child in children]
    wall = time.perf_counter() - started
    for child, (_, stderr) in zip(children, outputs):
        if child.returncode != 0:
            raise SystemExit(f"setting {name} failed:\n{stderr[-2000:]}")
    results = [json.loads(stdout.strip().splitlines()[-1]) for stdout, _ in outputs]
    if len(results) == 1:
        return results[0]
    calls = sum(r["calls"] for r in results)
    return {"setting": name, "calls": calls, "seconds_total": round(wall, 1),
            "seconds_per_call_effective": round(wall / calls, 2), "processes": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("log", type=Path, help="a run's llm_calls.jsonl")
    parser.add_argument("--model", default="qwen2.5-1.5b", help="a packaged model's name")
    parser.add_argument("--calls", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_local_cpu.json"))
    parser.add_argument("--child", choices=list(SETTINGS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    from agents.llm.packaged import packaged_model_path

    model_path = str(packaged_model_path(args.model))
    calls = load_calls(args.log, args.calls)
    if args.child:
        print(json.dumps(run_setting(args.child, model_path, calls)))
        return
    steps = sorted({str(call["step"]) for call in calls})
    results = []
    for round_number in range(args.rounds):
        order = args.settings if round_number % 2 == 0 else list(reversed(args.settings))
        results += [{"round": round_number, **spawn(name, args)} for name in order]
    medians = {name: statistics.median(r["seconds_total"] for r in results if r["setting"] == name)
               for name in args.settings}
    report = {"model": args.model, "log": str(args.log), "steps": steps, "cpu_count": os.cpu_count(),
              "rounds": args.rounds, "median_seconds_total": medians, "settings": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
