"""The prompt hash: one key for "this exact request to this model with these settings".

The response cache and the `replay` backend look answers up by this key, and the episode
log stores it with every call, so it must not depend on how the messages were spelled
(langchain message objects or `(role, text)` tuples, `human` or `user`) or on dict
order, and must change whenever anything that can change the answer changes: model,
any message, any generation parameter.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

PROMPT_HASH_LENGTH = 16  # hex characters (64 bits): ample for per-run caches and logs

_ROLE_ALIASES = {"human": "user", "ai": "assistant", "AIMessageChunk": "assistant"}

# Chat-model attributes that change the answer; read by `model_params` when present.
GENERATION_PARAMS = (
    "temperature",
    "top_p",
    "top_k",
    "max_tokens",
    "max_completion_tokens",
    "seed",
    "stop",
    "frequency_penalty",
    "presence_penalty",
    "n",
    "reasoning_effort",
    "model_kwargs",
    "structured_output",  # crsim's own: which provider-native JSON mode requests carry
)

# Per-call request arguments that follow from what is hashed already (the messages and
# the `structured_output` parameter); keys computed from per-call arguments skip them.
DERIVED_REQUEST_ARGS = frozenset({"response_format"})

MessageLike = tuple[str, Any] | Any  # (role, content) or a langchain BaseMessage


def normalize_role(role: str) -> str:
    """Map langchain's role spellings onto the OpenAI ones (`user`, `assistant`, ...)."""
    return _ROLE_ALIASES.get(role, role)


def message_dicts(messages: Sequence[MessageLike]) -> list[dict[str, Any]]:
    """`[{"role": ..., "content": ...}]` for tuples or langchain messages alike.

    Duck-typed on `.type`/`.content` so this module does not import langchain.
    Content is kept as given (a string, or a list of blocks for multimodal input).
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, tuple | list):
            role, content = message
        else:
            role, content = message.type, message.content
        out.append({"role": normalize_role(str(role)), "content": content})
    return out


def model_name_of(chat_model: Any) -> str:
    """The name a chat model answers to, as used in hashes and logs."""
    return (
        getattr(chat_model, "model_name", None)
        or getattr(chat_model, "model", None)
        or type(chat_model).__name__
    )


def model_params(chat_model: Any) -> dict[str, Any]:
    """Generation parameters set on `chat_model` (those in GENERATION_PARAMS, not None)."""
    params: dict[str, Any] = {}
    cls = type(chat_model)
    fields = getattr(cls, "model_fields", None)
    for name in GENERATION_PARAMS:
        if fields is not None and name not in fields and not hasattr(cls, name):
            continue  # a pydantic model's missing attribute costs an exception (~5 us) each time
        value = getattr(chat_model, name, None)
        if value is not None and value != {}:
            params[name] = value
    return params


def prompt_hash(
    model_name: str, messages: Sequence[MessageLike], params: Mapping[str, Any]
) -> str:
    """Stable sha256 (first PROMPT_HASH_LENGTH hex chars) of model, messages and params.

    The canonical form is compact JSON with sorted keys; values JSON cannot encode
    (e.g. enums, paths) are hashed by their `str()`.
    """
    payload = {
        "model": model_name,
        "messages": [[m["role"], m["content"]] for m in message_dicts(messages)],
        "params": dict(params),
    }
    canonical = json.dumps(
        payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:PROMPT_HASH_LENGTH]
