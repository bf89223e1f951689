"""Run one LLM-backed language step: prompt in, validated pydantic object out.

The contract (DESIGN.md §2): parse tolerantly, allow one repair retry, then fail loudly.
`run_structured` never returns a made-up or empty answer; it raises `LLMStepError`, and
the step's caller falls back to the offline implementation while the episode log shows
the failure. Every request, repairs included, is recorded (`recording.record_call`) with
its prompt hash, latency and token usage.

Provider-native structured output: a backend configured with `structured_output:
json_schema` (or `json_object`) gets an OpenAI-style `response_format` with every request
(`response_format_for`), so servers that constrain decoding (OpenAI, vLLM, llama.cpp,
Ollama) answer with valid JSON; the tolerant parser and the repair stay as the safety net
for servers that ignore it. The prompt still carries the JSON instruction (and with it
the schema), so a backend with no native mode gets the same request text, and the
`response_format` is a function of what is already hashed: the `structured_output`
parameter and the messages. It is therefore left out of the prompt hash, and the response
cache and `replay` leave it out of theirs (`DERIVED_REQUEST_ARGS`), so the three keys stay
equal and the log does not repeat the schema in every record.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel

from agents.llm.errors import LLMConfigError, LLMFatalError, LLMStepError
from agents.llm.hashing import message_dicts, model_name_of, model_params, prompt_hash
from agents.llm.parsing import OutputParseError, content_to_text, parse_model
from agents.llm.recording import LLMCallRecord, record_call
from agents.prompts import PromptTemplate
from environments.errors import causes

__all__ = ["LLMConfigError", "LLMFatalError", "LLMStepError", "build_messages", "run_structured"]

M = TypeVar("M", bound=BaseModel)


REPAIR_INSTRUCTION = (
    "Your previous answer could not be used: {error}. Answer again with only the "
    "corrected JSON object, matching the schema above, and no other text."
)


CONFIG_STATUS = frozenset({401, 403, 404})


def http_status(exc: BaseException) -> int | None:
    """The HTTP status behind an exception, looking through wrappers (langchain-openai
    wraps the openai SDK's errors; litellm maps providers' errors to its own)."""
    for cause in causes(exc):
        status = getattr(cause, "status_code", None)
        if isinstance(status, int):
            return status
    return None


def model_schema(output_model: type[BaseModel]) -> dict[str, Any]:
    """The schema a model is shown: field descriptions kept, pydantic's titles and the
    models' own descriptions (class docstrings, written for developers) dropped: a 1.5B model
    copied a docstring into its answer ("The model fills: no `weights` ...")."""
    schema = output_model.model_json_schema()
    schema.pop("description", None)
    for definition in schema.get("$defs", {}).values():
        definition.pop("description", None)
    return _strip_titles(schema)


@lru_cache(maxsize=256)
def json_instruction(output_model: type[BaseModel]) -> str:
    """The request for a bare JSON object, with the output model's compact schema."""
    schema = json.dumps(
        model_schema(output_model),
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return (
        "Answer with only a JSON object that conforms to this JSON schema, "
        f"with no other text before or after it:\n{schema}"
    )


STRUCTURED_OUTPUT_MODES = ("json_schema", "json_object")


@lru_cache(maxsize=256)
def response_format_for(mode: str | None, output_model: type[BaseModel]) -> dict[str, Any] | None:
    """The OpenAI-style `response_format` for a backend's `structured_output` mode.

    `json_schema` sends the output model's schema (non-strict: OpenAI's strict mode
    rejects optional fields with defaults, which step models have); `json_object` only
    asks for some JSON object; None sends nothing. Cached: the same object goes out with
    every request of a step (nothing downstream mutates it).
    """
    if mode is None:
        return None
    if mode == "json_object":
        return {"type": "json_object"}
    if mode == "json_schema":
        schema = model_schema(output_model)
        return {"type": "json_schema",
                "json_schema": {"name": output_model.__name__, "schema": schema, "strict": False}}
    raise ValueError(f"structured_output must be one of {STRUCTURED_OUTPUT_MODES} or null, got {mode!r}")


def _strip_titles(node: Any, in_properties: bool = False) -> Any:
    """Drop pydantic's auto 'title' keywords (tokens the model does not need).

    Keys of a `properties`/`$defs` mapping are names, so a field called `title` is kept;
    values under `default`/`const`/`enum`/`examples` are data and are left alone.
    """
    if isinstance(node, list):
        return [_strip_titles(value) for value in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if in_properties:
            out[key] = _strip_titles(value)
        elif key in _DATA_KEYWORDS:
            out[key] = value
        elif key != "title":
            out[key] = _strip_titles(value, in_properties=key in ("properties", "$defs"))
    return out


_DATA_KEYWORDS = frozenset({"default", "const", "enum", "examples"})


def build_messages(
    prompt: PromptTemplate, variables: Mapping[str, Any], output_model: type[BaseModel]
) -> list[BaseMessage]:
    """Render `prompt` and add the JSON instruction to its last user message.

    Appending rather than adding a second user turn keeps strict chat templates (which
    require alternating roles) happy.
    """
    messages = prompt.to_messages(**variables)
    instruction = json_instruction(output_model)
    if messages and isinstance(messages[-1], HumanMessage):
        last = messages[-1]
        messages[-1] = HumanMessage(content=f"{content_to_text(last.content)}\n\n{instruction}")
    else:
        messages.append(HumanMessage(content=instruction))
    return messages


async def run_structured(
    chat_model: BaseChatModel,
    prompt: PromptTemplate,
    variables: Mapping[str, Any],
    output_model: type[M],
    *,
    step: str,
    role: str,
    repair_attempts: int = 1,
    check: Callable[[M], str | None] | None = None,
    completion_tokens: int | None = None,
) -> M:
    """Ask `chat_model` for an `output_model`, repairing a bad answer up to `repair_attempts`.

    `completion_tokens`: what the step's answer needs at least (a whole scripted dialogue);
    it raises a lower `max_tokens` set on the model for these calls only.

    `check` may reject a well-formed answer (it returns why, else None): the step's own rule
    that a schema cannot say (a seeker's reply must not be one it already sent). A rejected
    answer is repaired like a malformed one and counted as one in the call records.

    Raises `LLMStepError` when the call fails, the completion is empty (not repaired:
    there is nothing to correct), or the answer is still unusable after the repairs.
    """
    base = build_messages(prompt, variables, output_model)
    params = model_params(chat_model)
    native = response_format_for(params.get("structured_output"), output_model)
    request: dict[str, Any] = {"response_format": native} if native else {}
    raised = raised_max_tokens(params.get("max_tokens"), completion_tokens)
    if raised is not None:
        request["max_tokens"] = raised
        params = {**params, "max_tokens": raised}  # hashed as sent, as the cache and replay key it
    messages = base
    last_error = ""
    for attempt in range(repair_attempts + 1):
        record, text = await _complete(chat_model, messages, params, request, step=step, role=role,
                                       attempt=attempt)
        if not text.strip():
            _record_failure(record, "empty completion")
            raise LLMStepError(step, "empty completion")
        try:
            result = parse_model(text, output_model)
            rejected = check(result) if check is not None else None
            if rejected:
                raise OutputParseError(rejected)
        except OutputParseError as exc:
            last_error = str(exc)
            _record_failure(record, last_error)
            messages = [
                *base,
                AIMessage(content=text),
                HumanMessage(content=REPAIR_INSTRUCTION.format(error=last_error)),
            ]
            continue
        record.ok = True
        record_call(record)
        return result
    raise LLMStepError(
        step, f"unusable answer after {repair_attempts} repair attempt(s): {last_error}"
    )


def raised_max_tokens(model_max_tokens: int | None, completion_tokens: int | None) -> int | None:
    """The per-call `max_tokens` a step needs, or None to leave the model's: only a cap
    lower than the step's need is raised (no cap means the server's default, left alone)."""
    if completion_tokens is None or model_max_tokens is None or model_max_tokens >= completion_tokens:
        return None
    return completion_tokens


async def _complete(
    chat_model: BaseChatModel,
    messages: list[BaseMessage],
    params: Mapping[str, Any],
    request: Mapping[str, Any],
    *,
    step: str,
    role: str,
    attempt: int,
) -> tuple[LLMCallRecord, str]:
    """One request (`params`: the model's generation parameters; `request`: per-call
    arguments such as `response_format`): returns an unsaved record (ok=False) and the
    answer text.

    A transport error is recorded and raised as `LLMStepError` (or re-raised as is if it
    is an `LLMFatalError`).
    """
    model = model_name_of(chat_model)
    record = LLMCallRecord(
        step=step,
        role=role,
        model=model,
        params=dict(params),
        prompt_hash=prompt_hash(model, messages, params),
        messages=message_dicts(messages),
        ok=False,
        repaired=attempt > 0,
        attempt=attempt,
    )
    config = {"run_name": f"crsim:{step}", "metadata": {"crsim_step": step, "crsim_role": role}}
    from agents.llm.budget import call_cost, current_budget  # here: budget.py imports this module

    budget = current_budget()
    started = time.perf_counter()
    try:
        if budget is not None:
            budget.check()  # raises BudgetExceeded (fatal) once the run's budget is spent
        answer = await chat_model.ainvoke(messages, config=config, **request)
    except Exception as exc:
        record.latency_s = time.perf_counter() - started
        reason = f"{type(exc).__name__}: {exc}"
        _record_failure(record, reason)
        if isinstance(exc, LLMFatalError):
            raise
        if http_status(exc) in CONFIG_STATUS:
            raise LLMConfigError(f"LLM step {step!r}: {reason}") from exc
        raise LLMStepError(step, reason) from exc
    record.latency_s = time.perf_counter() - started
    usage = getattr(answer, "usage_metadata", None) or {}
    record.input_tokens = usage.get("input_tokens")
    record.output_tokens = usage.get("output_tokens")
    record.response = content_to_text(getattr(answer, "content", answer))
    metadata = getattr(answer, "response_metadata", None) or {}
    record.cache_hit = bool(metadata.get("crsim_cache_hit"))
    record.generation_s = metadata.get("crsim_generation_s", None if record.cache_hit else record.latency_s)
    if record.cache_hit:
        record.cost_usd = 0.0
    elif budget is not None:
        record.cost_usd = budget.charge(model, record.input_tokens, record.output_tokens)
    else:
        record.cost_usd = call_cost(model, record.input_tokens, record.output_tokens)
    return record, record.response


def _record_failure(record: LLMCallRecord, error: str) -> None:
    record.ok = False
    record.error = error
    record_call(record)
