"""A small LangChain chat model over `litellm.acompletion`, for the `litellm` backend.

Why our own class: the maintained integration (`langchain-litellm`) is not a dependency,
and crsim needs little: messages in, text and token usage out, plus retries it controls.
litellm's own retry settings are layered (`num_retries` becomes the openai SDK's
`max_retries` for some providers, a tenacity wrapper without backoff for others, and it
mutates the global `litellm.num_retries`), so they are switched off per call and the
loop here retries 429, 408/409, 5xx, timeouts and connection errors with exponential
backoff, honouring a server's Retry-After. `litellm` is imported on first use (it takes
seconds to import); `LITELLM_LOCAL_MODEL_COST_MAP` is set first so it never fetches a
price list.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, convert_to_openai_messages
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field, SecretStr

RETRY_STATUS = frozenset({408, 409, 429})
MAX_RETRY_AFTER = 60.0  # seconds; a longer Retry-After is capped at the backoff ceiling


def import_litellm() -> Any:
    """Import litellm with no network at import time and without its help banners on stdout."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


class LiteLLMChat(BaseChatModel):
    """Chat completions through litellm: any provider it supports, named `provider/model`."""

    model: str = Field(description="litellm model string, e.g. 'openai/gpt-4o-mini', 'hosted_vllm/x'.")
    api_base: str | None = Field(default=None, description="Server URL (OpenAI-compatible or provider).")
    api_key: SecretStr | None = Field(default=None, description="Key; None lets litellm read its env vars.")
    temperature: float | None = 0.0
    max_tokens: int | None = None
    seed: int | None = None
    timeout: float = Field(default=30.0, description="Seconds per request.")
    max_retries: int = Field(default=2, description="Retries after the first try (429, 5xx, timeouts).")
    retry_initial_delay: float = Field(default=0.5, description="First backoff in seconds; doubles.")
    retry_max_delay: float = Field(default=8.0, description="Backoff ceiling in seconds.")
    model_kwargs: dict[str, Any] = Field(default_factory=dict, description="Extra acompletion kwargs.")
    structured_output: str | None = Field(default=None, description="Native JSON mode for language steps.")

    @property
    def _llm_type(self) -> str:
        return "crsim-litellm"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model": self.model, "api_base": self.api_base, "temperature": self.temperature}

    def _request(self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.model, "messages": convert_to_openai_messages(messages),
            "timeout": self.timeout, "num_retries": 0, "max_retries": 0, "drop_params": True,
            **self.model_kwargs,
        }
        optional = {"api_base": self.api_base, "temperature": self.temperature,
                    "max_tokens": self.max_tokens, "seed": self.seed, "stop": stop,
                    "api_key": self.api_key.get_secret_value() if self.api_key else None}
        request.update({k: v for k, v in optional.items() if v is not None})
        request.update(kwargs)  # per-call arguments (a step's completion budget) win
        return request

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        litellm = import_litellm()
        request = self._request(messages, stop, **kwargs)
        for attempt in range(self.max_retries + 1):
            try:
                return _result(litellm.completion(**request))
            except Exception as exc:
                if attempt >= self.max_retries or not _retryable(exc):
                    raise
                time.sleep(self._delay(attempt, exc))
        raise AssertionError("unreachable")

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: Any = None, **kwargs: Any) -> ChatResult:
        litellm = import_litellm()
        request = self._request(messages, stop, **kwargs)
        for attempt in range(self.max_retries + 1):
            try:
                return _result(await litellm.acompletion(**request))
            except Exception as exc:
                if attempt >= self.max_retries or not _retryable(exc):
                    raise
                await asyncio.sleep(self._delay(attempt, exc))
        raise AssertionError("unreachable")

    def _delay(self, attempt: int, exc: Exception) -> float:
        """The server's Retry-After if it gave a sane one, else jittered exponential backoff."""
        hinted = _retry_after(exc)
        if hinted is not None and 0 < hinted <= MAX_RETRY_AFTER:
            return hinted
        backoff = min(self.retry_initial_delay * 2**attempt, self.retry_max_delay)
        return backoff * (1 - 0.25 * random.random())  # noqa: S311 - jitter, not crypto


def _retryable(exc: Exception) -> bool:
    """Worth another try: rate limits, server errors, timeouts, dropped connections."""
    import litellm

    if isinstance(exc, (litellm.Timeout, litellm.APIConnectionError)):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in RETRY_STATUS or status >= 500)


def _retry_after(exc: Exception) -> float | None:
    """Seconds from `retry-after-ms` or `retry-after` (seconds) on the error's response."""
    headers = (getattr(exc, "litellm_response_headers", None)  # the provider's, kept by litellm
               or getattr(getattr(exc, "response", None), "headers", None)
               or getattr(exc, "headers", None))
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is not None:
            try:
                return float(value) / scale
            except ValueError:
                continue  # an HTTP date: fall back to backoff
    return None


def _result(response: Any) -> ChatResult:
    """litellm's ModelResponse as a ChatResult, with token usage as `usage_metadata`."""
    choice = response.choices[0]
    usage = getattr(response, "usage", None)
    message = AIMessage(
        content=choice.message.content or "",
        response_metadata={"model_name": getattr(response, "model", None),
                           "finish_reason": getattr(choice, "finish_reason", None)},
    )
    if usage is not None:
        input_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        output_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        message.usage_metadata = {"input_tokens": input_tokens, "output_tokens": output_tokens,
                                  "total_tokens": input_tokens + output_tokens}
    return ChatResult(generations=[ChatGeneration(message=message)])
