"""A run's token budget: when spent, running episodes end with `budget`, no new one starts."""

from __future__ import annotations

import asyncio

from openai_stub_server import OpenAIStubServer

from agents.base import GraphAgent
from agents.llm.backends import openai
from agents.llm.budget import RunBudget
from agents.recommenders.popularity import build as build_popularity
from agents.seekers.target_biased import SeekerContext, TalkRates, build_graph
from agents.steps.seeker.answer import SeekerAnswerStep
from agents.steps.seeker.summarize import SummarizeReviewsStep
from environments.models import Role, TerminationReason
from environments.single_target import SingleTargetSetup
from simulators.engine.runner import run_episodes


def _run(catalog, encoder, model, run_dir, budget, episodes=4):
    setup = SingleTargetSetup(catalog, target_pool_size=5)
    recommender = build_popularity(setup.recommender_catalog, llm=model)
    context = SeekerContext(SeekerAnswerStep(model, encoder=encoder), SummarizeReviewsStep(model), 3,
                            TalkRates(0.0, 0.0, 0.0))  # answers only: five calls an episode
    seeker = GraphAgent(Role.seeker, build_graph(), context, memory_keys=("facts", "stated"))
    return asyncio.run(run_episodes(setup, {"recommender": recommender, "seeker": seeker}, episodes=episodes, max_turns=2, seed=0,
                                    concurrency=1, run_dir=run_dir, config_hash="b", progress=False,
                                    budget=budget))


def test_spent_budget_ends_the_running_episode_and_starts_no_new_one(tiny_catalog, hash_encoder, tmp_path):
    with OpenAIStubServer() as stub:
        model = openai("stub-budget", base_url=stub.url, timeout=5)
        unlimited = RunBudget()
        _run(tiny_catalog, hash_encoder, model, tmp_path / "free", unlimited, episodes=1)
        per_episode = unlimited.tokens
        assert per_episode > 0 and unlimited.calls == stub.count == 5
        budget = RunBudget(max_tokens=int(per_episode * 1.5))  # runs out inside the second episode
        requests_before = stub.count
        # same settings, new event loop: the model must not reuse the first run's pooled
        # connections (a stale socket would cost a retried request and break the count below)
        model = openai("stub-budget", base_url=stub.url, timeout=5)
        summary = _run(tiny_catalog, hash_encoder, model, tmp_path / "capped", budget)
        assert budget.exhausted
    endings = [e.termination for e in summary.episodes]
    assert endings == [TerminationReason.max_turns, TerminationReason.budget]
    assert summary.not_started == 2 and "budget exhausted" in list(summary.episodes)[1].error
    assert stub.count - requests_before == budget.calls  # nothing was sent once the budget was spent
    assert summary.usage["exhausted"] and summary.usage["input_tokens"] == budget.input_tokens
    logged = sum((c.input_tokens or 0) + (c.output_tokens or 0) for e in summary.episodes for c in e.llm_calls)
    assert logged == budget.tokens  # per-episode token totals add up to the run's


def test_resume_reruns_episodes_that_ended_on_the_budget(tiny_catalog, hash_encoder, tmp_path):
    with OpenAIStubServer() as stub:
        model = openai("stub-budget-resume", base_url=stub.url, timeout=5)
        first = _run(tiny_catalog, hash_encoder, model, tmp_path, RunBudget(max_tokens=1), episodes=2)
        assert [e.termination for e in first.episodes] == [TerminationReason.budget]
        second = _run(tiny_catalog, hash_encoder, model, tmp_path, RunBudget(), episodes=2)
    assert second.ran == 2 and [e.termination for e in second.episodes] == [TerminationReason.max_turns] * 2
