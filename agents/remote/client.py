"""An HTTP client for agents in another process: per-request timeout, retries with backoff,
a limit on requests in flight per server, and a one-line reason when it gives up.

A remote agent serves concurrent episodes, and an episode must never hang on its server:
every request has a deadline (`timeout_s`); a refused or dropped connection and a 5xx are
retried `retries` times, `backoff_s`, 2×, 4× ... apart (a server restarting or briefly
overloaded recovers); a timeout, a 4xx or a reply that cannot be read is not (asking a slow
CRS again doubles its load; a bad request stays bad), and ends the episode with a
`RemoteAgentError` whose message is one line naming the server and what went wrong.

aiohttp rather than httpx: httpx clients degrade above ~32 requests in flight on this
machine (`../shared/DESIGN.md` §7). A session belongs to one event loop, so one is opened
per loop on first use and closed when that loop finishes (`asyncio.run` closes the
asynchronous generators still open, and `_keep_open` is one) or on `aclose()`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class RemoteAgentError(RuntimeError):
    """A remote agent could not be reached or answered something unusable (one line)."""


class HttpSettings(BaseModel):
    """How a remote agent is reached; the `recommender=http` config keys."""

    model_config = ConfigDict(extra="forbid")

    url: str = Field(description="Base URL of the server, e.g. http://127.0.0.1:8765")
    timeout_s: float = Field(default=30.0, gt=0, description="Deadline of one request, connect to last byte.")
    retries: int = Field(default=3, ge=0, description="Extra attempts after a connection error or a 5xx.")
    backoff_s: float = Field(default=0.5, ge=0, description="Wait before the first retry; doubled each time.")
    max_in_flight: int = Field(default=8, ge=1, description="Requests at once to this server, over all episodes.")


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request that got an answer: the body, and how long the answering attempt took."""

    status: int
    body: bytes
    content_type: str
    latency_ms: float
    attempts: int

    def json(self, url: str) -> Any:
        try:
            return json.loads(self.body)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise RemoteAgentError(f"{url}: the reply is not JSON ({exc.msg if hasattr(exc, 'msg') else exc}): "
                                   f"{snippet(self.body)}") from None

    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


def snippet(body: bytes, limit: int = 120) -> str:
    """The start of a body, on one line, for an error message."""
    text = " ".join(body.decode("utf-8", errors="replace").split())
    return repr(text if len(text) <= limit else text[:limit] + "...")


class _Transient(Exception):
    """An attempt that may succeed when repeated (connection refused or dropped, 5xx)."""


class HttpEndpoint:
    """One server: `post_json` and `get` with the settings' deadline, retries and limit."""

    def __init__(self, settings: HttpSettings):
        self.settings = settings
        self.base = settings.url.rstrip("/")
        self._loops: dict[int, tuple[Any, asyncio.Semaphore, AsyncIterator[None]]] = {}

    def url(self, path: str = "") -> str:
        return f"{self.base}/{path.lstrip('/')}" if path else self.base + "/"

    async def post_json(self, path: str, payload: Any) -> Exchange:
        return await self._request("POST", path, json.dumps(payload).encode("utf-8"))

    async def get(self, path: str = "") -> Exchange:
        return await self._request("GET", path, None)

    async def _request(self, method: str, path: str, body: bytes | None) -> Exchange:
        session, limit = await self._session()
        url, settings = self.url(path), self.settings
        last = ""
        for attempt in range(1, settings.retries + 2):
            if attempt > 1:
                await asyncio.sleep(settings.backoff_s * 2 ** (attempt - 2))
            try:
                async with limit:
                    return await self._attempt(session, method, url, body, attempt)
            except _Transient as exc:
                last = str(exc)
        tries = settings.retries + 1
        raise RemoteAgentError(f"{url}: {last} ({tries} attempt{'s' if tries > 1 else ''})")

    async def _attempt(self, session: Any, method: str, url: str, body: bytes | None, attempt: int) -> Exchange:
        import aiohttp

        started = time.perf_counter()
        headers = {"Content-Type": "application/json"} if body is not None else {}
        try:
            async with session.request(method, url, data=body, headers=headers) as response:
                data = await response.read()
                status, kind = response.status, response.headers.get("Content-Type", "")
        except asyncio.TimeoutError:
            raise RemoteAgentError(f"{url}: no reply within {self.settings.timeout_s:g} s (recommender.timeout_s)") \
                from None
        except aiohttp.ClientConnectorError as exc:
            raise _Transient(f"cannot connect ({exc.os_error.strerror if exc.os_error else exc})") from None
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError, aiohttp.ClientPayloadError) as exc:
            raise _Transient(f"connection dropped ({type(exc).__name__}: {exc})") from None
        except aiohttp.ClientError as exc:
            raise RemoteAgentError(f"{url}: {type(exc).__name__}: {exc}") from None
        latency = (time.perf_counter() - started) * 1000.0
        if status >= 500:
            raise _Transient(f"HTTP {status} {snippet(data)}")
        if status >= 400:
            raise RemoteAgentError(f"{url}: HTTP {status} {snippet(data)}")
        return Exchange(status, data, kind, latency, attempt)

    async def _session(self) -> tuple[Any, asyncio.Semaphore]:
        import aiohttp

        loop = asyncio.get_running_loop()
        held = self._loops.get(id(loop))
        if held is not None and not held[0].closed:
            return held[0], held[1]
        timeout = aiohttp.ClientTimeout(total=self.settings.timeout_s)
        session = aiohttp.ClientSession(timeout=timeout,
                                        connector=aiohttp.TCPConnector(limit=self.settings.max_in_flight))
        keeper = _keep_open(session)
        await keeper.__anext__()  # registered with this loop: closed when asyncio.run finishes
        self._loops[id(loop)] = (session, asyncio.Semaphore(self.settings.max_in_flight), keeper)
        return session, self._loops[id(loop)][1]

    async def aclose(self) -> None:
        """Close this loop's session now (tests; `asyncio.run` does it at its end anyway)."""
        held = self._loops.pop(id(asyncio.get_running_loop()), None)
        if held is not None:
            await held[2].aclose()


async def _keep_open(session: Any) -> AsyncIterator[None]:
    try:
        yield
    finally:
        await session.close()
