"""`instances` copies of a local model answer calls at once, each copy one call at a time
(a llama.cpp instance is not thread-safe). A stand-in replaces llama.cpp: no model needed."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from langchain_core.messages import HumanMessage

from agents.llm import local as local_module
from agents.llm.local import LlamaCppChat


class SlowModel:
    """Answers after a short wait; counts calls in flight, per copy and in all."""

    active: dict[int, int] = {}
    peak = 0
    lock = threading.Lock()

    def __init__(self, copy: int):
        self.copy = copy

    def create_chat_completion(self, **_: object) -> dict:
        with SlowModel.lock:
            SlowModel.active[self.copy] = SlowModel.active.get(self.copy, 0) + 1
            assert SlowModel.active[self.copy] == 1, "two calls on one copy at once"
            SlowModel.peak = max(SlowModel.peak, sum(SlowModel.active.values()))
        time.sleep(0.05)
        with SlowModel.lock:
            SlowModel.active[self.copy] -= 1
        return {"choices": [{"message": {"content": f"copy {self.copy}"}}], "usage": {}}


def run_calls(instances: int, monkeypatch, chats: int = 1) -> set[str]:
    """12 calls from 6 threads, spread over `chats` chat models on the same model file (a
    run's curator and listener are two)."""
    SlowModel.active, SlowModel.peak = {}, 0
    monkeypatch.setattr(local_module, "load_llama", lambda path, n_ctx, n_threads, copy=0: SlowModel(copy))
    models = [LlamaCppChat(model_path="unused.gguf", model_name="local:unused", instances=instances)
              for _ in range(chats)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        answers = list(pool.map(lambda i: models[i % chats].invoke([HumanMessage(content="hi")]).content, range(12)))
    return set(answers)


def test_two_copies_answer_two_calls_at_once_never_two_on_one_copy(monkeypatch):
    assert run_calls(2, monkeypatch) == {"copy 0", "copy 1"} and SlowModel.peak == 2


def test_one_copy_answers_one_call_at_a_time(monkeypatch):
    assert run_calls(1, monkeypatch) == {"copy 0"} and SlowModel.peak == 1


def test_chat_models_on_one_model_file_share_its_copies(monkeypatch):
    assert run_calls(1, monkeypatch, chats=2) == {"copy 0"} and SlowModel.peak == 1
    assert run_calls(2, monkeypatch, chats=3) == {"copy 0", "copy 1"} and SlowModel.peak == 2
