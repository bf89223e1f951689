"""A response cache on disk, so re-running a sweep does not pay for the same request twice.

`CachedChatModel` wraps any chat model and looks each request up by its prompt hash
(`hashing.prompt_hash` of the inner model's name, the messages and its generation
parameters): the very key the episode log and the `replay` backend use, so a cache entry,
a log line and a replayed answer for one request all agree. The wrapper reports the inner
model's name and parameters, so hashes in the log do not change when the cache is on.

Storage is one SQLite file (stdlib `sqlite3`, WAL journal) holding JSON rows: several
processes and asyncio tasks may read and write it at once; `INSERT OR IGNORE` makes the
first answer stored for a key the one everybody gets. JSON rather than pickle keeps
entries inspectable and loading them safe. Errors and empty completions are never stored.
SQLite's WAL needs shared memory, so keep the directory on a local disk, not NFS.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from agents.llm.hashing import DERIVED_REQUEST_ARGS, prompt_hash
from agents.llm.parsing import content_to_text
from agents.llm.wrapping import WrappedChatModel

CACHE_HIT_KEY = "crsim_cache_hit"  # in response_metadata: True when served from disk
GENERATION_KEY = "crsim_generation_s"  # in response_metadata: seconds the model took, kept with the answer
DB_FILE = "responses.sqlite3"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
    "message TEXT NOT NULL, created REAL NOT NULL)"
)


def default_cache_dir() -> Path:
    """`$CRSIM_CACHE_DIR/llm` (or `~/.cache/crsim/llm`), next to the search-index caches."""
    from environments.search.cache import cache_root

    return cache_root() / "llm"


class ResponseStore:
    """prompt hash -> stored answer, in one SQLite file that many processes share.

    A connection is opened per operation: cheap for SQLite, and it keeps the store free of
    thread affinity (the async path works in worker threads) and safe to fork or pickle.
    """

    def __init__(self, directory: str | Path | None = None, timeout_s: float = 60.0) -> None:
        self.directory = Path(directory).expanduser() if directory else default_cache_dir()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / DB_FILE
        self.timeout_s = timeout_s
        self._local = threading.local()
        self._create()

    def _create(self) -> None:
        """WAL mode and the table, once per file. Two processes opening a new cache at once
        may see the journal-mode switch fail at once with "database is locked" (SQLite does not
        wait on its busy timeout for it): so it is switched only when needed, and retried."""
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                with self._connect() as db:
                    if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                        db.execute("PRAGMA journal_mode=WAL")  # persistent: readers never block writers
                    db.execute(_SCHEMA)
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """This thread's connection, opened once: connecting per lookup cost ~0.3 ms, which
        made a cache-hit sweep slower than twice the offline one. SQLite connections may not
        cross threads, hence one per thread (asyncio's executor reuses its threads)."""
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = sqlite3.connect(self.path, timeout=self.timeout_s)
        with db:
            yield db  # commits on success, rolls back on error

    def get(self, key: str) -> dict[str, Any] | None:
        with self._connect() as db:
            row = db.execute("SELECT message FROM responses WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, model: str, message: dict[str, Any]) -> None:
        """Store `message` under `key` unless an answer is already there (first one wins)."""
        text = json.dumps(message, ensure_ascii=False, default=str)
        with self._connect() as db:
            db.execute(
                "INSERT OR IGNORE INTO responses (key, model, message, created) VALUES (?,?,?,?)",
                (key, model, text, time.time()),
            )

    def __len__(self) -> int:
        with self._connect() as db:
            return int(db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])


class CachedChatModel(WrappedChatModel):
    """`inner`, with every successful answer kept on disk under its prompt hash."""

    wrapper_kind: ClassVar[str] = "cached"
    directory: str | None = None  # None: default_cache_dir()
    _store: ResponseStore | None = PrivateAttr(default=None)

    @property
    def store(self) -> ResponseStore:
        if self._store is None:  # opened on first use, so building the config stays cheap
            self._store = ResponseStore(self.directory)
        return self._store

    def cache_key(self, messages: list[BaseMessage], stop: Any = None, **kwargs: Any) -> str:
        """The prompt hash; per-call `stop`/kwargs (rare) join the params so they count,
        except those derived from what is hashed already (`DERIVED_REQUEST_ARGS`)."""
        params = {**self.inner_params(), **{k: v for k, v in kwargs.items() if k not in DERIVED_REQUEST_ARGS}}
        if stop is not None:
            params["stop"] = stop
        return prompt_hash(self.model_name, messages, params)

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        key = self.cache_key(messages, stop, **kwargs)
        stored = self.store.get(key)
        if stored is not None:
            return _result(stored, hit=True)
        started = time.perf_counter()
        answer = self.inner.invoke(messages, stop=stop, **kwargs)
        keep, result = _split(answer, time.perf_counter() - started)
        if keep is not None:
            self.store.put(key, self.model_name, keep)
        return result

    async def _agenerate(self, messages: list[BaseMessage], stop: Any = None,
                         run_manager: Any = None, **kwargs: Any) -> ChatResult:
        key = self.cache_key(messages, stop, **kwargs)
        stored = self.store.get(key)  # a read on this thread's open connection: ~tens of µs
        if stored is not None:
            return _result(stored, hit=True)
        started = time.perf_counter()
        answer = await self.inner.ainvoke(messages, stop=stop, **kwargs)
        keep, result = _split(answer, time.perf_counter() - started)
        if keep is not None:
            await asyncio.to_thread(self.store.put, key, self.model_name, keep)
        return result


def _split(answer: BaseMessage, seconds: float) -> tuple[dict[str, Any] | None, ChatResult]:
    """(what to store, or None for an empty completion; the result to return now). The
    generation time is stored too, so a report re-run from the cache still knows what a call cost."""
    tool_calls = list(getattr(answer, "tool_calls", None) or [])
    metadata = {**{k: v for k, v in answer.response_metadata.items() if k != CACHE_HIT_KEY},
                GENERATION_KEY: round(seconds, 3)}
    stored = {
        "content": answer.content,
        "additional_kwargs": dict(answer.additional_kwargs),
        "response_metadata": metadata,
        "usage_metadata": getattr(answer, "usage_metadata", None),
        "tool_calls": tool_calls,
    }
    empty = not content_to_text(answer.content).strip() and not tool_calls
    return (None if empty else stored), _result(stored, hit=False)


def _result(stored: dict[str, Any], *, hit: bool) -> ChatResult:
    message = AIMessage(
        content=stored.get("content", ""),
        additional_kwargs=stored.get("additional_kwargs") or {},
        response_metadata={**(stored.get("response_metadata") or {}), CACHE_HIT_KEY: hit},
        usage_metadata=stored.get("usage_metadata"),
        tool_calls=stored.get("tool_calls") or [],
    )
    return ChatResult(generations=[ChatGeneration(message=message)])


def with_cache(chat_model: BaseChatModel | None, directory: str | Path | None = None) -> Any:
    """`chat_model` behind the disk cache; `None` (the offline backend) stays `None`."""
    if chat_model is None or isinstance(chat_model, CachedChatModel):
        return chat_model
    return CachedChatModel(inner=chat_model, directory=str(directory) if directory else None)
