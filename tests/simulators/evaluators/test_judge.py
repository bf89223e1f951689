"""PEPPER's judge and LLM seeker end to end through `crsim run` against the stub server;
offline, no judge column exists at all."""

from __future__ import annotations

import json
import subprocess

import pandas as pd
import pytest

from crsim_testing import CRSIM
from openai_stub_server import OpenAIStubServer

SMALL_WORLD = ["environment.world.n_items=200", "environment.world.n_users=60",
               "environment.world.min_reviews_per_item=5", "environment.world.seed=3",
               "environment.user_pool_size=10"]


def _run(run_dir, crsim_cache, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CRSIM, "run", "experiment=pepper", "recommender=popularity", "episodes=3", "max_turns=2", "progress=false",
         f"cache_dir={crsim_cache}", f"hydra.run.dir={run_dir}", *SMALL_WORLD, *extra],
        capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def offline_run(tmp_path_factory, crsim_cache):
    run_dir = tmp_path_factory.mktemp("pepper-offline")
    done = _run(run_dir, crsim_cache)
    assert done.returncode == 0, done.stderr[-3000:]
    return run_dir, done


def test_offline_run_has_no_judge_and_logs_the_seekers_preferences(offline_run):
    run_dir, done = offline_run
    assert not (run_dir / "eval-judge.csv").exists() and "judge" not in done.stdout
    results = pd.read_csv(run_dir / "results.csv")
    assert not any(m in set(results.metric) for m in ("proactiveness", "coherence", "personalization"))
    episodes = [json.loads(line) for line in (run_dir / "episodes.jsonl").read_text().splitlines()]
    first_replies = [next(t for t in e["turns"] if t["role"] == "seeker") for e in episodes]
    assert all(t["metadata"].get("preferences") for t in first_replies)


def test_judge_and_llm_seeker_through_the_server(tmp_path, crsim_cache):
    llm = []
    for role in ("seeker", "judge"):
        llm += [f"llm@{role}.llm=openai", f"{role}.llm.base_url=URL", f"{role}.llm.model=stub",
                f"{role}.llm.cache=false", f"{role}.llm.max_retries=0"]
    with OpenAIStubServer() as stub:
        done = _run(tmp_path, crsim_cache, *[a.replace("URL", stub.url) for a in llm])
    assert done.returncode == 0, done.stderr[-3000:]
    judged = pd.read_csv(tmp_path / "eval-judge.csv")
    assert len(judged) == 3
    assert set(judged.proactiveness) == {4} and set(judged.coherence) == {3} and set(judged.personalization) == {2}
    assert "judge means" in done.stdout
    episodes = [json.loads(line) for line in (tmp_path / "episodes.jsonl").read_text().splitlines()]
    seeker = [t["text"] for e in episodes for t in e["turns"] if t["role"] == "seeker"]
    assert seeker and all(text == "STUB: more horror, please." for text in seeker)
    steps = {json.loads(line)["step"] for line in (tmp_path / "llm_calls.jsonl").read_text().splitlines()}
    assert {"pepper_extract", "pepper_general", "pepper_reply"} <= steps
