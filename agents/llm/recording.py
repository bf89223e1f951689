"""Per-episode record of every language-model call.

Language steps run deep inside agent graphs, and many episodes run concurrently in one
event loop, so calls cannot be collected by passing a list around or through a global.
A `contextvars.ContextVar` gives each episode its own recorder: the runner wraps an
episode in `with recording(CallRecorder()):`, and because asyncio copies the context
into every task it creates, all calls made by that episode (including from tasks it
spawns) land in its recorder and in no other. Outside a recording block, `record_call`
does nothing, so steps can be called from tests or notebooks without setup.

The full records (prompt, response, tokens, latency) go to `llm_calls.jsonl`; the
episode log keeps only `LLMCallSummary`s so that it stays small and deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from environments.models import LLMCallSummary


class LLMCallRecord(BaseModel):
    """One request to a chat model and what came of it (a repair is its own record)."""

    model_config = ConfigDict(extra="forbid")

    step: str = Field(description="Language step, e.g. 'seeker_answer'.")
    role: str = Field(description="Agent role that made the call.")
    model: str = Field(description="Model name as reported by the chat model.")
    prompt_hash: str = Field(description="Hash of model, messages and parameters.")
    messages: list[dict[str, Any]] = Field(description="Messages sent: [{role, content}].")
    response: str | None = Field(default=None, description="Answer text; None if none came.")
    ok: bool = Field(description="Whether this answer parsed into the output model.")
    repaired: bool = Field(default=False, description="Whether this call was a repair attempt.")
    error: str | None = Field(default=None, description="Parse/transport error, if any.")
    attempt: int = Field(default=0, description="0 for the first call, n for the n-th repair.")
    latency_s: float = Field(default=0.0, description="Wall-clock seconds of the call.")
    input_tokens: int | None = Field(default=None, description="Prompt tokens, if reported.")
    output_tokens: int | None = Field(default=None, description="Completion tokens, if reported.")
    params: dict[str, Any] = Field(default_factory=dict, description="Generation parameters in the hash.")
    cache_hit: bool = Field(default=False, description="Served from the response cache, not the model.")
    generation_s: float | None = Field(default=None, description="Seconds the model took to write the answer; on "
                                       "a cache hit, when it was first written (None: not known).")
    cost_usd: float | None = Field(default=None, description="USD from litellm's price table; None if unpriced.")

    def summary(self) -> LLMCallSummary:
        return LLMCallSummary(
            step=self.step,
            role=self.role,
            prompt_hash=self.prompt_hash,
            ok=self.ok,
            repaired=self.repaired,
            error=self.error,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cache_hit=self.cache_hit,
            cost_usd=self.cost_usd,
        )


class CallRecorder:
    """Collects the `LLMCallRecord`s of one episode, in call order."""

    def __init__(self) -> None:
        self.records: list[LLMCallRecord] = []

    def add(self, record: LLMCallRecord) -> None:
        self.records.append(record)

    def summaries(self) -> list[LLMCallSummary]:
        return summaries(self.records)

    def __len__(self) -> int:
        return len(self.records)


_current: ContextVar[CallRecorder | None] = ContextVar("crsim_llm_recorder", default=None)


def current_recorder() -> CallRecorder | None:
    """The recorder of the episode running in this context, if any."""
    return _current.get()


@contextmanager
def recording(recorder: CallRecorder | None = None) -> Iterator[CallRecorder]:
    """Make `recorder` (a new one if None) the current recorder inside the block.

    Enter and leave the block in the same task: a ContextVar token cannot be reset
    from another context.
    """
    recorder = recorder if recorder is not None else CallRecorder()
    token = _current.set(recorder)
    try:
        yield recorder
    finally:
        _current.reset(token)


def record_call(record: LLMCallRecord) -> None:
    """Append `record` to the current recorder; a no-op outside `recording()`."""
    recorder = _current.get()
    if recorder is not None:
        recorder.add(record)


def summaries(records: Iterable[LLMCallRecord]) -> list[LLMCallSummary]:
    """The episode-log view of `records`, in the same order."""
    return [record.summary() for record in records]
