"""The prompt hash: stable across spellings, sensitive to everything that matters."""

from __future__ import annotations

import re

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from agents.llm.hashing import message_dicts, model_name_of, model_params, prompt_hash

TUPLES = [("system", "Be brief."), ("user", "Rate {x}."), ("assistant", "{}")]
PARAMS = {"temperature": 0.0, "max_tokens": 64}


def test_hash_is_short_hex_and_stable() -> None:
    h = prompt_hash("m", TUPLES, PARAMS)
    assert re.fullmatch(r"[0-9a-f]{16}", h)
    assert h == prompt_hash("m", list(TUPLES), dict(PARAMS))
    # Pinned: changing the canonical form silently invalidates every cache and replay log.
    assert h == "82652ead8843b6c7"


def test_hash_ignores_message_spelling_and_param_order() -> None:
    messages = [SystemMessage("Be brief."), HumanMessage("Rate {x}."), AIMessage("{}")]
    human_ai = [("system", "Be brief."), ("human", "Rate {x}."), ("ai", "{}")]
    reordered = {"max_tokens": 64, "temperature": 0.0}
    h = prompt_hash("m", TUPLES, PARAMS)
    assert prompt_hash("m", messages, PARAMS) == h
    assert prompt_hash("m", human_ai, PARAMS) == h
    assert prompt_hash("m", TUPLES, reordered) == h


def test_hash_changes_with_model_messages_and_params() -> None:
    h = prompt_hash("m", TUPLES, PARAMS)
    assert prompt_hash("other", TUPLES, PARAMS) != h
    assert prompt_hash("m", TUPLES[:2], PARAMS) != h
    assert prompt_hash("m", [*TUPLES[:2], ("assistant", "{ }")], PARAMS) != h
    assert prompt_hash("m", [("user", "Be brief."), *TUPLES[1:]], PARAMS) != h
    assert prompt_hash("m", TUPLES, {**PARAMS, "temperature": 0.7}) != h
    assert prompt_hash("m", TUPLES, {**PARAMS, "seed": 1}) != h
    assert prompt_hash("m", TUPLES, {}) != h


def test_message_dicts_keeps_block_content() -> None:
    blocks = [{"type": "text", "text": "hi"}]
    assert message_dicts([HumanMessage(content=blocks)]) == [{"role": "user", "content": blocks}]


def test_model_identity_from_attributes() -> None:
    class Named:
        model_name = "gpt-x"
        temperature = 0.2
        max_tokens = None
        model_kwargs: dict = {}

    class Litellm:
        model = "ollama/qwen"
        seed = 3

    class Bare:
        pass

    assert model_name_of(Named()) == "gpt-x"
    assert model_name_of(Litellm()) == "ollama/qwen"
    assert model_name_of(Bare()) == "Bare"
    assert model_params(Named()) == {"temperature": 0.2}
    assert model_params(Litellm()) == {"seed": 3}
