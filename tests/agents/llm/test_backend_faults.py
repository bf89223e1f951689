"""What a whole episode does when the server misbehaves, for both remote backends.

Contract (DESIGN.md §2, agents/llm/structured.py): the client retries 429/5xx/timeouts
with backoff; once retries are spent the call raises, `run_structured` records it and
raises `LLMStepError`, and the step falls back to its offline implementation. The episode
never ends with `error` because of a flaky server, never hangs, and every failed request
is visible in `llm_calls` with ok=False.
"""

from __future__ import annotations

import time

import pytest

from crsim_testing import run_llm_episode
from openai_stub_server import (
    SEEKER_REPLIES,
    Reply,
    always,
    crsim_responder,
    first_n,
    malformed_body,
    rate_limited,
    server_error,
)

from agents.llm import backends
from environments.models import Role, TerminationReason

BACKENDS = ["openai", "litellm"]


def make_model(backend: str, url: str, **settings):
    if backend == "openai":
        return backends.openai("stub-model", base_url=url, **settings)
    return backends.litellm("openai/stub-model", api_base=url, retry_initial_delay=0.01, **settings)


def seeker_texts(episode) -> list[str]:
    return [t.text for t in episode.turns if t.role == Role.seeker]


@pytest.mark.parametrize("backend", BACKENDS)
def test_rate_limit_is_retried_then_the_episode_succeeds(backend, openai_stub, tiny_catalog, hash_encoder):
    openai_stub.responder = first_n(2, rate_limited(retry_after_ms=20), crsim_responder())
    model = make_model(backend, openai_stub.url, max_retries=2, timeout=5)
    episode = run_llm_episode(model, tiny_catalog, hash_encoder).episode
    assert episode.termination is TerminationReason.max_turns
    assert len(episode.llm_calls) == 5 and all(c.ok for c in episode.llm_calls)  # retries are invisible
    assert [r.status for r in openai_stub.completions].count(429) == 2 and openai_stub.count == 7
    assert all("STUB" in text for text in seeker_texts(episode))  # the model's words, none offline


@pytest.mark.parametrize("backend", BACKENDS)
def test_server_errors_exhaust_retries_then_steps_fall_back(backend, openai_stub, tiny_catalog, hash_encoder):
    openai_stub.responder = always(server_error(retry_after_ms=5))
    model = make_model(backend, openai_stub.url, max_retries=1, timeout=5)
    episode = run_llm_episode(model, tiny_catalog, hash_encoder).episode
    assert episode.termination is TerminationReason.max_turns and episode.error is None
    calls = episode.llm_calls
    assert len(calls) == 5 and not any(c.ok or c.repaired for c in calls)  # no repair for transport errors
    assert all(("Error code: 500" if backend == "openai" else "InternalServerError") in c.error
               for c in calls)
    assert openai_stub.count == 2 * len(calls)  # first try + 1 retry each
    assert all(text and "STUB" not in text for text in seeker_texts(episode))  # offline answers
    assert hash_encoder.calls > 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_timeout_is_a_failed_step_not_a_hang(backend, openai_stub, tiny_catalog, hash_encoder):
    slow = Reply(content='{"summary": "too late"}', delay=30)
    openai_stub.responder = crsim_responder({"summarize_reviews": always(slow)})
    model = make_model(backend, openai_stub.url, max_retries=0, timeout=0.3)
    started = time.monotonic()
    episode = run_llm_episode(model, tiny_catalog, hash_encoder).episode
    assert time.monotonic() - started < 8
    assert episode.termination is TerminationReason.max_turns
    failed = [c for c in episode.llm_calls if not c.ok]
    assert [c.step for c in failed] == ["summarize_reviews"] and "Timeout" in failed[0].error
    assert seeker_texts(episode) == SEEKER_REPLIES[:2]  # the other steps still used the LLM


@pytest.mark.parametrize("backend", BACKENDS)
def test_malformed_answer_is_repaired(backend, openai_stub, tiny_catalog, hash_encoder):
    broken = Reply(content="Sure! {answer: spicy")
    openai_stub.responder = crsim_responder({"seeker_answer": first_n(1, broken, crsim_responder())})
    episode = run_llm_episode(make_model(backend, openai_stub.url, timeout=5), tiny_catalog,
                              hash_encoder).episode
    answers = [c for c in episode.llm_calls if c.step == "seeker_answer"]
    assert [(c.ok, c.repaired) for c in answers] == [(False, False), (True, True), (True, False)]
    assert seeker_texts(episode) == SEEKER_REPLIES[:2]
    repair = openai_stub.completions[2].json["messages"]  # summarize, broken answer, repair
    assert repair[-2] == {"role": "assistant", "content": "Sure! {answer: spicy"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_unrepairable_answers_fall_back_with_ok_false(backend, openai_stub, tiny_catalog, hash_encoder):
    openai_stub.responder = crsim_responder({"seeker_answer": always("no json here")})
    episode = run_llm_episode(make_model(backend, openai_stub.url, timeout=5), tiny_catalog,
                              hash_encoder).episode
    answers = [c for c in episode.llm_calls if c.step == "seeker_answer"]
    assert len(answers) == 4 and not any(c.ok for c in answers)  # 2 turns x (try + repair)
    assert all(text and "STUB" not in text for text in seeker_texts(episode))
    assert episode.termination is TerminationReason.max_turns


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("content", ["", None])
def test_empty_completion_is_a_recorded_step_error(backend, content, openai_stub, tiny_catalog,
                                                   hash_encoder):
    openai_stub.responder = crsim_responder({"clarify_question": always(Reply(content=content))})
    episode = run_llm_episode(make_model(backend, openai_stub.url, timeout=5), tiny_catalog,
                              hash_encoder).episode
    clarify = [c for c in episode.llm_calls if c.step == "clarify_question"]
    assert [(c.ok, c.error) for c in clarify] == [(False, "empty completion")] * 2  # not repaired
    questions = [t.text for t in episode.turns if t.role == Role.recommender]
    assert all(q and "STUB" not in q for q in questions)  # offline questions
    assert episode.termination is TerminationReason.max_turns


@pytest.mark.parametrize("backend", BACKENDS)
def test_malformed_http_body_is_a_recorded_step_error(backend, openai_stub, tiny_catalog, hash_encoder):
    openai_stub.responder = crsim_responder({"summarize_reviews": always(malformed_body())})
    episode = run_llm_episode(make_model(backend, openai_stub.url, max_retries=0, timeout=5),
                              tiny_catalog, hash_encoder).episode
    failed = [c for c in episode.llm_calls if not c.ok]
    assert [c.step for c in failed] == ["summarize_reviews"] and failed[0].error
    assert episode.termination is TerminationReason.max_turns
