"""LLM calls an agent makes while it is built are logged, charged to the budget and replayed."""

from __future__ import annotations

import json
import os
from pathlib import Path

from crsim_testing import crsim
from openai_stub_server import OpenAIStubServer

PLUGINS = Path(__file__).parent / "plugins"
ENV = {"PYTHONPATH": os.pathsep.join([str(PLUGINS), os.environ.get("PYTHONPATH", "")])}


def test_build_time_call_is_logged_budgeted_and_replayed(tiny_catalog_dir, tmp_path):
    run_dir = tmp_path / "run"
    with OpenAIStubServer() as stub:
        out = crsim("run", f"hydra.searchpath=[file://{PLUGINS / 'conf'}]", "recommender=summarising",
                    "llm@recommender.llm=openai", f"recommender.llm.base_url={stub.url}",
                    "recommender.llm.model=stub-build", "recommender.llm.cache=false",
                    f"environment.catalog={tiny_catalog_dir}", "environment.target_pool_size=5", "episodes=2",
                    "max_turns=2", "progress=false", "budget.max_tokens=100000", f"hydra.run.dir={run_dir}", env=ENV)
        assert out.returncode == 0, out.stderr[-3000:]
        assert stub.count == 1  # the one build-time summary; the episodes ask nothing of the model
    calls = [json.loads(line) for line in (run_dir / "llm_calls.jsonl").read_text().splitlines()]
    assert [(c["episode_id"], c["step"], c["role"], c["ok"]) for c in calls] == \
        [("build", "summarize_reviews", "recommender", True)]
    usage = json.loads((run_dir / "llm_usage.json").read_text())
    assert usage["calls"] == 1 and usage["input_tokens"] == calls[0]["input_tokens"] > 0  # charged
    questions = [t["text"] for line in (run_dir / "episodes.jsonl").read_text().splitlines()
                 for t in json.loads(line)["turns"] if t["role"] == "recommender" and not t["metadata"].get("opening")]
    assert questions and all(q.startswith("Others said: ") for q in questions)
    # the server is gone: re-execution must answer the build-time call from the recording
    again = crsim("replay", str(run_dir), "--reexecute", env=ENV)
    assert again.returncode == 0 and "every transcript is identical" in again.stdout, again.stderr[-3000:]
    replayed = [json.loads(line) for line in (run_dir / "reexecute" / "llm_calls.jsonl").read_text().splitlines()]
    assert [(c["episode_id"], c["step"], c["response"]) for c in replayed] == \
        [("build", "summarize_reviews", calls[0]["response"])]


def test_a_spent_budget_stops_the_run_while_agents_are_built(tiny_catalog_dir, tmp_path):
    with OpenAIStubServer() as stub:
        out = crsim("run", f"hydra.searchpath=[file://{PLUGINS / 'conf'}]", "recommender=summarising",
                    "llm@recommender.llm=openai", f"recommender.llm.base_url={stub.url}",
                    "recommender.llm.model=stub-build", "recommender.llm.cache=false",
                    f"environment.catalog={tiny_catalog_dir}", "environment.target_pool_size=5", "episodes=2",
                    "max_turns=1", "progress=false", "budget.max_tokens=1", f"hydra.run.dir={tmp_path / 'run'}",
                    env=ENV)
    assert stub.count == 1
    assert out.returncode == 0, out.stderr[-3000:]
    assert "BUDGET EXHAUSTED" in out.stdout and "2 not started" in out.stdout


def test_a_budget_spent_while_building_is_one_clear_line(tiny_catalog_dir, tmp_path):
    run_dir = tmp_path / "run"
    with OpenAIStubServer() as stub:
        out = crsim("run", f"hydra.searchpath=[file://{PLUGINS / 'conf'}]", "recommender=summarising",
                    "+recommender.summaries=3", "llm@recommender.llm=openai", f"recommender.llm.base_url={stub.url}",
                    "recommender.llm.model=stub-build", "recommender.llm.cache=false",
                    f"environment.catalog={tiny_catalog_dir}", "environment.target_pool_size=5", "episodes=2",
                    "max_turns=1", "progress=false", "budget.max_tokens=1", f"hydra.run.dir={run_dir}", env=ENV)
    assert stub.count == 1  # the second summary is refused before it is sent
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [out.stderr.strip()] and "ran out while the agents were being built" \
        in out.stderr
    calls = [json.loads(line) for line in (run_dir / "llm_calls.jsonl").read_text().splitlines()]
    assert [c["ok"] for c in calls] == [True, False]  # the call made is kept, the refused one recorded as such
    assert "budget" in calls[1]["error"] and calls[1]["response"] is None


def test_sniprec_snippet_extraction_is_logged_as_build_calls(tiny_catalog_dir, tmp_path):
    """SnipRec's item snippets are extracted in batches under their own event loops while the
    recommender is built: each call still lands in the run's log and budget."""
    run_dir = tmp_path / "run"
    with OpenAIStubServer() as stub:
        out = crsim("run", "recommender=sniprec", "llm@recommender.llm=openai", f"recommender.llm.base_url={stub.url}",
                    "recommender.llm.model=stub-snippets", "recommender.llm.cache=false", "recommender.review_aspects=0",
                    f"recommender.cache_dir={tmp_path / 'cache'}", f"environment.catalog={tiny_catalog_dir}",
                    "environment.target_pool_size=5", "episodes=1", "max_turns=1", "progress=false",
                    "budget.max_tokens=10000000", f"hydra.run.dir={run_dir}")
        assert out.returncode == 0, out.stderr[-3000:]
    calls = [json.loads(line) for line in (run_dir / "llm_calls.jsonl").read_text().splitlines()]
    built = [c for c in calls if c["episode_id"] == "build"]
    assert built and {c["step"] for c in built} == {"snippet_item"} and all(c["ok"] for c in built)
    usage = json.loads((run_dir / "llm_usage.json").read_text())
    assert usage["calls"] == len(calls) and usage["input_tokens"] >= sum(c["input_tokens"] for c in built) > 0
