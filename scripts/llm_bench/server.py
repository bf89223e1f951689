"""The stub OpenAI-compatible server `scripts/bench_llm.py` measures against.

aiohttp, in a separate *process* (its CPU is not counted as client overhead), on
127.0.0.1; it answers at once with a fixed small JSON completion including usage, and
stops when told, when the process that started it dies, or after its lifetime.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
import os
import time
import urllib.request
from typing import Any

MODEL = "stub-model"

# What the server answers, chosen by a marker in the request body (bytes search, no JSON
# parsing): the crsim steps' expected JSON (as tests/openai_stub_server.SCRIPTED) and, for
# anything else (the micro-benchmark prompt), {"answer": "ok"}.
SERVER_REPLIES = (
    (b"summarise customer reviews", {"summary": "STUB: reviewers loved the food."}),
    (b"conversational recommender", {"question": "STUB: which cuisine do you like?", "aspect": "cuisine"}),
    (b"role-playing a person", {"answer": "STUB: something spicy, please.", "has_preference": True}),
)
DEFAULT_REPLY = {"answer": "ok"}


def _completion_body(content: dict[str, Any]) -> bytes:
    text = json.dumps(content)
    return json.dumps({
        "id": "chatcmpl-bench", "object": "chat.completion", "created": 1700000000, "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": "stop", "logprobs": None}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
    }).encode()


def serve(conn: Any, lifetime: float) -> None:
    """Child-process entry point: serve until told to stop, the parent dies, or `lifetime`."""
    import socket

    from aiohttp import web

    bodies = [(marker, _completion_body(reply)) for marker, reply in SERVER_REPLIES]
    default_body = _completion_body(DEFAULT_REPLY)
    stats = {"completions": 0}
    parent = os.getppid()

    async def completions(request: web.Request) -> web.Response:
        raw = await request.read()
        stats["completions"] += 1
        body = next((b for marker, b in bodies if marker in raw), default_body)
        return web.Response(body=body, content_type="application/json")

    async def get_stats(_request: web.Request) -> web.Response:
        return web.json_response({**stats, "cpu_s": time.process_time()})

    async def main() -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", completions)
        app.router.add_get("/stats", get_stats)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(1024)
        site = web.SockSite(runner, sock, backlog=1024)
        await site.start()
        conn.send(sock.getsockname()[1])
        deadline = time.monotonic() + lifetime
        try:
            while time.monotonic() < deadline and os.getppid() == parent:
                if conn.poll():  # any message (or EOF) means stop
                    break
                await asyncio.sleep(0.2)
        except (EOFError, OSError):
            pass
        finally:
            await runner.cleanup()

    asyncio.run(main())


class ServerProcess:
    """The stub server in a spawned process; a context manager that always stops it."""

    def __init__(self, lifetime: float) -> None:
        self.lifetime = lifetime
        self.process: Any = None
        self.conn: Any = None
        self.url = ""
        self.root = ""

    def __enter__(self) -> ServerProcess:
        ctx = mp.get_context("spawn")  # no fork of a process that may already hold threads
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=serve, args=(child, self.lifetime), name="bench-llm-server",
                                   daemon=True)
        self.process.start()
        child.close()
        if not self.conn.poll(60):
            self.stop()
            raise RuntimeError("stub server did not start within 60 s")
        port = self.conn.recv()
        self.root = f"http://127.0.0.1:{port}"
        self.url = f"{self.root}/v1"
        return self

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.root}/stats", timeout=10) as response:  # noqa: S310 - local
            return json.loads(response.read())

    def stop(self) -> None:
        if self.process is None:
            return
        try:
            self.conn.send("stop")
        except (OSError, ValueError):
            pass
        self.process.join(5)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)
        self.conn.close()
        self.process = None

    def __exit__(self, *exc: object) -> None:
        self.stop()
