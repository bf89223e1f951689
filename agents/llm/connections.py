"""Let a chat model's pooled HTTP connections go when the event loop that opened them ends.

An async HTTP client keeps its connections in a pool, and a connection belongs to the
event loop that opened it. Work done with a model outside the run's loop (an index an
agent builds with a model while it is constructed, under its own `asyncio.run`) leaves
connections that the next loop cannot use: its first request fails on a dead connection
and burns a retry, or fails outright with `max_retries=0`. Closing the pools' connections
before that loop ends costs nothing (the pool opens fresh ones on demand) and keeps the
client itself open.
"""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 6


async def release_connections(llm: Any) -> int:
    """Close the pooled connections of every `httpx.AsyncClient` reachable from `llm`
    (through wrappers, the chat model and the SDK client); returns how many clients."""
    import httpx

    found: list[httpx.AsyncClient] = []
    seen: set[int] = set()
    frontier = [llm]
    for _ in range(MAX_DEPTH):
        nxt = []
        for obj in frontier:
            if obj is None or id(obj) in seen or isinstance(obj, (str, bytes, int, float, bool)):
                continue
            seen.add(id(obj))
            if isinstance(obj, httpx.AsyncClient):
                found.append(obj)
                continue
            nxt.extend(getattr(obj, "__dict__", {}).values())
        frontier = nxt
    for client in found:
        transport = getattr(client, "_transport", None)
        if transport is not None and not client.is_closed:
            await transport.aclose()  # the pool's connections; the pool stays usable
    return len(found)
