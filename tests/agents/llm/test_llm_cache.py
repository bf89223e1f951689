"""The disk response cache: hits skip the model, keys follow the prompt hash, writers share it."""

from __future__ import annotations

import asyncio
import multiprocessing
import sqlite3
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from agents.llm.cache import CACHE_HIT_KEY, DB_FILE, CachedChatModel, ResponseStore, with_cache
from agents.llm.hashing import model_name_of, model_params
from agents.llm.recording import recording
from agents.llm.structured import LLMStepError, run_structured
from agents.prompts import PromptTemplate
from pydantic import BaseModel

USAGE = {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}


class CountingModel(BaseChatModel):
    """Answers `echo:<last message>`; counts calls; can fail or answer empty on demand."""

    model_name: str = "counting-1"
    temperature: float | None = 0.0
    calls: int = 0
    fail_next: int = 0
    empty_next: int = 0

    @property
    def _llm_type(self) -> str:
        return "counting"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.calls += 1
        if self.fail_next:
            self.fail_next -= 1
            raise ConnectionError("provider down")
        text = "" if self.empty_next else f"echo:{messages[-1].content}"
        self.empty_next = max(0, self.empty_next - 1)
        message = AIMessage(content=text, usage_metadata=USAGE,
                            response_metadata={"model_name": self.model_name, "finish_reason": "stop"})
        return ChatResult(generations=[ChatGeneration(message=message)])


def ask(text: str) -> list[BaseMessage]:
    return [SystemMessage(content="You echo."), HumanMessage(content=text)]


async def test_miss_then_hit_across_instances_on_one_directory(tmp_path: Path) -> None:
    inner = CountingModel()
    first = await CachedChatModel(inner=inner, directory=str(tmp_path)).ainvoke(ask("hi"))
    second = await with_cache(inner, tmp_path).ainvoke(ask("hi"))  # a later run, same dir
    assert inner.calls == 1
    assert first.response_metadata[CACHE_HIT_KEY] is False
    assert second.response_metadata[CACHE_HIT_KEY] is True
    assert second.content == first.content == "echo:hi"
    assert second.usage_metadata == USAGE
    assert second.response_metadata["finish_reason"] == "stop"


def test_sync_path_uses_the_same_entries(tmp_path: Path) -> None:
    inner = CountingModel()
    cached = with_cache(inner, tmp_path)
    assert cached.invoke(ask("a")).response_metadata[CACHE_HIT_KEY] is False
    assert asyncio.run(cached.ainvoke(ask("a"))).response_metadata[CACHE_HIT_KEY] is True
    assert inner.calls == 1


async def test_messages_and_params_are_part_of_the_key(tmp_path: Path) -> None:
    cold, hot = CountingModel(temperature=0.0), CountingModel(temperature=0.9)
    for model in (cold, hot):
        await with_cache(model, tmp_path).ainvoke(ask("hi"))
        await with_cache(model, tmp_path).ainvoke(ask("bye"))
    assert (cold.calls, hot.calls) == (2, 2)
    renamed = CountingModel(model_name="counting-2")
    await with_cache(renamed, tmp_path).ainvoke(ask("hi"))
    assert renamed.calls == 1 and len(ResponseStore(tmp_path)) == 5


async def test_errors_and_empty_completions_are_not_cached(tmp_path: Path) -> None:
    inner = CountingModel(fail_next=1, empty_next=1)
    cached = with_cache(inner, tmp_path)
    with pytest.raises(ConnectionError):
        await cached.ainvoke(ask("x"))
    assert (await cached.ainvoke(ask("x"))).content == ""  # empty: returned, not stored
    assert len(ResponseStore(tmp_path)) == 0
    assert (await cached.ainvoke(ask("x"))).content == "echo:x"
    assert (await cached.ainvoke(ask("x"))).response_metadata[CACHE_HIT_KEY] is True
    assert inner.calls == 3


class Echo(BaseModel):
    text: str


class JsonModel(CountingModel):
    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.calls += 1
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content='{"text": "ok"}'))])


async def test_wrapper_hashes_like_the_inner_model(tmp_path: Path) -> None:
    inner = CountingModel(temperature=0.4)
    cached = with_cache(inner, tmp_path)
    assert model_name_of(cached) == "counting-1" and model_params(cached) == {"temperature": 0.4}
    assert with_cache(cached, tmp_path) is cached and with_cache(None) is None
    prompt = PromptTemplate.from_text("## user\nSay {word}.", name="echo")
    inner_json = JsonModel(temperature=0.4)
    hashes = []
    for model in (inner_json, with_cache(inner_json, tmp_path), with_cache(inner_json, tmp_path)):
        with recording() as recorder:
            assert await run_structured(model, prompt, {"word": "x"}, Echo, step="s", role="r") == Echo(text="ok")
        hashes.append(recorder.records[0].prompt_hash)
    assert len(set(hashes)) == 1 and inner_json.calls == 2  # the last one was a hit


async def test_default_directory_follows_crsim_cache_dir(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("CRSIM_CACHE_DIR", str(tmp_path))
    await with_cache(CountingModel()).ainvoke(ask("hi"))
    assert (tmp_path / "llm" / DB_FILE).exists()


async def test_concurrent_tasks_share_one_cache(tmp_path: Path) -> None:
    inner = CountingModel()
    models = [with_cache(inner, tmp_path) for _ in range(4)]
    answers = await asyncio.gather(*(models[i % 4].ainvoke(ask(f"p{i % 5}")) for i in range(40)))
    assert [a.content for a in answers] == [f"echo:p{i % 5}" for i in range(40)]
    assert len(ResponseStore(tmp_path)) == 5
    assert 5 <= inner.calls <= 40  # concurrent misses may each ask; the first answer is kept
    again = await asyncio.gather(*(models[0].ainvoke(ask(f"p{i}")) for i in range(5)))
    assert all(a.response_metadata[CACHE_HIT_KEY] for a in again)


WORKER = textwrap.dedent('''
    import asyncio
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage, HumanMessage
    from agents.llm.cache import with_cache

    class Echo(FakeMessagesListChatModel):
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            self.responses = [AIMessage(content="echo:" + messages[-1].content)]
            return super()._generate(messages, stop, run_manager, **kwargs)

    def work(directory, start, queue):
        async def main():
            model = with_cache(Echo(responses=[]), directory)
            keys = [f"k{(start + i) % 60}" for i in range(60)]
            answers = await asyncio.gather(*(model.ainvoke([HumanMessage(k)]) for k in keys))
            return all(a.content == "echo:" + k for a, k in zip(answers, keys))
        queue.put(asyncio.run(main()))
''')


def test_two_processes_write_and_read_one_cache(tmp_path: Path, monkeypatch: Any) -> None:
    (tmp_path / "crsim_cache_worker.py").write_text(WORKER)
    monkeypatch.syspath_prepend(str(tmp_path))  # spawned children inherit sys.path
    import crsim_cache_worker  # noqa: PLC0415

    directory = str(tmp_path / "cache")
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    workers = [context.Process(target=crsim_cache_worker.work, args=(directory, start, queue))
               for start in (0, 30)]
    for worker in workers:
        worker.start()
    results = [queue.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=30)
    sys.modules.pop("crsim_cache_worker", None)
    assert results == [True, True] and all(w.exitcode == 0 for w in workers)
    store = ResponseStore(directory)
    with sqlite3.connect(store.path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        keys = [row[0] for row in db.execute("SELECT key FROM responses")]
    assert len(keys) == 60
    assert sorted(store.get(key)["content"] for key in keys) == sorted(f"echo:k{i}" for i in range(60))


async def test_run_structured_failure_is_not_cached(tmp_path: Path) -> None:
    inner = CountingModel(fail_next=1)
    prompt = PromptTemplate.from_text("## user\nSay {word}.", name="echo")
    with pytest.raises(LLMStepError):
        await run_structured(with_cache(inner, tmp_path), prompt, {"word": "x"}, Echo, step="s", role="r")
    assert len(ResponseStore(tmp_path)) == 0


class CappedJsonModel(JsonModel):
    max_tokens: int | None = 256


async def test_a_raised_completion_budget_keys_the_cache_as_the_record_hashes_it(tmp_path: Path) -> None:
    prompt = PromptTemplate.from_text("## user\nSay {word}.", name="echo")
    inner = CappedJsonModel()
    cached = with_cache(inner, tmp_path)
    hashes = []
    for budget in (1024, 1024, None):
        with recording() as recorder:
            await run_structured(cached, prompt, {"word": "x"}, Echo, step="s", role="r", completion_tokens=budget)
        hashes.append(recorder.records[0].prompt_hash)
    assert hashes[0] == hashes[1] != hashes[2]
    assert inner.calls == 2  # the second call was a hit under the raised budget's key
