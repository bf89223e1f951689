"""Fingerprint what the shipped sweeps write, so a refactor can show it changed nothing.

Runs the default sweep and the five experiments (`sniprec`, `pepper`, `crag`, `playlist`,
`tracer`) through the `crsim` command itself, each small (a few episodes per cell, every
cell of its grid), and writes the SHA-256 of every run's `episodes.jsonl`, `results.csv`
and `eval-*.csv` to JSON. It drives the CLI as a user does, in subprocesses, so it reads
no module path of crsim's and gives the same JSON before and after code moves:

    python scripts/fingerprint_logs.py --out before.json     # on the old tree
    python scripts/fingerprint_logs.py --out after.json      # on the new tree
    python scripts/fingerprint_logs.py --compare before.json after.json

`timings.jsonl`, `llm_calls.jsonl` and plots are left out: they hold wall-clock times.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# name -> overrides; small but every cell of each grid
SWEEPS: dict[str, list[str]] = {
    "default": ["recommender=popularity,bm25,dense", "episodes=12"],
    "sniprec": ["experiment=sniprec", "episodes=6"],
    "pepper": ["experiment=pepper", "episodes=6"],
    "crag": ["experiment=crag", "episodes=4"],
    "playlist": ["experiment=playlist", "episodes=6"],
    "tracer": ["experiment=tracer", "episodes=8"],
}
FINGERPRINTED = ("episodes.jsonl", "results.csv")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fingerprint(sweep_dir: Path) -> dict[str, str]:
    """SHA-256 per fingerprinted file, keyed by its path inside the sweep directory."""
    found: dict[str, str] = {}
    for path in sorted(sweep_dir.rglob("*")):
        if path.is_file() and (path.name in FINGERPRINTED or (path.name.startswith("eval-") and path.suffix == ".csv")):
            found[str(path.relative_to(sweep_dir))] = sha256(path)
    return found


def run_sweep(name: str, overrides: list[str], out_dir: Path, crsim: str) -> dict[str, object]:
    sweep_dir = out_dir / name
    command = [crsim, "run", "-m", *overrides, "progress=false", f"hydra.sweep.dir={sweep_dir}"]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    files = fingerprint(sweep_dir)
    if not any(key.endswith("episodes.jsonl") for key in files):
        sys.exit(f"{name}: no episodes.jsonl under {sweep_dir}")
    return {"command": " ".join(command[1:-1]), "seconds": round(time.perf_counter() - started, 1), "files": files}


def compare(before: Path, after: Path) -> int:
    old, new = json.loads(before.read_text()), json.loads(after.read_text())
    differing = 0
    for name in sorted(set(old["sweeps"]) | set(new["sweeps"])):
        a = old["sweeps"].get(name, {}).get("files", {})
        b = new["sweeps"].get(name, {}).get("files", {})
        same = [k for k in a if b.get(k) == a[k]]
        changed = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        differing += len(changed)
        print(f"{name}: {len(same)} files identical, {len(changed)} differ" + "".join(f"\n  {k}" for k in changed))
    print("identical" if not differing else f"{differing} files differ")
    return 0 if not differing else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/fingerprint_logs.json"))
    parser.add_argument("--only", nargs="*", choices=sorted(SWEEPS), help="run only these sweeps")
    parser.add_argument("--keep", type=Path, help="write the runs here instead of a temporary directory")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"),
                        help="compare two fingerprint files; exit 1 when any file differs")
    args = parser.parse_args()
    if args.compare:
        sys.exit(compare(*args.compare))
    crsim = str(Path(sys.executable).with_name("crsim"))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = args.keep or Path(tmp)
        sweeps = {name: run_sweep(name, SWEEPS[name], out_dir, crsim) for name in (args.only or SWEEPS)}
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"commit": commit, "sweeps": sweeps}, indent=1) + "\n")
    total = sum(len(s["files"]) for s in sweeps.values())  # type: ignore[arg-type]
    print(f"{total} files fingerprinted into {args.out}")


if __name__ == "__main__":
    main()
