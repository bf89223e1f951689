"""Benchmark: what reaching a recommender over HTTP (`recommender=http`) costs, next to the
same recommender in process.

    python scripts/bench_remote.py                       # ~45 s on two idle cores
    python scripts/bench_remote.py --episodes 300 --concurrency 16 --out /tmp/remote.json

Why: `recommender=http` lets crsim's seekers talk to a CRS served anywhere, and
`crsim serve recommender=bm25` serves a crsim recommender that way. Served, bm25 must rank
exactly as in process, and the protocol, the client (`agents/remote/`) and the server
(`simulators/serve/`) must add little time per turn, or remote runs would be much slower
than the in-process runs they are compared with.

What runs: the default environment, `recommender=bm25` x the default seeker, `max_turns`
turns, the same episodes (seed and count) two ways: in process, and as `recommender=http`
against a `crsim serve recommender=bm25 --port 0` subprocess on 127.0.0.1 (the port read
from its `serving ... on http://127.0.0.1:PORT` line; the server is always stopped at the
end). The client side runs in this process through the calls `crsim run` makes (compose
the config, build the setup and agents, `run_episodes`, `results_frame`), so the clocks
cover episodes only, not process start-up and index loading. Every run writes into a new,
empty run directory under a temporary directory (a run directory resumes finished episodes).

Warm-up: each side first runs the measured episodes once (`--warmup` of them; default all),
so model loading, index reads, the first connection and the server's own first moves (its
process loads the embedding model on first use: moves of over a second) are out of the
numbers, and so are embedding-memo misses. Texts are embedded once per process and then
memoised; the seekers of both sides share this process's memo and the served recommender
has the server's, so without a full warm-up whichever side ran an episode second would
find its texts memoised. Measured runs then differ only in how the recommender is reached.

1. `overhead`: the cost per recommender turn, at concurrency 1 (one request in flight,
   nothing overlaps, so a turn's time is that turn's alone). Per-turn time is the
   recommender's `seconds` in `timings.jsonl`: the runner's clock around `agent.respond`
   on every recommender move, which for `recommender=http` spans building the request, the
   HTTP round trip (the server's JSON parsing, the bm25 move, the reply) and reading the
   reply. It was chosen over episode wall time / turns because it leaves the seeker out.
   `overhead_per_turn_ms` = remote minus in process, by mean and by median. The latency
   percentiles are `metadata["remote"]["latency_ms"]` of the remote moves in
   `episodes.jsonl` (the answering HTTP attempt as the client times it, server work
   included). `split_ms` divides the mean overhead into the client's own work (turn time
   minus latency: serialising the request with the transcript, validating the reply,
   rebuilding the scores) and wire plus server (latency minus the in-process turn time).
   Wall-clock overhead grows when other work shares the two cores (`loadavg_1m_*` under
   `machine` says how busy the machine was); `cpu_overhead_per_turn_ms`, the CPU the
   remote run spent in both processes beyond the in-process run's, per move, hardly moves.
   `episodes_per_s` is for reference (it has the seeker in it).
   `metrics_identical`: both runs' `results.csv` are byte for byte the same;
   `episodes_identical`: every episode has the same dialogue and the same ranks. If either
   is false, or an episode ended in an error, the JSON is still written and the script
   exits with status 1 naming the first difference (part 2's runs are checked the same way).
2. `throughput`: episodes/s with `--concurrency` (default 8) episodes in flight, against
   the local server and, for reference, in process (the episodes of part 1 again). On two
   cores the client (seekers) and the server (recommender) can each use a core, but the
   in-process run does no HTTP at all; both are per-machine numbers. `cpu_ms_per_episode`
   says where the time goes: CPU per episode of this process (the client, or everything in
   process) and of the server (from /proc) during the run; client + server above the
   in-process figure is the protocol's work, and the larger of the two bounds episodes/s.

Writes JSON (default `outputs/bench/bench_remote.json`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
READY = re.compile(r"serving recommender \S+ \(crsim\) on (http://127\.0\.0\.1:\d+)")
READY_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class Side:
    """One way of running the recommender: its agents, built once, and its config hash."""

    label: str
    agents: dict[str, Any]
    config_hash: str


@dataclass(frozen=True, slots=True)
class RunResult:
    run_dir: Path
    episodes: int
    errors: int
    seconds: float
    results_csv: str
    cpu_s: float  # this process (the client side, or everything in process)
    server_cpu_s: float | None  # the server's, while the run ran (None where /proc is missing)

    @property
    def episodes_per_s(self) -> float:
        return self.episodes / self.seconds


# --------------------------------------------------------------------- the server subprocess

def crsim_executable() -> str:
    """The `crsim` next to this interpreter (the venv's), else the one on PATH."""
    beside = Path(sys.executable).with_name("crsim")
    found = str(beside) if beside.exists() else shutil.which("crsim")
    if not found:
        raise SystemExit("cannot find the crsim command (install crsim into this interpreter's environment)")
    return found


def read_ready_line(server: subprocess.Popen[str], stderr_path: Path) -> str:
    """The server's base URL, from its `serving ... on URL` line; an error if it dies or stalls.
    (A thread reads stdout, so a stalled server cannot block the wait past its deadline.)"""
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:  # reads to the end (the server's exit) and closes the pipe
        assert server.stdout is not None
        with server.stdout:
            for line in server.stdout:
                lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + READY_TIMEOUT_S
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if line is None:
            server.wait(timeout=STOP_TIMEOUT_S)
            raise SystemExit(f"crsim serve exited ({server.returncode}) before it was ready:\n"
                             f"{stderr_path.read_text()[-3000:]}")
        match = READY.search(line)
        if match:
            return match.group(1)
    raise SystemExit(f"crsim serve printed no `serving ... on URL` line within {READY_TIMEOUT_S:g} s:\n"
                     f"{stderr_path.read_text()[-3000:]}")


def stop(server: subprocess.Popen[str]) -> None:
    """Terminate the server (it holds nothing to flush), and kill it if it lingers. Not
    SIGINT: a shell's background job inherits SIGINT ignored, and so would the server."""
    if server.poll() is not None:
        return
    for send in (server.terminate, server.kill):
        send()
        try:
            server.wait(timeout=STOP_TIMEOUT_S)
            return
        except subprocess.TimeoutExpired:
            continue


@contextmanager
def started_server(overrides: Sequence[str], scratch: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """`crsim serve OVERRIDES --port 0` on 127.0.0.1, stopped whatever happens; yields it
    and its stderr log (read the URL with `read_ready_line`)."""
    stderr_path = scratch / "serve.stderr"
    command = [crsim_executable(), "serve", "--host", "127.0.0.1", "--port", "0", *overrides]
    with stderr_path.open("w") as stderr:
        server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, stdin=subprocess.DEVNULL,
                                  text=True, cwd=REPO)
        try:
            yield server, stderr_path
        finally:
            stop(server)


# --------------------------------------------------------------------- runs

def compose(overrides: Sequence[str]) -> Any:
    """The config `crsim run OVERRIDES` composes, resolved (as `crsim serve` does)."""
    from omegaconf import OmegaConf

    from simulators.engine.hydra_setup import compose_config

    config = compose_config(overrides)
    OmegaConf.resolve(config)
    return config


def build_side(label: str, overrides: Sequence[str], setup: Any) -> Side:
    from simulators.engine.build import build_agents
    from simulators.engine.config_hash import config_hash

    config = compose(overrides)
    return Side(label, build_agents(config, setup), config_hash(config))


def process_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of another process so far (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def run(side: Side, setup: Any, metrics: list[Any], *, episodes: int, max_turns: int, seed: int, concurrency: int,
        run_dir: Path, server_pid: int) -> RunResult:
    """Episodes into a new run directory (timed), then its `results.csv` as `crsim run` writes it."""
    from simulators.engine.runner import run_episodes
    from simulators.results.table import results_frame, write_results_csv

    if run_dir.exists():
        raise SystemExit(f"{run_dir} exists: every run needs a new, empty run directory")
    server_cpu, cpu, started = process_cpu_s(server_pid), time.process_time(), time.perf_counter()
    summary = asyncio.run(run_episodes(setup, side.agents, episodes=episodes, max_turns=max_turns, seed=seed,
                                       concurrency=concurrency, run_dir=run_dir, config_hash=side.config_hash,
                                       progress=False))
    seconds, cpu, server_after = time.perf_counter() - started, time.process_time() - cpu, process_cpu_s(server_pid)
    server_cpu = server_after - server_cpu if server_cpu is not None and server_after is not None else None
    if summary.ran != episodes:
        raise SystemExit(f"{side.label}: ran {summary.ran} of {episodes} episodes in {run_dir}")
    frame = results_frame(summary.episodes, max_turns, metrics, seed=seed)
    csv = write_results_csv(frame, run_dir / "results.csv").read_text()
    return RunResult(run_dir, episodes, summary.errors, seconds, csv, cpu, server_cpu)


# --------------------------------------------------------------------- reading a run directory

def recommender_seconds(run_dir: Path) -> list[float]:
    """Every recommender move's seconds, from `timings.jsonl`."""
    from simulators.engine.logs import TIMINGS_FILE

    lines = (run_dir / TIMINGS_FILE).read_text().splitlines()
    return [s for line in lines for s in json.loads(line)["seconds"].get("recommender", [])]


def remote_moves(run_dir: Path) -> list[dict[str, Any]]:
    """`metadata["remote"]` of every recommender move in `episodes.jsonl`, checked to be one per
    move the runner timed."""
    from simulators.engine.logs import EPISODES_FILE

    moves = [turn["metadata"]["remote"] for line in (run_dir / EPISODES_FILE).read_text().splitlines()
             for turn in json.loads(line)["turns"] if "remote" in (turn.get("metadata") or {})]
    timed = len(recommender_seconds(run_dir))  # the environment's opening turn is no agent move
    if len(moves) != timed:
        raise SystemExit(f"{run_dir}: {len(moves)} moves carry metadata['remote'], but the recommender moved "
                         f"{timed} times (timings.jsonl)")
    return moves


def ms_summary(seconds: Sequence[float]) -> dict[str, float | int]:
    """Mean and percentiles of durations given in seconds, in ms."""
    values = np.asarray(seconds, dtype=np.float64) * 1000.0
    p50, p90, p99 = np.percentile(values, [50, 90, 99])
    return {"n": len(values), "mean": round(float(values.mean()), 3), "p50": round(float(p50), 3),
            "p90": round(float(p90), 3), "p99": round(float(p99), 3), "max": round(float(values.max()), 3)}


def latency_summary(moves: Sequence[dict[str, Any]]) -> dict[str, float | int]:
    summary = ms_summary([m["latency_ms"] / 1000.0 for m in moves])
    return summary | {"retried_moves": sum(1 for m in moves if m.get("attempts", 1) > 1)}


def episode_outcomes(run_dir: Path) -> dict[str, tuple[list[str], list[Any]]]:
    """Per episode id: its turns' texts and its evaluations (the ranks behind every metric)."""
    from simulators.engine.logs import EPISODES_FILE

    episodes = [json.loads(line) for line in (run_dir / EPISODES_FILE).read_text().splitlines()]
    return {e["id"]: ([t["text"] for t in e["turns"]], e["evaluations"]) for e in episodes}


def first_episode_difference(local: Path, remote: Path) -> str | None:
    """None when both runs hold the same episodes, word for word and rank for rank."""
    a, b = episode_outcomes(local), episode_outcomes(remote)
    if a.keys() != b.keys():
        return f"episode ids differ: {sorted(a.keys() ^ b.keys())[:5]}"
    for episode_id in sorted(a):
        if a[episode_id][0] != b[episode_id][0]:
            return f"{episode_id}: the dialogue differs"
        if a[episode_id][1] != b[episode_id][1]:
            return f"{episode_id}: the evaluations (ranks) differ"
    return None


def comparison(local: RunResult, remote: RunResult) -> dict[str, Any]:
    """Whether the remote run is the in-process run: results.csv, episodes, errors."""
    report: dict[str, Any] = {"errors": {"in_process": local.errors, "remote": remote.errors},
                              "metrics_identical": local.results_csv == remote.results_csv}
    if not report["metrics_identical"]:
        report["first_difference"] = first_difference(local.results_csv, remote.results_csv)
    episode_difference = first_episode_difference(local.run_dir, remote.run_dir)
    report["episodes_identical"] = episode_difference is None
    if episode_difference is not None:
        report["first_episode_difference"] = episode_difference
    return report


def first_difference(a: str, b: str) -> str:
    for number, (left, right) in enumerate(zip(a.splitlines(), b.splitlines()), start=1):
        if left != right:
            return f"line {number}: in process {left!r}, remote {right!r}"
    return f"lengths differ: {len(a.splitlines())} vs {len(b.splitlines())} lines"


# --------------------------------------------------------------------- the report

def overhead_report(local: RunResult, remote: RunResult) -> dict[str, Any]:
    local_turn = ms_summary(recommender_seconds(local.run_dir))
    remote_turn = ms_summary(recommender_seconds(remote.run_dir))
    latency = latency_summary(remote_moves(remote.run_dir))
    return {
        "concurrency": 1,
        "episodes": local.episodes,
        "per_turn_source": "timings.jsonl recommender seconds (runner's clock around agent.respond)",
        "recommender_turn_ms": {"in_process": local_turn, "remote": remote_turn},
        "overhead_per_turn_ms": {"mean": round(remote_turn["mean"] - local_turn["mean"], 3),
                                 "p50": round(remote_turn["p50"] - local_turn["p50"], 3)},
        "remote_latency_ms": latency,
        "episodes_per_s": {"in_process": round(local.episodes_per_s, 2), "remote": round(remote.episodes_per_s, 2)},
        "split_ms": {"client_adapter": round(remote_turn["mean"] - latency["mean"], 3),
                     "wire_and_server": round(latency["mean"] - local_turn["mean"], 3)},
        "cpu_overhead_per_turn_ms": cpu_overhead_per_turn_ms(local, remote, local_turn["n"]),
    } | comparison(local, remote)


def cpu_overhead_per_turn_ms(local: RunResult, remote: RunResult, moves: int) -> float | None:
    """(client CPU + server CPU - in-process CPU) over the run, per recommender move: the
    overhead in CPU rather than wall time, so other load on the machine hardly moves it."""
    if remote.server_cpu_s is None:
        return None
    return round((remote.cpu_s + remote.server_cpu_s - local.cpu_s) * 1000.0 / moves, 3)


def throughput_report(local: RunResult, remote: RunResult, concurrency: int) -> dict[str, Any]:
    return {
        "concurrency": concurrency,
        "episodes": local.episodes,
        "episodes_per_s": {"remote": round(remote.episodes_per_s, 2), "in_process": round(local.episodes_per_s, 2)},
        "seconds": {"remote": round(remote.seconds, 3), "in_process": round(local.seconds, 3)},
        "cpu_ms_per_episode": {"remote": {"client": per_episode_ms(remote.cpu_s, remote.episodes),
                                          "server": per_episode_ms(remote.server_cpu_s, remote.episodes)},
                               "in_process": per_episode_ms(local.cpu_s, local.episodes)},
        "remote_latency_ms": latency_summary(remote_moves(remote.run_dir)),
    } | comparison(local, remote)


def per_episode_ms(seconds: float | None, episodes: int) -> float | None:
    return None if seconds is None else round(seconds * 1000.0 / episodes, 2)


def machine() -> dict[str, Any]:
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
            "commit": commit or None, "loadavg_1m_at_end": round(os.getloadavg()[0], 2)}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=100, help="episodes per measured run (default 100)")
    parser.add_argument("--warmup", type=int, default=None,
                        help="warm-up episodes per side, the measured ones' first (default: all of them)")
    parser.add_argument("--max-turns", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=8, help="episodes in flight for the throughput runs")
    parser.add_argument("--seed", type=int, default=0, help="seed of every run")
    parser.add_argument("--recommender", default="bm25", help="the crsim recommender served and run in process")
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_remote.json"))
    return parser.parse_args()


def exit_on_sigterm() -> None:
    """SIGTERM ends this process through `SystemExit`, so the `finally` that stops the server runs."""
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


def measure(args: argparse.Namespace, scratch: Path) -> tuple[dict[str, Any], dict[str, Any], str]:
    """Both parts, with the server up only for them: (overhead, throughput, server's stderr)."""
    from simulators.engine.build import build_setup, metric_specs
    from simulators.metrics.config import build_metrics

    served = [f"recommender={args.recommender}"]  # as `crsim serve recommender=bm25 --port 0`
    common = [f"max_turns={args.max_turns}"]
    with started_server(served, scratch) as (server, server_log):
        # The in-process side builds while the server starts (a core each).
        config = compose([*served, *common])
        setup = build_setup(config.environment)
        metrics = build_metrics(metric_specs(config.environment))
        local = build_side("in_process", [*served, *common], setup)
        url = read_ready_line(server, server_log)
        client = ["recommender=http", f"recommender.url={url}",
                  f"recommender.max_in_flight={max(8, args.concurrency)}"]  # never the limit on concurrency
        remote = build_side("remote", [*client, *common], setup)

        def go(side: Side, name: str, **kwargs: Any) -> RunResult:
            if server.poll() is not None:
                raise SystemExit(f"crsim serve exited ({server.returncode}):\n{server_log.read_text()[-3000:]}")
            return run(side, setup, metrics, max_turns=args.max_turns, run_dir=scratch / name, server_pid=server.pid,
                       **kwargs)

        for side in (local, remote) if args.warmup > 0 else ():
            go(side, f"warmup-{side.label}", episodes=args.warmup, seed=args.seed, concurrency=1)
        serial = [go(side, f"c1-{side.label}", episodes=args.episodes, seed=args.seed, concurrency=1)
                  for side in (local, remote)]
        remote_parallel = go(remote, "parallel-remote", episodes=args.episodes, seed=args.seed,
                             concurrency=args.concurrency)
        local_parallel = go(local, "parallel-in_process", episodes=args.episodes, seed=args.seed,
                            concurrency=args.concurrency)
        return (overhead_report(*serial), throughput_report(local_parallel, remote_parallel, args.concurrency),
                server_log.read_text())


def problems_of(parts: dict[str, dict[str, Any]]) -> list[str]:
    """What makes the remote runs not the in-process runs (empty: nothing)."""
    problems = []
    for part, report in parts.items():
        if not report["metrics_identical"]:
            problems.append(f"{part}: results.csv differs, {report['first_difference']}")
        if not report["episodes_identical"]:
            problems.append(f"{part}: episodes differ, {report['first_episode_difference']}")
        if any(report["errors"].values()):
            problems.append(f"{part}: episodes ended with an error: {report['errors']}")
    return problems


def main() -> None:
    args = parse_args()
    args.warmup = args.episodes if args.warmup is None else min(args.warmup, args.episodes)
    exit_on_sigterm()
    from simulators.engine.hydra_setup import quiet_environment

    quiet_environment()
    started, load = time.perf_counter(), os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="crsim-bench-remote-") as scratch:
        overhead, throughput, server_stderr = measure(args, Path(scratch))
    result = {
        "pairing": f"{args.recommender} (in process vs recommender=http -> crsim serve recommender={args.recommender} "
                   f"on 127.0.0.1) x default seeker, default environment, {args.max_turns} turns",
        "warmup_episodes_per_side": args.warmup,
        "seed": args.seed,
        "overhead": overhead,
        "throughput": throughput,
        "server_stderr_lines": len(server_stderr.splitlines()),
        "total_s": round(time.perf_counter() - started, 1),
        "machine": machine() | {"loadavg_1m_at_start": round(load, 2)},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    problems = problems_of({"concurrency 1": overhead, f"concurrency {args.concurrency}": throughput})
    if problems:
        print(f"bench_remote: FAILED (the JSON is in {args.out}):\n  " + "\n  ".join(problems), file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
