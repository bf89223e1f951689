"""What a server keeps per conversation, bounded: the least recently used is forgotten first.

A client runs episodes in parallel and never says when one is over, so a server cannot wait
for a goodbye; it keeps the last `limit` conversations. A move for one it does not hold
(never started, ended, or forgotten) is refused rather than answered from nothing.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

T = TypeVar("T")
MAX_CONVERSATIONS = 10_000


class Conversations(Generic[T]):
    """Conversation id -> what the server keeps for it (LRU, at most `limit`)."""

    def __init__(self, limit: int = MAX_CONVERSATIONS):
        self.limit = limit
        self._kept: OrderedDict[str, T] = OrderedDict()

    def __contains__(self, conversation_id: object) -> bool:
        return conversation_id in self._kept

    def get(self, conversation_id: str) -> T:
        """The conversation's state; LookupError with the reason when it is not held."""
        found = self._kept.get(conversation_id)
        if found is None:
            raise LookupError(f"unknown conversation '{conversation_id}': its first move must say reset (or it "
                              f"ended, or the server forgot it: it keeps the last {self.limit})")
        self._kept.move_to_end(conversation_id)
        return found

    def keep(self, conversation_id: str, state: T) -> None:
        self._kept[conversation_id] = state
        self._kept.move_to_end(conversation_id)
        while len(self._kept) > self.limit:
            self._kept.popitem(last=False)

    def forget(self, conversation_id: str) -> None:
        self._kept.pop(conversation_id, None)
