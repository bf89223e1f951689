"""Chat-model backends named by `conf/llm/*.yaml` (`llm@seeker.llm=openai`, ...).

Each factory returns what agent factories take as `llm=`: None (offline) or a LangChain
chat model. Client libraries are imported inside the factories so `crsim --help` and
offline runs never pay for them (DESIGN.md §7: litellm ~4 s, langchain_openai ~2 s).

API keys come from the environment only (config names the variable, never the value), are
held as pydantic `SecretStr`, and never reach a log or the saved config. Retries with
exponential backoff on 429/5xx/timeouts are done by the client (openai SDK for `openai`,
`LiteLLMChat` for `litellm`); once they are spent the call raises, `run_structured` turns
that into `LLMStepError`, and the step falls back to its offline implementation with the
failure in the episode's `llm_calls`.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlparse

from environments.errors import CrsimError

NO_KEY = "not-needed"  # sent to servers that ignore keys (vLLM, Ollama, llama.cpp, the test stub)
OPENAI_HOSTS = ("openai.com", "openai.azure.com")


class MissingAPIKeyError(CrsimError):
    """The backend targets a hosted API, but the environment variable for its key is unset.

    A `CrsimError`, so `crsim run` reports it in one line (exit status 2), not a traceback.
    """


def offline() -> None:
    """`llm=offline`: no chat model; language steps use their offline implementations."""
    return None


def openai(model: str, base_url: str | None = None, temperature: float | None = 0.0,
           timeout: float = 30, max_retries: int = 2, api_key_env: str | None = "OPENAI_API_KEY",
           max_tokens: int | None = None, seed: int | None = None, cache: bool = False,
           cache_dir: str | None = None, max_concurrency: int | None = None,
           structured_output: str | None = None, **extra: Any) -> Any:
    """`llm=openai`: langchain-openai's `ChatOpenAI`, for the OpenAI API or any compatible server.

    `base_url` None means the OpenAI API (or `$OPENAI_BASE_URL`), which needs the key in
    `$<api_key_env>`; a self-hosted server gets a placeholder key when the variable is
    unset (or when `api_key_env` is None, so a real key is never sent to it).
    `max_retries` is the openai SDK's: it retries 408/409/429/5xx, timeouts and dropped
    connections with exponential backoff (0.5 s doubling to 8 s), honouring Retry-After.
    `structured_output` (`json_schema`, `json_object` or None) picks the provider-native
    JSON mode sent with each language step's request (`structured.response_format_for`).
    `extra` goes to `ChatOpenAI` unchanged (e.g. `top_p`, `model_kwargs`).
    """
    from agents.llm.openai_chat import crsim_chat_openai

    target = base_url or os.environ.get("OPENAI_BASE_URL")
    key = api_key(api_key_env, required=_is_openai(target), backend="openai")
    if max_tokens is not None and not _is_openai(target):
        # ChatOpenAI sends the cap as `max_completion_tokens`, which OpenAI-compatible servers
        # such as llama.cpp's ignore (they then generate until the context is full): send
        # the classic field too.
        extra["extra_body"] = {"max_tokens": max_tokens, **(extra.get("extra_body") or {})}
    chat = crsim_chat_openai(model=model, base_url=base_url, api_key=key, temperature=temperature,
                             timeout=timeout, max_retries=max_retries, max_tokens=max_tokens, seed=seed,
                             structured_output=structured_output, **extra)
    return cached(limited(chat, max_concurrency), cache, cache_dir)


def litellm(model: str, api_base: str | None = None, temperature: float | None = 0.0,
            timeout: float = 30, max_retries: int = 2, api_key_env: str | None = None,
            max_tokens: int | None = None, seed: int | None = None,
            retry_initial_delay: float = 0.5, cache: bool = False, cache_dir: str | None = None,
            max_concurrency: int | None = None, structured_output: str | None = None,
            **extra: Any) -> Any:
    """`llm=litellm`: any provider litellm supports, `model` spelled `provider/name`.

    `api_key_env` None lets litellm read the provider's usual variable (OPENAI_API_KEY,
    ANTHROPIC_API_KEY, ...); named, the variable must be set unless `api_base` is a
    self-hosted server. With an `api_base` and no key at all, a placeholder is sent
    (OpenAI-compatible clients refuse to start without one). `structured_output` as for
    `openai` (litellm drops `response_format` for providers without it). `extra` goes to
    `litellm.acompletion` on every call.
    """
    from agents.llm.litellm_chat import LiteLLMChat

    key = api_key(api_key_env, required=api_base is None, backend="litellm") if api_key_env else None
    if key is None and api_base is not None and not _provider_key_set(model):
        key = NO_KEY
    chat = LiteLLMChat(model=model, api_base=api_base, api_key=key, temperature=temperature,
                       timeout=timeout, max_retries=max_retries, max_tokens=max_tokens, seed=seed,
                       retry_initial_delay=retry_initial_delay, structured_output=structured_output,
                       model_kwargs=extra)
    return cached(limited(chat, max_concurrency), cache, cache_dir)


def limited(chat_model: Any, max_concurrency: int | None) -> Any:
    """At most `max_concurrency` requests in flight to this backend (None: no bound)."""
    from agents.llm.limits import limited as limit

    return limit(chat_model, max_concurrency)


def cached(chat_model: Any, cache: bool, cache_dir: str | None) -> Any:
    """Behind the on-disk response cache when `cache` (the configs' default): a re-run of
    the same sweep is then answered from disk. The cache key is the prompt hash (model
    name, messages, generation parameters), the same key `replay` uses; it does not
    include the server address, so give two servers' models different names."""
    if not cache:
        return chat_model
    from agents.llm.cache import with_cache

    return with_cache(chat_model, cache_dir)


def api_key(env_var: str | None, *, required: bool, backend: str) -> str:
    """The key in `$env_var`; NO_KEY if not required and unset; a clear error otherwise."""
    value = os.environ.get(env_var) if env_var else None
    if value:
        return value
    if required:
        raise MissingAPIKeyError(
            f"llm={backend}: the API key is read from the environment variable "
            f"{env_var or '(none configured)'}, which is not set. Export it (never put keys in "
            "config files), or point base_url/api_base at a self-hosted server."
        )
    return NO_KEY


def _is_openai(base_url: str | None) -> bool:
    """Whether requests go to OpenAI's hosted API (where a missing key is certainly an error)."""
    if not base_url:
        return True
    host = (urlparse(base_url).hostname or "").lower()
    return any(host == h or host.endswith("." + h) for h in OPENAI_HOSTS)


def _provider_key_set(model: str) -> bool:
    """Whether litellm will find the provider's own key variable, e.g. OPENAI_API_KEY."""
    provider = model.split("/", 1)[0] if "/" in model else "openai"
    return bool(os.environ.get(f"{provider.upper()}_API_KEY"))
