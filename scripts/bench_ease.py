"""Benchmark: fitting CRAG's EASE (float32 Cholesky) at 2k, 5k, 10k and 20k items.

For each size a synthetic implicit-feedback matrix is generated (5 users per item, a
Zipf-like item popularity, ~25 positives per user) and EASE is fitted in a fresh
process, which reports the fit's wall time and its peak RSS above the RSS it had once
the interaction matrix was built and the libraries imported. "The matrix itself" is the
dense n×n float32 Gram/weight matrix (n² × 4 bytes), reported beside it: the target is
10k items in under 20 s and under 1 GB over that matrix, on this 2-core machine.

The load average before each fit is recorded too: the machine is shared, and BLAS
slows down sharply when another process takes a core.

Writes JSON (default `outputs/bench/bench_ease.json`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

SIZES = (2_000, 5_000, 10_000, 20_000)
TARGET_SECONDS_10K = 20.0
TARGET_EXTRA_MB_10K = 1024.0


def _rss_mb() -> float:
    """Current resident set size (MB) from /proc (Linux)."""
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def synthetic_matrix(n_items: int, seed: int = 0):
    """Users × items, binary: 5 users per item, ~25 positives each, popularity ~ 1/rank^0.8."""
    import numpy as np
    from scipy.sparse import csr_matrix

    rng = np.random.default_rng(seed)
    n_users = 5 * n_items
    weights = 1.0 / np.arange(1, n_items + 1) ** 0.8
    weights /= weights.sum()
    per_user = rng.poisson(25, n_users).clip(2, 200)
    rows = np.repeat(np.arange(n_users), per_user)
    cols = rng.choice(n_items, size=int(per_user.sum()), p=weights)
    matrix = csr_matrix((np.ones(len(rows), np.float32), (rows, cols)), shape=(n_users, n_items))
    matrix.data[:] = 1.0  # duplicates were summed
    return matrix


def child(n_items: int, lam: float) -> None:
    import numpy as np

    from environments.search.ease import ease_weights

    matrix = synthetic_matrix(n_items)
    baseline = _rss_mb()
    started = time.perf_counter()
    weights = ease_weights(matrix, lam)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert weights.dtype == np.float32 and np.all(np.diagonal(weights) == 0)
    print(json.dumps({"items": n_items, "users": matrix.shape[0], "nnz": int(matrix.nnz),
                      "fit_seconds": round(seconds, 2), "peak_rss_mb": round(peak, 1),
                      "baseline_rss_mb": round(baseline, 1),
                      "matrix_mb": round(n_items * n_items * 4 / (1 << 20), 1),
                      "extra_over_matrix_mb": round(peak - baseline - n_items * n_items * 4 / (1 << 20), 1)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--lam", type=float, default=500.0, help="EASE's L2 weight (default 500)")
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_ease.json"))
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.lam)
        return
    runs = []
    for n_items in args.sizes:
        load = os.getloadavg()
        done = subprocess.run([sys.executable, __file__, "--child", str(n_items), "--lam", str(args.lam)],
                              capture_output=True, text=True, check=True)
        result = {**json.loads(done.stdout.strip().splitlines()[-1]), "load_avg_1m_before": round(load[0], 2)}
        print(json.dumps(result), flush=True)
        runs.append(result)
    at_10k = next((r for r in runs if r["items"] == 10_000), None)
    report = {
        "benchmark": "ease_fit", "dtype": "float32", "method": "LAPACK spotrf + spotri, Gram in 1024-column blocks",
        "lambda": args.lam, "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                         "platform": platform.platform()},
        "runs": runs,
        "target_10k": {"max_seconds": TARGET_SECONDS_10K, "max_extra_mb": TARGET_EXTRA_MB_10K,
                       "met": None if at_10k is None else bool(at_10k["fit_seconds"] < TARGET_SECONDS_10K
                                                               and at_10k["extra_over_matrix_mb"] < TARGET_EXTRA_MB_10K)},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
