"""run_structured against langchain_core's fake chat models: success, repair, failure."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatResult
from pydantic import BaseModel, Field

from agents.llm.recording import (
    CallRecorder,
    LLMCallRecord,
    current_recorder,
    record_call,
    recording,
)
from agents.llm.structured import LLMFatalError, LLMStepError, build_messages, run_structured
from agents.prompts import PromptTemplate

PROMPT = PromptTemplate.from_text(
    "## system\nYou rate {noun}.\n\n## user\nRate {title}.", name="rate"
)
VARS = {"noun": "movies", "title": "Heat"}


class Rating(BaseModel):
    score: int = Field(description="1-5 stars")
    reason: str


class ScriptedModel(GenericFakeChatModel):
    """GenericFakeChatModel that also keeps the messages of every call."""

    calls: list[list[BaseMessage]] = Field(default_factory=list)
    model_name: str = "scripted-1"
    temperature: float = 0.0

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.calls.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


class BrokenModel(ScriptedModel):
    exc: Exception

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.calls.append(list(messages))
        raise self.exc


def scripted(*answers: str | AIMessage) -> ScriptedModel:
    return ScriptedModel(messages=iter(answers))


async def run(model: Any, **kwargs: Any) -> tuple[Any, CallRecorder]:
    with recording() as recorder:
        result = await run_structured(
            model, PROMPT, VARS, Rating, step="rate", role="seeker", **kwargs
        )
    return result, recorder


async def test_valid_json_first_time() -> None:
    answer = AIMessage(
        content='{"score": 4, "reason": "tense"}',
        usage_metadata={"input_tokens": 50, "output_tokens": 9, "total_tokens": 59},
    )
    model = scripted(answer)
    result, recorder = await run(model)
    assert result == Rating(score=4, reason="tense")
    assert len(model.calls) == 1
    sent = model.calls[0]
    assert isinstance(sent[0], SystemMessage) and sent[0].content == "You rate movies."
    assert len(sent) == 2
    assert sent[1].content.startswith("Rate Heat.\n\nAnswer with only a JSON object")
    assert '"score":{"description":"1-5 stars","type":"integer"}' in sent[1].content
    [rec] = recorder.records
    assert (rec.ok, rec.repaired, rec.error, rec.attempt) == (True, False, None, 0)
    assert (rec.step, rec.role, rec.model) == ("rate", "seeker", "scripted-1")
    assert (rec.input_tokens, rec.output_tokens) == (50, 9)
    assert rec.response == answer.content and rec.latency_s >= 0
    assert [m["role"] for m in rec.messages] == ["system", "user"]
    assert len(rec.prompt_hash) == 16


async def test_fenced_json_with_prose() -> None:
    model = scripted('Here you go:\n```json\n{"score": 2, "reason": "slow"}\n```\nAnything else?')
    result, recorder = await run(model)
    assert result == Rating(score=2, reason="slow")
    assert [r.ok for r in recorder.records] == [True]


async def test_content_blocks_are_accepted() -> None:
    model = scripted(AIMessage(content=[{"type": "text", "text": '{"score": 5, "reason": "x"}'}]))
    result, _ = await run(model)
    assert result.score == 5


async def test_malformed_then_repaired() -> None:
    bad = '{"score": 4, "reason": "good" "extra"}'
    model = scripted(bad, '{"score": 4, "reason": "good"}')
    result, recorder = await run(model)
    assert result == Rating(score=4, reason="good")
    assert len(model.calls) == 2
    first, second = model.calls
    assert second[: len(first)] == first
    assert isinstance(second[-2], AIMessage) and second[-2].content == bad
    repair = second[-1]
    assert isinstance(repair, HumanMessage)
    assert recorder.records[0].error in repair.content
    assert "invalid JSON: Expecting ',' delimiter" in repair.content
    assert "only the corrected JSON object" in repair.content
    calls = [(r.ok, r.repaired, r.attempt) for r in recorder.records]
    assert calls == [(False, False, 0), (True, True, 1)]
    assert recorder.records[0].prompt_hash != recorder.records[1].prompt_hash
    summaries = recorder.summaries()
    assert [(s.ok, s.repaired) for s in summaries] == [(False, False), (True, True)]
    assert summaries[0].error == recorder.records[0].error


async def test_schema_mismatch_is_repaired_naming_the_field() -> None:
    model = scripted('{"score": 4}', '{"score": 4, "reason": "ok"}')
    result, _ = await run(model)
    assert result.reason == "ok"
    assert "'reason': Field required" in model.calls[1][-1].content


async def test_a_well_formed_answer_the_check_rejects_is_repaired_with_the_checks_reason() -> None:
    model = scripted('{"score": 9, "reason": "wow"}', '{"score": 5, "reason": "wow"}')
    result, recorder = await run(model, check=lambda r: "score must be 1-5" if r.score > 5 else None)
    assert result.score == 5
    assert "score must be 1-5" in model.calls[1][-1].content
    assert [(r.ok, r.repaired, r.error) for r in recorder.records] == [
        (False, False, "score must be 1-5"), (True, True, None)]


async def test_malformed_twice_fails() -> None:
    model = scripted("I think it's a 4.", "Really, a 4!")
    with recording() as recorder:
        with pytest.raises(LLMStepError) as info:
            await run_structured(model, PROMPT, VARS, Rating, step="rate", role="seeker")
    assert info.value.step == "rate"
    assert "no JSON object found" in info.value.reason
    assert len(model.calls) == 2
    assert [(r.ok, r.repaired) for r in recorder.records] == [(False, False), (False, True)]
    assert all(r.error and "no JSON object found" in r.error for r in recorder.records)
    assert recorder.records[1].response == "Really, a 4!"


async def test_no_repair_when_disabled() -> None:
    model = scripted("nope", '{"score": 1, "reason": "never asked"}')
    with pytest.raises(LLMStepError, match="after 0 repair"):
        await run(model, repair_attempts=0)
    assert len(model.calls) == 1


async def test_empty_completion_fails_without_repair() -> None:
    model = scripted(" \n")
    with recording() as recorder:
        with pytest.raises(LLMStepError, match="empty completion"):
            await run_structured(model, PROMPT, VARS, Rating, step="rate", role="seeker")
    assert len(model.calls) == 1
    [rec] = recorder.records
    assert (rec.ok, rec.error, rec.response) == (False, "empty completion", " \n")


async def test_transport_error_is_recorded() -> None:
    model = BrokenModel(messages=iter([]), exc=ConnectionError("refused by 127.0.0.1"))
    with recording() as recorder:
        with pytest.raises(LLMStepError, match="ConnectionError: refused") as info:
            await run_structured(model, PROMPT, VARS, Rating, step="rate", role="seeker")
    assert isinstance(info.value.__cause__, ConnectionError)
    [rec] = recorder.records
    assert rec.ok is False and rec.response is None
    assert rec.error == "ConnectionError: refused by 127.0.0.1"


async def test_fatal_backend_errors_propagate() -> None:
    class BudgetSpent(LLMFatalError):
        pass

    model = BrokenModel(messages=iter([]), exc=BudgetSpent("token budget spent"))
    with recording() as recorder:
        with pytest.raises(BudgetSpent):
            await run_structured(model, PROMPT, VARS, Rating, step="rate", role="seeker")
    assert recorder.records[0].error == "BudgetSpent: token budget spent"


async def test_works_without_a_recorder() -> None:
    assert current_recorder() is None
    model = scripted('{"score": 3, "reason": "fine"}')
    result = await run_structured(model, PROMPT, VARS, Rating, step="rate", role="seeker")
    assert result.score == 3


def test_instruction_gets_its_own_message_when_prompt_ends_with_assistant() -> None:
    prompt = PromptTemplate.from_text("## user\nq\n## assistant\n{{")
    messages = build_messages(prompt, {}, Rating)
    assert [type(m) for m in messages] == [HumanMessage, AIMessage, HumanMessage]
    assert messages[0].content == "q"


async def test_recorders_are_isolated_between_concurrent_episodes() -> None:
    async def episode(name: str) -> CallRecorder:
        model = scripted(*[f'{{"score": {i}, "reason": "{name}"}}' for i in range(1, 4)])
        with recording() as recorder:
            for _ in range(3):
                await run_structured(model, PROMPT, VARS, Rating, step=name, role="seeker")
                await asyncio.sleep(0)  # let the other episode run in between
            # a task spawned by the episode records into the episode's recorder
            await asyncio.create_task(_record_marker(name))
        return recorder

    with recording() as outer:
        a, b = await asyncio.gather(episode("a"), episode("b"))
    assert [r.step for r in a.records] == ["a"] * 4
    assert [r.step for r in b.records] == ["b"] * 4
    expected = [f'{{"score": {i}, "reason": "a"}}' for i in (1, 2, 3)]
    assert [r.response for r in a.records[:3]] == expected
    assert outer.records == []
    assert current_recorder() is None


async def _record_marker(step: str) -> None:
    record = LLMCallRecord(step=step, role="x", model="m", prompt_hash="0", messages=[], ok=True)
    record_call(record)


def test_a_models_docstring_stays_out_of_the_schema_the_model_reads():
    from pydantic import BaseModel, Field

    from agents.llm.structured import json_instruction, response_format_for

    class Inner(BaseModel):
        """Developer notes on the inner model."""

        name: str = Field(description="The name, as given.")

    class Answer(BaseModel):
        """Developer notes: why this model is capped."""

        reply: str = Field(max_length=40, description="The user's next message.")
        inner: list[Inner] = Field(default_factory=list)

    text = json_instruction(Answer)
    assert "Developer notes" not in text
    assert "The user's next message." in text and "The name, as given." in text and '"maxLength":40' in text
    assert "Developer notes" not in str(response_format_for("json_schema", Answer))


class CappedModel(ScriptedModel):
    """A scripted model with a `max_tokens` cap; keeps each call's per-call arguments."""

    max_tokens: int | None = 256
    call_kwargs: list[dict[str, Any]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.call_kwargs.append(dict(kwargs))
        return super()._generate(messages, *args, **kwargs)


@pytest.mark.parametrize(("cap", "needed", "sent"), [(256, 1024, 1024), (256, 100, None), (None, 1024, None)])
async def test_a_step_completion_budget_raises_only_a_lower_cap(cap: int | None, needed: int,
                                                                 sent: int | None) -> None:
    model = CappedModel(messages=iter(['{"score": 3, "reason": "ok"}']), max_tokens=cap)
    _, recorder = await run(model, completion_tokens=needed)
    assert model.call_kwargs[0].get("max_tokens") == sent
    [rec] = recorder.records
    assert rec.params.get("max_tokens") == (sent or cap)  # hashed as sent
