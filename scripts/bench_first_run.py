"""Benchmark: the README's `make run` as a new user meets it — a fresh clone, no `.venv`, an
empty crsim cache and no pip cache — timed as install (`make setup`) and run (`make run`).

    python scripts/bench_first_run.py                 # clones this repository's HEAD
    python scripts/bench_first_run.py --repo URL|DIR

What stays warm, because this script cannot take it away: the operating system's file
cache and whatever the package index serves (here a local wheel for torch). Writes JSON
(default `outputs/bench/bench_first_run.json`). Target (issue "A fast first run"): the
two together <= 4 minutes on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

TARGET_S = 240


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_first_run.json"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="crsim-first-run-") as scratch:
        clone, cache = Path(scratch) / "crsim", Path(scratch) / "cache"
        subprocess.run(["git", "clone", "-q", args.repo, str(clone)], check=True)
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, check=True, capture_output=True,
                                text=True).stdout.strip()
        env = {**os.environ, "CRSIM_CACHE_DIR": str(cache), "PIP_NO_CACHE_DIR": "1"}
        env.pop("VIRTUAL_ENV", None)
        setup_s, _ = timed(["make", "setup"], clone, env)
        run_s, out = timed(["make", "run"], clone, env)
        table = "summary.png" in out or any(clone.glob("outputs/sweeps/*/summary.png"))
    result = {"commit": commit, "cpus": os.cpu_count(), "install_s": round(setup_s, 1), "run_s": round(run_s, 1),
              "total_s": round(setup_s + run_s, 1), "plots_written": bool(table), "target_s": TARGET_S,
              "met": setup_s + run_s <= TARGET_S}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
