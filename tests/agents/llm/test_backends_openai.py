"""`llm=openai`: ChatOpenAI against the OpenAI-API stub server on 127.0.0.1 (no network)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from langchain_openai import ChatOpenAI
import pytest
from crsim_testing import run_llm_episode
from openai_stub_server import SCRIPTED, SINGLE_TARGET_STEPS

from agents.llm import backends
from agents.llm.backends import NO_KEY, MissingAPIKeyError
from environments.models import Role, TerminationReason

CONF = Path(__file__).resolve().parents[3] / "conf"


@pytest.fixture(autouse=True)
def no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "MY_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_local_server_needs_no_key():
    model = backends.openai("stub-model", base_url="http://127.0.0.1:8000/v1", timeout=5, max_retries=1)
    assert model.openai_api_key.get_secret_value() == NO_KEY
    assert (model.model_name, model.request_timeout, model.max_retries) == ("stub-model", httpx.Timeout(5), 1)


def test_key_comes_from_the_named_env_var(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-from-env")
    model = backends.openai("gpt-x", api_key_env="MY_KEY")
    assert model.openai_api_key.get_secret_value() == "sk-from-env"
    assert "sk-from-env" not in repr(model)


def test_api_key_env_null_never_sends_a_real_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real")
    model = backends.openai("m", base_url="http://127.0.0.1:1/v1", api_key_env=None)
    assert model.openai_api_key.get_secret_value() == NO_KEY


@pytest.mark.parametrize("base_url", [None, "https://api.openai.com/v1"])
def test_openai_api_without_key_is_a_clear_error(base_url):
    with pytest.raises(MissingAPIKeyError, match="OPENAI_API_KEY"):
        backends.openai("gpt-4o-mini", base_url=base_url)
    with pytest.raises(MissingAPIKeyError, match="MY_KEY"):
        backends.openai("gpt-4o-mini", base_url=base_url, api_key_env="MY_KEY")


def test_config_group_instantiates(openai_stub):
    from hydra import compose, initialize_config_dir
    from hydra.utils import instantiate

    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose("config", overrides=[
            "llm@seeker.llm=openai", f"seeker.llm.base_url={openai_stub.url}",
            "seeker.llm.model=stub-model", "+seeker.llm.top_p=0.5"])
    cached = instantiate(cfg.seeker.llm)
    assert type(cached).__name__ == "CachedChatModel"  # the configs switch the response cache on
    assert type(cached.inner).__name__ == "LimitedChatModel" and cached.inner.max_concurrency == 32
    model = cached.inner.inner
    assert isinstance(model, ChatOpenAI) and (model.model_name, model.top_p) == ("stub-model", 0.5)
    assert model.structured_output == "json_object"
    assert model.openai_api_base == openai_stub.url


def test_full_episode_runs_every_step_through_the_server(openai_stub, tiny_catalog, hash_encoder):
    model = backends.openai("stub-model", base_url=openai_stub.url, timeout=5, seed=7)
    outcome = run_llm_episode(model, tiny_catalog, hash_encoder)
    episode = outcome.episode
    assert episode.termination is TerminationReason.max_turns and episode.error is None
    steps = [c.step for c in episode.llm_calls]
    assert sorted(set(steps)) == sorted(SINGLE_TARGET_STEPS) and len(steps) == 5
    # no offline fallback (the encoder may run: the seeker plans what to say offline, the model words it)
    assert all(c.ok for c in episode.llm_calls)
    assert openai_stub.count == len(steps)
    texts = {t.role: t.text for t in episode.turns[1:3]}
    assert texts[Role.seeker] == SCRIPTED["seeker_answer"]["answer"]
    assert texts[Role.recommender] == SCRIPTED["clarify_question"]["question"]
    assert all(r.input_tokens and r.output_tokens and r.model == "stub-model" for r in outcome.llm_calls)
    body = openai_stub.completions[0].json
    assert (body["model"], body["temperature"], body["seed"]) == ("stub-model", 0.0, 7)
    assert json.loads(outcome.llm_calls[0].response) in SCRIPTED.values()
