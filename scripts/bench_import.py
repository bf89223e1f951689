"""Benchmark: importing a Yelp-format review file, rows/second and peak memory vs file size.

Generates a business.json (5,000 food businesses in one city, so every review is kept:
the worst case for writing) and two review.json files in the real format, ~700-1,000
bytes per line: a small one (default 100 MB) and a large one (default 1 GB). Each is
imported in a fresh process (`crsim data import yelp` does the same work), which
reports its own wall time and peak RSS; the same process size for both files is what
"memory flat in file size" means. Distinct users grow with the file (one per ~3
reviews, as in the real dataset), so the users' spill is exercised too.

Writes JSON (default `outputs/bench/bench_import.json`). Target: >= 50k reviews/s.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_PER_SECOND = 50_000
BYTES_PER_REVIEW = 1_000  # what samples.yelp_review(filler=4) writes, roughly


def child(business: Path, reviews: Path, out: Path) -> None:
    """Import once and print wall time, counts and this process's peak RSS as JSON."""
    from environments.datasets.yelp import YelpOptions, import_yelp

    started = time.perf_counter()
    report = import_yelp(business, reviews, out, YelpOptions(city="Philadelphia", force=True))
    seconds = time.perf_counter() - started
    print(json.dumps({"seconds": round(seconds, 2), "reviews": report.counts["reviews"],
                      "users": report.counts["users"], "items": report.counts["items"],
                      "rows_read": report.rows_read,
                      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))


def generate(directory: Path, size_mb: int, businesses: list, seed: int) -> tuple[Path, float]:
    from environments.datasets.samples import write_yelp_reviews

    path = directory / f"review-{size_mb}mb.json"
    started = time.perf_counter()
    n_users = max(1_000, size_mb * (1 << 20) // BYTES_PER_REVIEW // 3)
    write_yelp_reviews(path, size_mb << 20, businesses, n_users, seed)
    return path, time.perf_counter() - started


def run_import(business: Path, reviews: Path, out: Path) -> dict:
    command = [sys.executable, __file__, "--child", str(business), str(reviews), str(out)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024, help="size of the large review file")
    parser.add_argument("--small-mb", type=int, default=100, help="size of the small review file")
    parser.add_argument("--tmp", type=Path, default=None, help="scratch directory (default: the system's)")
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_import.json"))
    parser.add_argument("--child", nargs=3, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return

    import orjson

    from environments.datasets.samples import yelp_businesses

    with tempfile.TemporaryDirectory(dir=args.tmp, prefix="crsim-bench-import-") as scratch:
        directory = Path(scratch)
        businesses = yelp_businesses(5_000, seed=0)
        business = directory / "business.json"
        business.write_bytes(b"".join(orjson.dumps(b, option=orjson.OPT_APPEND_NEWLINE) for b in businesses))
        runs = []
        for size_mb in (args.small_mb, args.size_mb):
            reviews, generated = generate(directory, size_mb, businesses, seed=size_mb)
            print(f"generated {reviews.name} ({reviews.stat().st_size / 2**20:.0f} MB) in {generated:.1f} s",
                  file=sys.stderr)
            result = run_import(business, reviews, directory / f"catalog-{size_mb}mb")
            result.update(file_mb=round(reviews.stat().st_size / 2**20, 1),
                          reviews_per_second=round(result["reviews"] / result["seconds"]),
                          mb_per_second=round(reviews.stat().st_size / 2**20 / result["seconds"], 1),
                          generate_seconds=round(generated, 1))
            print(f"imported {result['reviews']:,} reviews in {result['seconds']:.1f} s: "
                  f"{result['reviews_per_second']:,} reviews/s, peak RSS {result['peak_rss_mb']} MB", file=sys.stderr)
            runs.append(result)
            reviews.unlink()
    small, large = runs
    growth = large["peak_rss_mb"] - small["peak_rss_mb"]
    summary = {
        "benchmark": "crsim data import yelp", "target_reviews_per_second": TARGET_PER_SECOND,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "runs": runs,
        "reviews_per_second": large["reviews_per_second"],
        "peak_rss_growth_mb": round(growth, 1),
        "size_ratio": round(large["file_mb"] / small["file_mb"], 1),
        "memory_flat": growth <= max(20.0, 0.1 * small["peak_rss_mb"]),
        "meets_target": large["reviews_per_second"] >= TARGET_PER_SECOND,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
