"""The per-episode call recorder."""

from __future__ import annotations

from agents.llm.recording import (
    CallRecorder,
    LLMCallRecord,
    current_recorder,
    record_call,
    recording,
    summaries,
)
from environments.models import LLMCallSummary


def make(step: str, ok: bool = True) -> LLMCallRecord:
    return LLMCallRecord(
        step=step, role="seeker", model="m", prompt_hash="abc", messages=[], ok=ok,
        error=None if ok else "bad", repaired=not ok,
    )


def test_record_call_outside_recording_is_a_noop() -> None:
    assert current_recorder() is None
    record_call(make("lost"))  # must not raise


def test_nested_recording_restores_the_outer_recorder() -> None:
    outer_rec = CallRecorder()
    with recording(outer_rec) as outer:
        assert outer is outer_rec
        record_call(make("a"))
        with recording() as inner:
            record_call(make("b"))
        record_call(make("c"))
    assert [r.step for r in outer.records] == ["a", "c"]
    assert [r.step for r in inner.records] == ["b"]
    assert current_recorder() is None


def test_recording_resets_on_exception() -> None:
    try:
        with recording():
            raise RuntimeError("episode crashed")
    except RuntimeError:
        pass
    assert current_recorder() is None


def test_summaries_match_episode_model() -> None:
    records = [make("a"), make("b", ok=False)]
    assert summaries(records) == [
        LLMCallSummary(step="a", role="seeker", prompt_hash="abc", ok=True),
        LLMCallSummary(
            step="b", role="seeker", prompt_hash="abc", ok=False, repaired=True, error="bad"
        ),
    ]


def test_record_round_trips_through_json() -> None:
    record = make("a")
    assert LLMCallRecord.model_validate_json(record.model_dump_json()) == record
