"""The replay backend: recorded llm_calls.jsonl answers, served by prompt hash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from crsim_testing import ScriptedChatModel, run_llm_episode
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel

from agents.llm.hashing import model_name_of, model_params
from agents.llm.recording import LLMCallRecord, recording
from agents.llm.replay import ReplayChatModel, ReplayMissError, replay
from agents.llm.structured import LLMFatalError, run_structured
from agents.prompts import PromptTemplate
from environments.models import TerminationReason
from simulators.engine.logs import LLM_CALLS_FILE
from simulators.engine.outcomes import RunLogs

CONF = Path(__file__).resolve().parents[3] / "conf"
PROMPT = PromptTemplate.from_text("## system\nYou rate {noun}.\n\n## user\nRate {title}.", name="rate")


class Rating(BaseModel):
    score: int
    reason: str


class Recorded(GenericFakeChatModel):
    model_name: str = "rec-1"
    temperature: float = 0.2


def write_calls(path: Path, records: list[LLMCallRecord], episode_id: str = "e0") -> Path:
    """As `RunLogs` writes them: one JSON line per call with the episode id in front."""
    with path.open("a", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps({"episode_id": episode_id, **record.model_dump(mode="json")}) + "\n")
    return path


async def rate(model: Any, title: str) -> tuple[Rating, list[LLMCallRecord]]:
    with recording() as recorder:
        result = await run_structured(model, PROMPT, {"noun": "movies", "title": title}, Rating,
                                      step="rate", role="seeker")
    return result, recorder.records


async def recorded_run(tmp_path: Path) -> tuple[list[Rating], list[LLMCallRecord], Path]:
    """Two steps, the second repaired once; all calls written to llm_calls.jsonl."""
    model = Recorded(messages=iter([
        AIMessage(content='{"score": 4, "reason": "tense"}',
                  usage_metadata={"input_tokens": 11, "output_tokens": 5, "total_tokens": 16}),
        AIMessage(content="not json at all"),
        AIMessage(content='{"score": 2, "reason": "slow"}'),
    ]))
    first, calls_a = await rate(model, "Heat")
    second, calls_b = await rate(model, "Ronin")
    records = calls_a + calls_b
    return [first, second], records, write_calls(tmp_path / LLM_CALLS_FILE, records)


async def test_replayed_calls_give_identical_outputs_and_hashes(tmp_path: Path) -> None:
    outputs, records, path = await recorded_run(tmp_path)
    assert [r.ok for r in records] == [True, False, True]  # the repair is in the recording too
    model = replay(str(path), model="rec-1", params={"temperature": 0.2})
    assert len(model) == 3 and model_name_of(model) == "rec-1"
    assert model_params(model) == {"temperature": 0.2}
    again = [await rate(model, "Heat"), await rate(model, "Ronin")]
    assert [result for result, _ in again] == outputs
    replayed = again[0][1] + again[1][1]
    assert [r.prompt_hash for r in replayed] == [r.prompt_hash for r in records]
    assert [r.response for r in replayed] == [r.response for r in records]
    assert (replayed[0].input_tokens, replayed[0].output_tokens) == (11, 5)


async def test_miss_raises_with_prompt_and_hash(tmp_path: Path) -> None:
    _, _, path = await recorded_run(tmp_path)
    model = replay([str(path)], model="rec-1", params={"temperature": 0.2})
    with pytest.raises(ReplayMissError, match="Rate Casino") as caught:
        await model.ainvoke([HumanMessage(content="Rate Casino. " + "x" * 500)])
    assert caught.value.key in str(caught.value) and len(str(caught.value)) < 400
    assert "check the config" not in str(caught.value)
    with pytest.raises(ReplayMissError):  # an LLMFatalError: the step does not fall back quietly
        await rate(model, "Casino")
    assert issubclass(ReplayMissError, LLMFatalError)


async def test_wrong_params_miss_and_say_so(tmp_path: Path) -> None:
    _, _, path = await recorded_run(tmp_path)
    model = replay(str(path), model="rec-1")  # recording had temperature 0.2
    with pytest.raises(ReplayMissError, match="check the config"):
        await rate(model, "Heat")


async def test_fallthrough_answers_misses_only(tmp_path: Path) -> None:
    outputs, _, path = await recorded_run(tmp_path)
    backup = Recorded(messages=iter([AIMessage(content='{"score": 5, "reason": "classic"}')]))
    model = replay(str(path), model="rec-1", params={"temperature": 0.2}, fallthrough=backup)
    assert (await rate(model, "Heat"))[0] == outputs[0]
    assert (await rate(model, "Casino"))[0] == Rating(score=5, reason="classic")
    assert (await rate(model, "Heat"))[0] == outputs[0]  # the backup has no answers left


def test_only_answered_records_are_served_first_ok_wins(tmp_path: Path) -> None:
    base = {"step": "s", "role": "r", "model": "m", "messages": [{"role": "user", "content": "q"}]}
    lines = [
        {**base, "prompt_hash": "h1", "response": None, "ok": False, "error": "Timeout"},
        {**base, "prompt_hash": "h2", "response": "", "ok": False, "error": "empty completion"},
        {**base, "prompt_hash": "h3", "response": "garbage", "ok": False},
        {**base, "prompt_hash": "h3", "response": "good", "ok": True},
        {**base, "prompt_hash": "h3", "response": "later", "ok": True},
    ]
    path = tmp_path / LLM_CALLS_FILE
    path.write_text("".join(json.dumps({"episode_id": "e", **line}) + "\n" for line in lines) + "\n")
    model = ReplayChatModel(paths=[str(path)], model_name="m")
    assert model._responses["h3"]["response"] == "good"
    assert model._responses["h2"]["response"] == ""  # an empty completion replays as one
    assert model._responses["h1"]["error"] == "Timeout"  # a failed request replays as a failure


def test_a_recorded_transport_failure_replays_as_the_same_fallback(tiny_catalog: Any, hash_encoder: Any,
                                                                    tmp_path: Path) -> None:
    """Calls that failed in the recording (here: every one, HTTP 500) fail again on replay, so
    the steps fall back exactly as they did and the transcript is the same."""
    from openai_stub_server import OpenAIStubServer, always, server_error

    from agents.llm.backends import openai

    with OpenAIStubServer(always(server_error(retry_after_ms=None))) as stub:
        recorded = run_llm_episode(openai("failing", base_url=stub.url, timeout=5, max_retries=0),
                                   tiny_catalog, hash_encoder)
    assert recorded.llm_calls and all(c.response is None and c.error for c in recorded.llm_calls)
    path = tmp_path / LLM_CALLS_FILE
    path.write_text("".join(json.dumps({"episode_id": "e", **c.model_dump(mode="json")}) + "\n"
                            for c in recorded.llm_calls))
    replayed = run_llm_episode(replay(str(path), model="failing", params=recorded.llm_calls[0].params),
                               tiny_catalog, hash_encoder)
    assert replayed.episode.error is None
    assert [t.text for t in replayed.episode.turns] == [t.text for t in recorded.episode.turns]
    assert [c.prompt_hash for c in replayed.llm_calls] == [c.prompt_hash for c in recorded.llm_calls]
    assert all("replayed failure" in c.error for c in replayed.llm_calls)


def test_config_group_instantiates(tmp_path: Path) -> None:
    from hydra import compose, initialize_config_dir
    from hydra.utils import instantiate

    path = tmp_path / LLM_CALLS_FILE
    path.write_text("")
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose("config", overrides=[
            "llm@seeker.llm=replay", f"seeker.llm.path=[{path},{path}]", "seeker.llm.model=gpt-x",
            "seeker.llm.params={temperature: 0.0, seed: 7}"])
    model = instantiate(cfg.seeker.llm)
    assert isinstance(model, ReplayChatModel) and model.paths == [str(path), str(path)]
    assert model_params(model) == {"temperature": 0.0, "seed": 7} and model.fallthrough is None


@pytest.mark.parametrize("broken_seeker", [False, True])
def test_episode_replays_to_an_identical_transcript(tiny_catalog: Any, hash_encoder: Any,
                                                    tmp_path: Path, broken_seeker: bool) -> None:
    scripted = ScriptedChatModel(broken_seeker=broken_seeker, prompts=[])
    original = run_llm_episode(scripted, tiny_catalog, hash_encoder)
    RunLogs(tmp_path).write(original)  # llm_calls.jsonl exactly as the runner writes it
    recorded_calls = scripted.calls
    replayed = run_llm_episode(replay(str(tmp_path / LLM_CALLS_FILE), model="ScriptedChatModel"),
                               tiny_catalog, hash_encoder)
    assert scripted.calls == recorded_calls > 0  # the scripted model was not asked again
    first, second = original.episode, replayed.episode
    assert second.termination is TerminationReason.max_turns and second.error is None
    assert [t.text for t in second.turns] == [t.text for t in first.turns]
    assert [c.prompt_hash for c in second.llm_calls] == [c.prompt_hash for c in first.llm_calls]
    assert any(not c.ok for c in first.llm_calls) is broken_seeker
