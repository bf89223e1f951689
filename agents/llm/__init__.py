"""Language-model machinery: run a prompt to a pydantic answer, parse, hash and record calls.

Exports resolve lazily, so `import agents.llm.recording` (which offline episodes need)
does not pull in langchain (about 0.3 s); only `run_structured` and friends do.
The `recording()` context manager is not re-exported: `agents.llm.recording` is also
the submodule's name, so import it from there.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "run_structured": "structured",
    "build_messages": "structured",
    "json_instruction": "structured",
    "LLMStepError": "errors",
    "LLMFatalError": "errors",
    "parse_model": "parsing",
    "content_to_text": "parsing",
    "OutputParseError": "parsing",
    "prompt_hash": "hashing",
    "model_name_of": "hashing",
    "model_params": "hashing",
    "LLMCallRecord": "recording",
    "CallRecorder": "recording",
    "record_call": "recording",
    "current_recorder": "recording",
    "summaries": "recording",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agents.llm' has no attribute {name!r}")
    return getattr(import_module(f"agents.llm.{module}"), name)
