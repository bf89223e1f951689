"""A server keeps the last N conversations and refuses the others in one line."""

from __future__ import annotations

import pytest

from simulators.serve.conversations import Conversations


def test_the_least_recently_used_conversation_is_forgotten_first():
    kept: Conversations[int] = Conversations(limit=2)
    kept.keep("a", 1)
    kept.keep("b", 2)
    assert kept.get("a") == 1  # "a" used last: "b" goes first
    kept.keep("c", 3)
    assert "a" in kept and "c" in kept and "b" not in kept
    with pytest.raises(LookupError, match=r"unknown conversation 'b': .* it keeps the last 2\)"):
        kept.get("b")
    kept.forget("a")
    assert "a" not in kept
