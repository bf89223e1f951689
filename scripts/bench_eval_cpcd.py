"""Benchmark `crsim eval cpcd` at CPCD's scale: 106,736 candidate tracks, 450 conversations.

The public release's tracks file is not always at hand, so this writes CPCD-format files
of the same shape (track ids, titles, artists, albums, clusters; conversations of ~5.8
turns with ~19 goal tracks, users naming artists) from a seed, then runs the evaluation
twice with an empty cache: cold (import, index build / catalog embedding) and warm
(everything cached). Retrieval quality on these files means nothing; time and memory do.

    python scripts/bench_eval_cpcd.py                      # bm25
    python scripts/bench_eval_cpcd.py --retrievers bm25 dense
    python scripts/bench_eval_cpcd.py --tracks 20000       # smaller, quicker

Writes outputs/bench/bench_eval_cpcd.json (per retriever and phase: seconds per stage
from the run's timings.json, wall seconds and peak RSS of the process).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = ("love night summer river gold fire blue city dream heart road moon rain light dance baby home "
         "wild girl boy time world sky sun star lost song back down up fly run free stay young old").split()


def write_dataset(directory: Path, n_tracks: int, n_dialogs: int, seed: int) -> tuple[Path, Path]:
    rng = random.Random(seed)
    artists = [f"{rng.choice(WORDS).title()} {rng.choice(WORDS).title()} {i}" for i in range(max(1, n_tracks // 12))]
    by_artist: dict[int, list[str]] = {}
    tracks = directory / "cpcd_v1.tracks.jsonl"
    with tracks.open("w", encoding="utf-8") as handle:
        for i in range(n_tracks):
            artist = rng.randrange(len(artists))
            cluster = f"c{i - 1}" if i % 10 == 9 else f"c{i}"  # one track in ten is a second recording
            title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))).title()
            handle.write(json.dumps({"track_ids": f"t{i:06d}", "track_titles": title,
                                     "track_artists": [artists[artist]], "track_release_titles": f"{title} Album",
                                     "track_canonical_ids": f"t{i:06d}", "track_cluster_ids": cluster}) + "\n")
            by_artist.setdefault(artist, []).append(f"t{i:06d}")
    dialogs = directory / "cpcd_v1.dialogs.dev.jsonl"
    pool = [a for a, ids in by_artist.items() if len(ids) >= 4]
    with dialogs.open("w", encoding="utf-8") as handle:
        for d in range(n_dialogs):
            turns, goal = [], []
            for t in range(rng.choice([4, 5, 5, 6, 6, 7, 8])):
                artist = rng.choice(pool)
                liked = rng.sample(by_artist[artist], min(len(by_artist[artist]), rng.randint(2, 5)))
                liked = [x for x in liked if x not in goal]
                goal += liked
                turns.append({"user_query": f"Some {rng.choice(WORDS)} songs by {artists[artist]} for my "
                                            f"{rng.choice(WORDS)} playlist, please",
                              "system_response": "Here are a few.", "search_queries": [artists[artist]],
                              "search_results": [liked], "liked_results": liked, "disliked_results": []})
            handle.write(json.dumps({"id": f"{d:016x}", "turns": turns, "tracks": {}, "goal_playlist": goal}) + "\n")
    return tracks, dialogs


def run_once(retriever: str, tracks: Path, dialogs: Path, out: Path, env: dict[str, str]) -> dict:
    command = [sys.executable, "-c", "import sys; from simulators.cli.main import main; sys.exit(main(sys.argv[1:]))",
               "eval", "cpcd", "--dialogs", str(dialogs), "--tracks", str(tracks), "--retriever", retriever,
               "--out", str(out), "--predictions-out", str(out / "predictions.jsonl"), "--no-progress"]
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"{retriever} failed:\n{done.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    peak_kib = after.ru_maxrss
    run = json.loads((out / "run.json").read_text())
    hit = {row["name"]: row["macro"] for row in run["metrics"]}
    # CPU seconds say what the run costs whatever else the machine does; wall seconds
    # on a shared two-core machine depend on the other processes (see load_average).
    return {"wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
            **json.loads((out / "timings.json").read_text()),
            "peak_rss_mb_children_so_far": round(peak_kib / 1024, 1), "load_average_after": os.getloadavg(),
            "conversations": run["conversations"], "scored_turns": run["scored_turns"],
            "macro_hit@10_on_synthetic_data": round(hit["hit@10"], 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tracks", type=int, default=106_736)
    parser.add_argument("--dialogs", type=int, default=450)
    parser.add_argument("--retrievers", nargs="+", default=["bm25"], choices=["bm25", "dense", "hybrid"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_eval_cpcd.json"))
    args = parser.parse_args()
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory(prefix="bench-cpcd-") as tmp:
        work = Path(tmp)
        started = time.perf_counter()
        tracks, dialogs = write_dataset(work, args.tracks, args.dialogs, args.seed)
        generated = time.perf_counter() - started
        env = {**os.environ, "CRSIM_CACHE_DIR": str(work / "cache"),
               "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
        results = {}
        for retriever in args.retrievers:
            results[retriever] = {phase: run_once(retriever, tracks, dialogs, work / f"{retriever}-{phase}", env)
                                  for phase in ("cold", "warm")}
            print(retriever, json.dumps(results[retriever]), flush=True)
    report = {"tracks": args.tracks, "dialogs": args.dialogs, "seed": args.seed,
              "generate_seconds": round(generated, 2), "cpus": os.cpu_count(), "python": platform.python_version(),
              "load_average_at_end": os.getloadavg(), "results": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
