"""The example CRS server of examples/ works as its README says: started on a catalog
directory, crsim's seekers run against it with no error and it recommends what it read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from crsim_testing import crsim

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "minimal_crs_server.py"


def test_crsim_runs_against_the_example_server(tiny_catalog_dir, tmp_path):
    server = subprocess.Popen([sys.executable, str(EXAMPLE), str(tiny_catalog_dir), "--port", "0"],
                              stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline() if server.stdout else ""
        assert line.startswith("serving on http://127.0.0.1:"), line
        url = line.split(" on ", 1)[1].strip()
        out = crsim("run", f"environment.catalog={tiny_catalog_dir}", "environment.target_pool_size=5", "episodes=4",
                    "max_turns=3", "progress=false", "recommender=http", f"recommender.url={url}",
                    f"hydra.run.dir={tmp_path / 'run'}")
    finally:
        server.terminate()
        server.wait(timeout=30)
        if server.stdout:
            server.stdout.close()
    assert out.returncode == 0, out.stderr[-2000:]
    assert "errors 0" in out.stdout and "remote agent: 12 exchanges" in out.stdout
    logged = [json.loads(line) for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()]
    moves = [t for e in logged for t in e["turns"] if "remote" in t["metadata"]]
    assert any(t["items_shown"] for t in moves) and all(t["text"].endswith("?") for t in moves)
