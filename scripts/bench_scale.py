"""Benchmark: offline episodes/second by runner backend, and peak memory against run length.

Each measurement is a real `crsim run` on the default restaurant world (BM25 x target-
biased seeker, offline) in a fresh run directory. Throughput is taken from two run
lengths, (n_long - n_short) / (t_long - t_short), so process start-up, world loading and
index building (paid once per run, or once per worker) cancel out; each backend gets
`--repeats` such pairs, round-robin, and its median counts (single pairs varied by
+-10% on this shared host). Peak memory is the
child's maximum RSS for runs of increasing length: flat means results are streamed.
LLM-bound episodes are asyncio concurrency, not processes: `llm_concurrency` is the
`openai` client's requests/s against the local OpenAI-compatible server of
`scripts/bench_llm.py` (run by it, `--concurrency 1 ... 256`), with the point past which
more calls in flight stop adding throughput (`saturates_at`: the first concurrency whose
successor gains under 10%).
Writes JSON (default `outputs/bench/bench_scale.json`).
Targets (issue 19): 2 processes >= 1.7 x one, >= 60 offline episodes/s with two; memory
flat in the number of episodes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BACKENDS = {"asyncio": ["runner.backend=asyncio"], "processes-1": ["runner.backend=processes", "runner.workers=1"],
            "processes-2": ["runner.backend=processes", "runner.workers=2"]}


def crsim_run(episodes: int, overrides: list[str], run_dir: Path) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB of this child and its workers)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "simulators.cli.main", "run", f"episodes={episodes}", "progress=false",
                    f"hydra.run.dir={run_dir}", *overrides], check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "OMP_NUM_THREADS": "1"})
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", type=int, default=50)
    parser.add_argument("--long", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3, help="short/long pairs per backend; the median counts")
    parser.add_argument("--memory-runs", type=int, nargs="+", default=[200, 2000])
    parser.add_argument("--llm-concurrency", type=int, nargs="*", default=[1, 8, 32, 64, 128, 256])
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_scale.json"))
    args = parser.parse_args()

    rates: dict[str, list[float]] = {name: [] for name in BACKENDS}
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeats):  # round-robin, so a slow phase of the host hits every backend
            for name, overrides in BACKENDS.items():
                short, _ = crsim_run(args.short, overrides, Path(tmp) / f"{name}-short-{repeat}")
                long, _ = crsim_run(args.long, overrides, Path(tmp) / f"{name}-long-{repeat}")
                rates[name].append(round((args.long - args.short) / (long - short), 2))
                print(name, repeat, rates[name][-1], flush=True)
        throughput = {name: {"episodes_per_s": statistics.median(values), "runs": values}
                      for name, values in rates.items()}
        memory = []
        for n in args.memory_runs:  # each in its own child: RUSAGE_CHILDREN's peak only grows, so largest last
            seconds, peak = crsim_run(n, BACKENDS["asyncio"], Path(tmp) / f"memory-{n}")
            memory.append({"episodes": n, "wall_s": round(seconds, 1), "peak_rss_mb_so_far": round(peak, 1)})
            print(memory[-1], flush=True)
    llm = llm_concurrency(args.llm_concurrency) if args.llm_concurrency else None
    base = throughput["processes-1"]["episodes_per_s"]
    result = {"throughput": throughput, "speedup_2_vs_1_process": round(throughput["processes-2"]["episodes_per_s"]
                                                                         / base, 2) if base else None,
              "memory": memory, "llm_concurrency": llm, "cpus": os.cpu_count(),
              "load_average_after": os.getloadavg()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


def llm_concurrency(points: list[int]) -> dict[str, object]:
    """The openai client's requests/s per concurrency (run_structured, crsim's call path)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "llm.json"
        subprocess.run([sys.executable, str(Path(__file__).with_name("bench_llm.py")), "--backends", "openai",
                        "--skip-episodes", "--calls", "400", "--clients-budget", "300", "--concurrency",
                        *map(str, points), "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
        measured = json.loads(out.read_text())["clients"]["openai"]["points"]
    rps = {int(c): point["run_structured"]["rps"] for c, point in measured.items()}
    order = sorted(rps)
    saturates = next((c for c, nxt in zip(order, order[1:]) if rps[nxt] < 1.1 * rps[c]), order[-1])
    return {"requests_per_s": {str(c): rps[c] for c in order}, "saturates_at": saturates}


if __name__ == "__main__":
    main()
