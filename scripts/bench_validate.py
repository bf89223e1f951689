"""Benchmark: `crsim validate` on 1,000 real and 1,000 simulated seeker turns (target: < 60 s).

The simulated side is a default-world run (200 episodes x 5 turns, made first and not
timed); the real side is an imported corpus given with `--against DIR` (e.g. a ReDial
import, `--split test_data`), or without one a generated stand-in of 1,000 turns in a tiny
catalog. Times the whole command (classifier included, int8 MiniLM) and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

WORDS = ("movie comedy horror scary funny old new great loved hated watch seen actor plot ending kids "
         "night weekend classic action drama romance thriller sequel book series").split()


def stand_in_corpus(directory: Path, turns: int) -> Path:
    """A catalog directory with `turns` generated seeker turns in 5-turn dialogues."""
    from environments.catalog import Catalog
    from environments.models import CatalogManifest, Episode, Item, Role, TerminationReason, Turn

    items = [Item(id=f"m{i}", title=f"Film Number {i}", category="movie", description=" ".join(WORDS[i::7]))
             for i in range(50)]
    Catalog(CatalogManifest(name="stand-in", domain="movie", item_noun="movies"), items).save(directory)
    rng = np.random.default_rng(0)
    lines = []
    for d in range(turns // 5):
        logged = []
        for _ in range(5):
            logged.append(Turn(index=len(logged), role=Role.recommender, text="What else?"))
            text = " ".join(rng.choice(WORDS, size=rng.integers(3, 10))) + ("?" if rng.random() < 0.15 else ".")
            logged.append(Turn(index=len(logged), role=Role.seeker, text=text))
        lines.append(Episode(id=f"p{d}", index=d, config_hash="stand-in", seed=0, environment="stand-in",
                             turns=logged, termination=TerminationReason.max_turns).model_dump_json())
    (directory / "dialogues.jsonl").write_text("\n".join(lines) + "\n")
    return directory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, default=None)
    parser.add_argument("--split", default=None)
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_validate.json"))
    args = parser.parse_args()
    crsim = str(Path(sys.executable).with_name("crsim"))
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        run = tmp_path / "run"
        subprocess.run([crsim, "run", "episodes=200", "max_turns=5", "progress=false", f"hydra.run.dir={run}"],
                       check=True, capture_output=True)
        against = args.against or stand_in_corpus(tmp_path / "corpus", 1000)
        command = [crsim, "validate", str(run), "--against", str(against), "--out", str(tmp_path / "out")]
        command += ["--split", args.split] if args.split else []
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            sys.exit(done.stderr[-2000:])
        rows = (tmp_path / "out" / "validity.csv").read_text().splitlines()
    result = {"seconds": round(seconds, 1), "target_seconds": 60, "within_target": seconds < 60,
              "against": str(args.against or "generated stand-in (1,000 turns)"), "rows": len(rows) - 1}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
