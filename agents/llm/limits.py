"""A bound on requests in flight per backend.

Episodes run concurrently and each may call the model; without a bound a sweep with
`concurrency=64` opens 64+ requests at once, which provider rate limits punish and
httpx-based clients handle badly (DESIGN §7: ChatOpenAI collapses above ~32 in flight).
`LimitedChatModel` lets at most `max_concurrency` calls through at a time. It sits inside
the response cache, so cache hits never wait for a slot, and it hashes exactly like the
model it wraps (same name and generation parameters).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, ClassVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from agents.llm.wrapping import WrappedChatModel


class LimitedChatModel(WrappedChatModel):
    wrapper_kind: ClassVar[str] = "limited"
    max_concurrency: int
    _sync_gate: threading.BoundedSemaphore | None = PrivateAttr(default=None)
    _async_gates: dict[int, asyncio.Semaphore] = PrivateAttr(default_factory=dict)

    def _async_gate(self) -> asyncio.Semaphore:
        """One semaphore per event loop: a sweep runs each Hydra job in its own loop."""
        loop = id(asyncio.get_running_loop())
        gate = self._async_gates.get(loop)
        if gate is None:
            gate = self._async_gates[loop] = asyncio.Semaphore(self.max_concurrency)
        return gate

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        if self._sync_gate is None:
            self._sync_gate = threading.BoundedSemaphore(self.max_concurrency)
        with self._sync_gate:
            answer = self.inner.invoke(messages, stop=stop, **kwargs)
        return ChatResult(generations=[ChatGeneration(message=answer)])

    async def _agenerate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                         **kwargs: Any) -> ChatResult:
        async with self._async_gate():
            answer = await self.inner.ainvoke(messages, stop=stop, **kwargs)
        return ChatResult(generations=[ChatGeneration(message=answer)])


def limited(chat_model: BaseChatModel, max_concurrency: int | None) -> BaseChatModel:
    """`chat_model` with at most `max_concurrency` calls in flight (None or 0: no bound)."""
    if not max_concurrency:
        return chat_model
    return LimitedChatModel(inner=chat_model, max_concurrency=int(max_concurrency))
