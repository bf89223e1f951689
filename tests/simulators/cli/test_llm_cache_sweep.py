"""A sweep re-run with the response cache warm makes no HTTP request at all."""

from __future__ import annotations

import json
import subprocess

import pandas as pd

from crsim_testing import CRSIM
from openai_stub_server import OpenAIStubServer


def _sweep(stub: OpenAIStubServer, catalog_dir, sweep_dir, cache_dir) -> subprocess.CompletedProcess:
    llm = []
    for role in ("seeker", "recommender"):
        llm += [f"llm@{role}.llm=openai", f"{role}.llm.base_url={stub.url}", f"{role}.llm.model=stub-cache-test",
                f"{role}.llm.cache_dir={cache_dir}"]
    return subprocess.run(
        [CRSIM, "run", "-m", "recommender=popularity,bm25", *llm, f"environment.catalog={catalog_dir}",
         "environment.target_pool_size=5", "episodes=3", "max_turns=2", "progress=false",
         f"hydra.sweep.dir={sweep_dir}"],
        capture_output=True, text=True, timeout=600)


def _transcripts(sweep_dir) -> list[list[str]]:
    logs = sorted(sweep_dir.glob("*/episodes.jsonl"))
    assert len(logs) == 2, logs  # one directory per job, directly under the sweep dir
    # by episode index: a log lists episodes as they finished, which differs between a cold and a warm run
    episodes = [sorted((json.loads(line) for line in log.read_text().splitlines()), key=lambda e: e["index"])
                for log in logs]
    return [[t["text"] for t in episode["turns"]] for job in episodes for episode in job]


def test_warm_cache_sweep_makes_zero_requests(tiny_catalog_dir, tmp_path):
    with OpenAIStubServer() as stub:
        cold = _sweep(stub, tiny_catalog_dir, tmp_path / "cold", tmp_path / "llm-cache")
        assert cold.returncode == 0, cold.stderr[-3000:]
        requests_cold = stub.count
        assert requests_cold > 0
        warm = _sweep(stub, tiny_catalog_dir, tmp_path / "warm", tmp_path / "llm-cache")
        assert warm.returncode == 0, warm.stderr[-3000:]
        assert stub.count == requests_cold  # not one request more
    assert _transcripts(tmp_path / "warm") == _transcripts(tmp_path / "cold")
    calls = [json.loads(line) for log in (tmp_path / "warm").glob("*/llm_calls.jsonl")
             for line in log.read_text().splitlines()]
    assert calls and all(call["cache_hit"] for call in calls)
    # usage per configuration, in the sweep's printed tables and each job's usage.csv
    assert "LLM usage per configuration" in cold.stdout and "LLM usage per configuration" in warm.stdout
    for sweep in ("cold", "warm"):
        usage = [pd.read_csv(f).set_index("metric")["total"] for f in sorted((tmp_path / sweep).glob("*/usage.csv"))]
        assert len(usage) == 2
        answered_by_server = sum(u["llm_calls"] - u["cache_hits"] for u in usage)
        assert answered_by_server == (requests_cold if sweep == "cold" else 0)
        assert all(u["input_tokens"] > 0 for u in usage)
