"""`llm=litellm`: our LiteLLMChat through litellm to the OpenAI-API stub on 127.0.0.1."""

from __future__ import annotations

import asyncio
import os

import pytest
from crsim_testing import run_llm_episode
from openai_stub_server import SCRIPTED

from agents.llm import backends
from agents.llm.backends import NO_KEY, MissingAPIKeyError
from environments.models import Role, TerminationReason


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "HOSTED_VLLM_API_KEY", "MY_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_factory_is_lazy_and_needs_no_key_for_a_local_server():
    model = backends.litellm("hosted_vllm/x", api_base="http://127.0.0.1:8000/v1", max_retries=3,
                             top_p=0.5)
    assert model.api_key.get_secret_value() == NO_KEY and NO_KEY not in repr(model)
    assert (model.max_retries, model.model_kwargs) == (3, {"top_p": 0.5})
    assert os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP") == "True"


def test_named_key_env_var_must_be_set_for_a_hosted_api(monkeypatch):
    with pytest.raises(MissingAPIKeyError, match="MY_KEY"):
        backends.litellm("anthropic/claude-x", api_key_env="MY_KEY")
    monkeypatch.setenv("MY_KEY", "sk-ant-test")
    model = backends.litellm("anthropic/claude-x", api_key_env="MY_KEY")
    assert model.api_key.get_secret_value() == "sk-ant-test" and "sk-ant-test" not in repr(model)
    assert backends.litellm("anthropic/claude-x").api_key is None  # litellm reads its own env var


def test_full_episode_runs_every_step_through_litellm(openai_stub, tiny_catalog, hash_encoder):
    model = backends.litellm("openai/stub-model", api_base=openai_stub.url, timeout=5, seed=3)
    outcome = run_llm_episode(model, tiny_catalog, hash_encoder)
    episode = outcome.episode
    assert episode.termination is TerminationReason.max_turns and episode.error is None
    assert len(episode.llm_calls) == 5 and all(c.ok for c in episode.llm_calls)
    assert openai_stub.count == 5
    texts = {t.role: t.text for t in episode.turns[1:3]}
    assert texts[Role.seeker] == SCRIPTED["seeker_answer"]["answer"]
    assert texts[Role.recommender] == SCRIPTED["clarify_question"]["question"]
    assert all(r.input_tokens and r.output_tokens for r in outcome.llm_calls)
    assert {r.model for r in outcome.llm_calls} == {"openai/stub-model"}
    body = openai_stub.completions[0].json
    assert (body["model"], body["temperature"], body["seed"]) == ("stub-model", 0.0, 3)


def test_hosted_vllm_provider_prefix(openai_stub):
    model = backends.litellm("hosted_vllm/stub-model", api_base=openai_stub.url, timeout=5)
    answer = asyncio.run(model.ainvoke([("system", "You summarise customer reviews."), ("user", "hi")]))
    assert answer.content == '{"summary": "STUB: reviewers loved the food."}'
    assert answer.usage_metadata["input_tokens"] > 0
    assert openai_stub.completions[0].json["model"] == "stub-model"


def test_sync_invoke_works_too(openai_stub):
    model = backends.litellm("openai/stub-model", api_base=openai_stub.url, timeout=5)
    assert "STUB" in model.invoke("hello").content
