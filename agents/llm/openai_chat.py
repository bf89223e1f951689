"""`ChatOpenAI` with the two things crsim adds: a structured-output mode and its own client.

- `structured_output` names the provider-native JSON mode that language steps request
  (`structured.response_format_for`); as a field it is one of the model's generation
  parameters, so it joins the prompt hash like `temperature` does.
- langchain-openai shares one async HTTP client per (base URL, timeout) across the whole
  process. Its pooled connections belong to the event loop that opened them, so the next
  `asyncio.run` (the next job of a Hydra sweep, a re-execution) first hits a dead
  connection and burns a retry. The library builds a private client when the timeout is
  an `httpx.Timeout` (unhashable, so its cache is skipped); `crsim_chat_openai` passes one,
  which gives every chat model, hence every sweep job, its own client.
"""

from __future__ import annotations

from typing import Any

import httpx
from langchain_openai import ChatOpenAI
from pydantic import Field


class CrsimChatOpenAI(ChatOpenAI):
    """`ChatOpenAI` plus the `structured_output` mode of crsim's language steps."""

    structured_output: str | None = Field(default=None, description="Native JSON mode for language steps.")

    def _get_request_payload(self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any) -> dict:
        """A per-call `max_tokens` (a step's completion budget) also replaces the classic field
        that `backends.openai` puts in `extra_body` for OpenAI-compatible servers, which read
        that one and would otherwise keep the model's lower cap."""
        payload = super()._get_request_payload(input_, stop=stop, **kwargs)
        per_call = kwargs.get("max_tokens")
        extra_body = payload.get("extra_body") or {}
        if per_call is not None and "max_tokens" in extra_body:
            payload["extra_body"] = {**extra_body, "max_tokens": per_call}
        return payload


def crsim_chat_openai(*, timeout: float, **kwargs: Any) -> CrsimChatOpenAI:
    """A `CrsimChatOpenAI` with an HTTP client of its own (see the module docstring)."""
    return CrsimChatOpenAI(timeout=httpx.Timeout(timeout), **kwargs)
