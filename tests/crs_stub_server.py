"""A real HTTP server on 127.0.0.1 playing a remote CRS, for `recommender=http` tests.

What it answers is scripted by `responder(path, body) -> Answer`: a status, a body (a dict
is sent as JSON, a string as it is) and a delay, so a test can make it slow, fail with a
5xx a few times, answer garbage, name unknown ids or titles. It records every request,
runs in a daemon thread and cuts delays short when stopped, so a broken test cannot hang.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Answer:
    body: dict[str, Any] | str = ""
    status: int = 200
    delay: float = 0.0


Responder = Callable[[str, Any], Answer]


class CrsStub:
    def __init__(self) -> None:
        self.responder: Responder = lambda path, body: Answer({"text": "Anything else?", "items": []})
        self.requests: list[tuple[str, str, Any]] = []
        self.stopped = threading.Event()
        self.in_flight = self.most_in_flight = 0
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self, method: str) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(raw) if raw else None
                with stub._lock:
                    stub.requests.append((method, self.path, body))
                    stub.in_flight += 1
                    stub.most_in_flight = max(stub.most_in_flight, stub.in_flight)
                answer = stub.responder(self.path, body)
                if answer.delay:
                    stub.stopped.wait(answer.delay)
                with stub._lock:
                    stub.in_flight -= 1
                data = json.dumps(answer.body) if isinstance(answer.body, dict) else answer.body
                kind = "application/json" if isinstance(answer.body, dict) else "text/plain; charset=utf-8"
                payload = data.encode("utf-8")
                try:
                    self.send_response(answer.status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                    pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                self._answer("GET")

            def do_POST(self) -> None:  # noqa: N802
                self._answer("POST")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def posts(self) -> list[Any]:
        return [body for method, _, body in self.requests if method == "POST"]

    def stop(self) -> None:
        self.stopped.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def crs_stub() -> Iterator[CrsStub]:
    stub = CrsStub()
    try:
        yield stub
    finally:
        stub.stop()


def free_port() -> int:
    """A port nothing listens on (bound and released at once)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(predicate: Callable[[], bool], seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


class Served:
    """`crsim serve ARGS --port 0` in a subprocess; `url` once it says it is listening."""

    def __init__(self, *args: str, env: dict[str, str] | None = None):
        import os
        import subprocess

        from crsim_testing import CRSIM

        self.process = subprocess.Popen([CRSIM, "serve", "--port", "0", *args], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
        line = self.process.stdout.readline() if self.process.stdout else ""
        if " on http://" not in line:
            self.stop()
            raise RuntimeError(f"crsim serve did not start: {line!r} {self.process.stderr.read()[-2000:]}")
        self.url = line.strip().rsplit(" on ", 1)[1]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except Exception:  # noqa: BLE001 - a server that ignores SIGTERM is killed
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
