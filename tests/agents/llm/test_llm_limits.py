"""At most `max_concurrency` requests in flight per backend; hashing unchanged by the wrapper."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from agents.llm.hashing import model_name_of, model_params
from agents.llm.limits import LimitedChatModel, limited


class SlowModel(BaseChatModel):
    model_name: str = "slow-1"
    temperature: float = 0.3
    in_flight: int = 0
    peak: int = 0

    @property
    def _llm_type(self) -> str:
        return "slow"

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        raise NotImplementedError

    async def _agenerate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        await asyncio.sleep(0.01)
        self.in_flight -= 1
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="ok"))])


def test_no_more_than_the_limit_in_flight_in_every_event_loop():
    inner = SlowModel()
    model = limited(inner, 3)

    async def burst() -> list[Any]:
        return await asyncio.gather(*(model.ainvoke([HumanMessage(content=str(i))]) for i in range(20)))

    for _ in range(2):  # a sweep runs each job in a new event loop
        assert [a.content for a in asyncio.run(burst())] == ["ok"] * 20
    assert inner.peak == 3


def test_wrapper_hashes_like_the_model_and_no_limit_means_no_wrapper():
    inner = SlowModel()
    wrapped = limited(inner, 2)
    assert isinstance(wrapped, LimitedChatModel)
    assert model_name_of(wrapped) == "slow-1" and model_params(wrapped) == model_params(inner)
    assert limited(inner, None) is inner and limited(inner, 0) is inner
