"""The `replay` backend: answer from recorded `llm_calls.jsonl` files instead of a model.

Re-executing a logged run with it checks that the simulation is deterministic given the
model's answers (DESIGN.md §4), and lets one side of a dialogue be re-run against the
other's recorded turns at no cost.

Answers are looked up by the recorded `prompt_hash`, and the incoming request is hashed
with the model name and parameters this backend is configured with; they must be those of
the recording (records written since `LLMCallRecord.params` exists carry them, so a later
change can default the configuration from the file). The backend also reports that name and those parameters as its own, so the
re-run's log carries the same prompt hashes as the original. At load time each record's
hash is recomputed from its messages: if none matches, the configuration is wrong, and a
miss says so.

A miss raises `ReplayMissError`, an `LLMFatalError`: the language step does not quietly
fall back to its offline implementation, the episode ends with an error instead (a
diverged replay must be visible). Give `fallthrough` (another chat model) to have misses
answered by it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr

from agents.llm.wrapping import forward_generation_params
from agents.llm.hashing import DERIVED_REQUEST_ARGS, message_dicts, prompt_hash
from agents.llm.parsing import content_to_text
from agents.llm.errors import LLMFatalError

PROMPT_PREVIEW_CHARS = 200
REPLAY_KEY = "crsim_replay"  # in response_metadata: True when served from the recording


class ReplayMissError(LLMFatalError):
    """No recorded answer for this request (the replay diverged from the recording)."""

    def __init__(self, key: str, prompt: str, hint: str = "") -> None:
        preview = prompt[:PROMPT_PREVIEW_CHARS] + ("..." if len(prompt) > PROMPT_PREVIEW_CHARS else "")
        super().__init__(f"no recorded response for prompt hash {key}: {preview!r}{hint}")
        self.key = key
        self.prompt = prompt


class RecordedCallError(RuntimeError):
    """The recorded call failed (timeout, 5xx, ...): the replay fails it the same way, so the
    step takes the same fallback it took in the recording."""


def load_responses(paths: Sequence[str | Path]) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """(prompt hash -> record to serve, all servable records) from `llm_calls.jsonl` files.

    Servable: an answer came back, even an unusable one (a failed parse did get an answer,
    and replaying it replays the repair that followed; an empty completion replays as one).
    A request that got no answer at all (transport error) is kept too, as a failure to
    replay, but only for hashes that never got an answer. For one hash the first ok record
    wins, else the first answered one, else the first failure.
    """
    chosen: dict[str, dict[str, Any]] = {}
    servable: list[dict[str, Any]] = []
    for path in paths:
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line) if line.strip() else None
                if not record:
                    continue
                answered = record.get("response") is not None
                if answered:
                    servable.append(record)
                elif not record.get("error"):
                    continue
                held = chosen.get(record["prompt_hash"])
                if held is None or _rank(record) > _rank(held):
                    chosen[record["prompt_hash"]] = record
    return chosen, servable


def _rank(record: Mapping[str, Any]) -> int:
    """Which of two records for one prompt to serve: ok > answered > failed."""
    if record.get("response") is None:
        return 0
    return 2 if record.get("ok") else 1


class ReplayChatModel(BaseChatModel):
    """Serves recorded answers by prompt hash; see the module docstring."""

    model_config = ConfigDict(protected_namespaces=())  # `model_name` is a field here
    paths: list[str]
    model_name: str = Field(description="Model name of the recording (goes into the hash).")
    params: dict[str, Any] = Field(default_factory=dict, description="Its generation params.")
    fallthrough: BaseChatModel | None = None
    _responses: dict[str, dict[str, Any]] = PrivateAttr(default_factory=dict)
    _verified: int = PrivateAttr(default=0)
    _servable: int = PrivateAttr(default=0)

    def model_post_init(self, context: Any) -> None:
        self._responses, servable = load_responses(self.paths)
        self._servable = len(servable)
        self._verified = sum(
            1 for r in servable if prompt_hash(self.model_name, _pairs(r), self.params) == r["prompt_hash"]
        )

    @property
    def _llm_type(self) -> str:
        return "crsim-replay"

    def __len__(self) -> int:
        return len(self._responses)

    def key(self, messages: Sequence[BaseMessage], **kwargs: Any) -> str:
        """The prompt hash; per-call arguments (a step's completion budget) join the params,
        as in the response cache, except those derived from what is hashed already."""
        extra = {k: v for k, v in kwargs.items() if k not in DERIVED_REQUEST_ARGS}
        return prompt_hash(self.model_name, messages, {**self.params, **extra})

    def _lookup(self, messages: list[BaseMessage], **kwargs: Any) -> ChatResult | None:
        key = self.key(messages, **kwargs)
        record = self._responses.get(key)
        if record is not None and record.get("response") is None:
            raise RecordedCallError(f"replayed failure of the recorded call: {record.get('error')}")
        if record is not None:
            return _result(record, self.model_name)
        if self.fallthrough is None:
            raise ReplayMissError(key, _last_user_text(messages), self._hint())
        return None

    def _hint(self) -> str:
        if self._servable and not self._verified:
            return (f" (none of the {self._servable} recorded prompts hashes to its recorded hash "
                    f"with model {self.model_name!r} and params {self.params}: check the config)")
        return ""

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        found = self._lookup(messages, **kwargs)
        if found is not None:
            return found
        answer = self.fallthrough.invoke(messages, stop=stop, **kwargs)  # type: ignore[union-attr]
        return ChatResult(generations=[ChatGeneration(message=answer)])

    async def _agenerate(self, messages: list[BaseMessage], stop: Any = None,
                         run_manager: Any = None, **kwargs: Any) -> ChatResult:
        found = self._lookup(messages, **kwargs)
        if found is not None:
            return found
        answer = await self.fallthrough.ainvoke(messages, stop=stop, **kwargs)  # type: ignore[union-attr]
        return ChatResult(generations=[ChatGeneration(message=answer)])


forward_generation_params(ReplayChatModel, lambda self: self.params)


def _pairs(record: Mapping[str, Any]) -> list[tuple[str, Any]]:
    return [(m["role"], m["content"]) for m in record.get("messages", [])]


def _last_user_text(messages: Sequence[BaseMessage]) -> str:
    dicts = message_dicts(messages)
    users = [m for m in dicts if m["role"] == "user"] or dicts
    return content_to_text(users[-1]["content"]) if users else ""


def _result(record: Mapping[str, Any], model: str) -> ChatResult:
    usage = None
    if record.get("input_tokens") is not None and record.get("output_tokens") is not None:
        tokens_in, tokens_out = int(record["input_tokens"]), int(record["output_tokens"])
        usage = {"input_tokens": tokens_in, "output_tokens": tokens_out,
                 "total_tokens": tokens_in + tokens_out}
    message = AIMessage(content=record["response"], usage_metadata=usage,
                        response_metadata={REPLAY_KEY: True, "model_name": model})
    return ChatResult(generations=[ChatGeneration(message=message)])


def replay(path: str | Sequence[str], model: str, params: Mapping[str, Any] | None = None,
           fallthrough: Any | None = None) -> ReplayChatModel:
    """`llm=replay`: a `ReplayChatModel` over one or more `llm_calls.jsonl` files."""
    paths = [str(path)] if isinstance(path, str | Path) else [str(p) for p in path]
    return ReplayChatModel(paths=paths, model_name=model, params=dict(params or {}),
                           fallthrough=fallthrough)
