"""Provider-native structured output: what goes over the wire, and that keys stay equal."""

from __future__ import annotations

import pytest
from crsim_testing import run_llm_episode

from agents.llm import backends
from agents.llm.cache import with_cache
from agents.llm.local import llama_response_format
from agents.llm.structured import response_format_for
from agents.steps.seeker.answer import SeekerAnswer


def test_json_schema_mode_sends_the_output_models_schema():
    fmt = response_format_for("json_schema", SeekerAnswer)
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "SeekerAnswer"
    schema = fmt["json_schema"]["schema"]
    assert set(SeekerAnswer.model_fields) <= set(schema["properties"]) and "title" not in schema
    assert response_format_for("json_object", SeekerAnswer) == {"type": "json_object"}
    assert response_format_for(None, SeekerAnswer) is None
    with pytest.raises(ValueError, match="structured_output"):
        response_format_for("xml", SeekerAnswer)


def test_llama_cpp_gets_its_grammar_spelling():
    fmt = response_format_for("json_schema", SeekerAnswer)
    assert llama_response_format(fmt) == {"type": "json_object", "schema": fmt["json_schema"]["schema"]}
    assert llama_response_format({"type": "json_object"}) == {"type": "json_object"}
    assert llama_response_format(None) is None


@pytest.mark.parametrize("backend", ["openai", "litellm"])
@pytest.mark.parametrize("mode", ["json_schema", None])
def test_every_step_request_carries_the_configured_mode(openai_stub, tiny_catalog, hash_encoder, backend, mode):
    if backend == "openai":
        model = backends.openai(f"native-{mode}", base_url=openai_stub.url, timeout=5, structured_output=mode)
    else:
        model = backends.litellm(f"openai/native-{mode}", api_base=openai_stub.url, timeout=5,
                                 structured_output=mode)
    outcome = run_llm_episode(model, tiny_catalog, hash_encoder)
    bodies = [r.json for r in openai_stub.completions]
    assert len(bodies) == len(outcome.llm_calls) == 5 and all(c.ok for c in outcome.llm_calls)
    if mode is None:
        assert all("response_format" not in body for body in bodies)
        return
    names = {body["response_format"]["json_schema"]["name"] for body in bodies}
    assert names == {"SeekerReplyText", "ReviewSummary", "ClarifyingQuestion"}  # the seeker model fills only its reply
    assert all(body["response_format"]["type"] == "json_schema" for body in bodies)
    assert all(c.params.get("structured_output") == "json_schema" for c in outcome.llm_calls)


def test_the_mode_is_part_of_the_prompt_hash_and_the_cache_key(openai_stub, tiny_catalog, hash_encoder, tmp_path):
    plain = run_llm_episode(backends.openai("hash-m", base_url=openai_stub.url, timeout=5),
                            tiny_catalog, hash_encoder)
    native_model = with_cache(backends.openai("hash-m", base_url=openai_stub.url, timeout=5,
                                              structured_output="json_schema"), tmp_path / "cache")
    native = run_llm_episode(native_model, tiny_catalog, hash_encoder)
    plain_hashes = [c.prompt_hash for c in plain.llm_calls]
    native_hashes = [c.prompt_hash for c in native.llm_calls]
    assert set(plain_hashes).isdisjoint(native_hashes)  # the mode can change the answer
    sent = openai_stub.count
    again = run_llm_episode(native_model, tiny_catalog, hash_encoder)  # all from the cache...
    assert openai_stub.count == sent and all(c.cache_hit for c in again.llm_calls)
    assert [c.prompt_hash for c in again.llm_calls] == native_hashes  # ...under the logged hashes
