"""401/403/404 mean a wrong key, permission or model name: the episode ends, it does not
quietly carry on offline (every later call would fail the same way)."""

from __future__ import annotations

import json

import pytest
from crsim_testing import run_llm_episode
from openai_stub_server import OpenAIStubServer, Reply

from agents.llm.backends import litellm, openai
from environments.models import TerminationReason


def _refusing(status: int):
    body = {"error": {"message": f"refused with {status}", "type": "invalid_request_error", "code": str(status)}}
    return lambda request: Reply(status=status, body=body)


@pytest.mark.parametrize("status", [401, 403, 404])
@pytest.mark.parametrize("backend", ["openai", "litellm"])
def test_misconfiguration_ends_the_episode_with_an_error(status, backend, tiny_catalog, hash_encoder):
    with OpenAIStubServer(_refusing(status)) as stub:
        if backend == "openai":
            model = openai("stub-config", base_url=stub.url, timeout=5, max_retries=2)
        else:
            model = litellm("openai/stub-config", api_base=stub.url, timeout=5, max_retries=2)
        outcome = run_llm_episode(model, tiny_catalog, hash_encoder)
        requests = stub.count
    episode = outcome.episode
    assert episode.termination is TerminationReason.error
    assert "LLMConfigError" in episode.error and str(status) in episode.error
    assert requests == 1  # not retried, and no further step tried after it
    assert hash_encoder.calls == 0  # no silent offline fallback
    assert json.dumps(episode.model_dump(mode="json"))  # the episode is still logged whole
