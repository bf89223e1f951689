"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions API, for tests.

DESIGN.md §6: an LLM path is tested against a real server, so the whole client stack
(langchain-openai, the openai SDK and its retries, litellm, httpx/aiohttp) runs exactly as
it would against vLLM or the OpenAI API. What the server answers is scripted by a
`Responder`, a callable `(request_json) -> Reply | str`; a plain string is the assistant's
content. `Reply` also injects faults: an HTTP error status (429 with Retry-After, 500), a
delay (for client timeouts), a malformed body, or empty content.

The server records every request (path, headers, body) so tests can count calls and check
that the Authorization header was sent. It runs in a daemon thread, stops itself after
`lifetime` seconds or `max_requests` requests (503 from then on), and cuts delays short
when stopped, so a broken test cannot hang the suite. The lifetime is generous (15 minutes):
a whole LLM episode took 225 s on a two-core machine running other work, and a server that
stopped under it failed a correct test (it was 120 s).

    from openai_stub_server import openai_stub  # noqa: F401  (the fixture)

    def test_x(openai_stub):
        openai_stub.responder = crsim_responder()
        ... ChatOpenAI(base_url=openai_stub.url, ...) ...
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Reply:
    """One scripted answer. `body` (dict or raw text) replaces the generated completion."""

    content: str | None = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    body: dict[str, Any] | str | None = None


Responder = Callable[[dict[str, Any]], "Reply | str"]


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    json: dict[str, Any] | None
    status: int = 0

    def header(self, name: str) -> str | None:
        """A request header, case-insensitively (aiohttp sends `authorization`, httpx `Authorization`)."""
        return next((v for k, v in self.headers.items() if k.lower() == name.lower()), None)


# --- Replies -------------------------------------------------------------------------------

def rate_limited(retry_after_ms: int = 10) -> Reply:
    """429 with both Retry-After (seconds, rounded up) and retry-after-ms (honoured by the SDK)."""
    seconds = max(1, -(-retry_after_ms // 1000))
    headers = {"Retry-After": str(seconds), "retry-after-ms": str(retry_after_ms)}
    return Reply(status=429, headers=headers, body=_error("Rate limit reached", "rate_limit_exceeded"))


def server_error(retry_after_ms: int | None = 10) -> Reply:
    """500; a short retry-after-ms keeps the SDK's backoff (0.5 s, 1 s, ...) out of test time."""
    headers = {} if retry_after_ms is None else {"retry-after-ms": str(retry_after_ms)}
    return Reply(status=500, headers=headers, body=_error("The server had an error", "server_error"))


def malformed_body() -> Reply:
    """A 200 whose body is not JSON at all (a broken proxy, a truncated answer)."""
    return Reply(body='{"id": "chatcmpl-broken", "choices": [')


def _error(message: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": code, "param": None, "code": code}}


# --- Responders ----------------------------------------------------------------------------

STEP_MARKERS = {
    "summarize_reviews": "summarise customer reviews",
    "clarify_question": "conversational recommender",
    "item_answer": "You help someone choose",
    "seeker_answer": "role-playing a person",
    "seeker_move": "one move in a chat",
    "shopping_seller": "seller in an online store",
    "shopping_customer": "customer chatting with a seller",
    "shopping_track_state": "dialogue state tracker",
    "shopping_single_pass": "scriptwriter for shopping",
    "shopping_extract_query": "search query from a shopping conversation",
    "crag_extract": "You pick out every title",
    "crag_link_reflect": "in a message to a catalog",
    "crag_context_reflect": "collaborative filtering produced",
    "crag_recommend": "You compile a list of",
    "crag_infer": "has not named any",
    "crag_rerank": "You rate each candidate recommendation",
    "pepper_extract": "You read one person's review",
    "pepper_general": "You describe a person's taste",
    "pepper_reflect": "You are a person looking for",
    "pepper_reply": "role-playing a user of a movie recommender",
    "judge_proactiveness": "You grade proactiveness",
    "judge_coherence": "You grade coherence",
    "judge_personalization": "You grade personalization",
    # CRS Arena's aspect judge (agents/prompts/arena_judge_*.md)
    "judge_relevance": "You grade relevance",
    "judge_interestingness": "You grade interestingness",
    "judge_understanding": "You grade understanding",
    "judge_task_completion": "You grade task completion",
    "judge_interest_arousal": "You grade interest arousal",
    "judge_efficiency": "You grade efficiency",
    "judge_dialogue_overall": "You grade the overall impression",
    "snippet_item": "You rewrite a customer review",
    "snippet_query": "You turn what a person looking for",
    "snippet_expand": "You help a search engine find reviews",
    "playlist_search": "search a catalog of tracks",
    "playlist_pick": "You are a music curator building",
    "playlist_seeker": "asked a music curator for a playlist",
}

SCRIPTED = {
    "summarize_reviews": {"summary": "STUB: reviewers loved the food."},
    "clarify_question": {"question": "STUB: which cuisine do you like?", "aspect": "cuisine"},
    "item_answer": {"answer": "STUB: yes, it does.", "item_id": None},
    "seeker_answer": {"answer": "STUB: something spicy, please.", "has_preference": True},
    "shopping_seller": {"utterance": "STUB: what would you like?"},
    "shopping_customer": {"utterance": "STUB: that one, please."},
    "shopping_track_state": {"mentioned": []},
    "shopping_single_pass": {"turns": [{"role": "customer", "text": "STUB: I need a lipstick."},
                                       {"role": "seller", "text": "STUB: which colour?"},
                                       {"role": "customer", "text": "STUB: red."},
                                       {"role": "seller", "text": "STUB: then take this one."},
                                       {"role": "customer", "text": "STUB: thanks!"}]},
    "shopping_extract_query": {"category": "lipstick", "wanted": [{"aspect": "color", "value": "red"}],
                               "unwanted": [], "optional": []},
    # CRAG's steps; titles are films of tests/agents/steps/fixtures/linking_movies.jsonl
    "crag_extract": {"mentions": [{"name": "Insidious", "attitude": 2}]},
    "crag_link_reflect": {"choices": []},
    "crag_context_reflect": {"judgements": []},
    "crag_recommend": {"titles": ["Annabelle", "Hereditary", "Scream", "A Quiet Place", "The Conjuring 2"]},
    "crag_infer": {"titles": ["The Conjuring", "Insidious"]},
    "crag_rerank": {"ratings": [{"title": "Scream", "score": 2}]},
    # PEPPER's seeker steps and judge; "horror"/"comedy" are movie-world genres
    "pepper_extract": {"likes": ["horror"], "dislikes": ["comedy"]},
    "pepper_general": {"narrative": "STUB: I love horror.", "likes": ["horror"], "dislikes": ["comedy"]},
    "pepper_reflect": {"reactions": []},
    "pepper_reply": {"reply": "STUB: more horror, please."},
    "judge_proactiveness": {"score": 4, "reason": "STUB: asks a lot."},
    "judge_coherence": {"score": 3, "reason": "STUB: mostly on topic."},
    "judge_personalization": {"score": 2, "reason": "STUB: generic."},
    "judge_relevance": {"score": 2, "reason": "STUB: follows on."},
    "judge_interestingness": {"score": 1, "reason": "STUB: a little engaging."},
    "judge_understanding": {"score": 1, "reason": "STUB: partly."},
    "judge_task_completion": {"score": 0, "reason": "STUB: nothing accepted."},
    "judge_interest_arousal": {"score": 1, "reason": "STUB: a weak attempt."},
    "judge_efficiency": {"score": 1, "reason": "STUB: early fit."},
    "judge_dialogue_overall": {"score": 3, "reason": "STUB: satisfied."},
    # SnipRec's steps
    "snippet_item": {"snippets": [{"text": "This restaurant serves STUB dishes.", "aspect": "food", "sentiment": 0.5,
                                   "negated": False}]},
    "snippet_query": {"snippets": [{"text": "This restaurant serves STUB dishes.", "preference": "prefer"}]},
    "snippet_expand": {"paraphrase": "This restaurant offers STUB plates.", "support": "This restaurant has STUB sides.",
                       "opposite": "This restaurant does not serve STUB dishes."},
    # playlist curation: tracks are answered by their number in the list shown
    "playlist_search": {"query": "STUB upbeat"},
    "playlist_pick": {"add": ["1"], "response": "STUB: here are some tracks."},
    "playlist_seeker": {"text": "STUB: I like the first one.", "like": [1], "dislike": [], "remove": [],
                        "done": False},
}

SINGLE_TARGET_STEPS = ("clarify_question", "seeker_answer", "summarize_reviews")


def step_of(request: dict[str, Any]) -> str | None:
    """Which crsim language step a request comes from, read off its system prompt."""
    messages = request.get("messages") or []
    text = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
    return next((step for step, marker in STEP_MARKERS.items() if marker in text), None)


# The seeker's reply on its first, second, ... turn: the seeker step refuses a message it
# already sent, as a person does not send one twice.
SEEKER_REPLIES = [SCRIPTED["seeker_answer"]["answer"], "STUB: near the river, please.", "STUB: not too loud."]
# The recommender's question likewise: the clarify step refuses one it already asked, and an
# aspect already asked is not in its answer schema.
QUESTIONS = [(SCRIPTED["clarify_question"]["question"], "cuisine"), ("STUB: how loud may it be?", "noise"),
             ("STUB: what budget?", "price_range")]


def user_texts(request: dict[str, Any]) -> list[str]:
    return [str(m.get("content", "")) for m in request.get("messages") or [] if m.get("role") == "user"]


def turns_of(request: dict[str, Any], role: str) -> int:
    """How many messages `role` has sent in the dialogue the request quotes."""
    text = " ".join(user_texts(request))
    return text.count(f"\n{role}: ")


def crsim_responder(overrides: dict[str, Responder] | None = None) -> Responder:
    """Answer every crsim step with the JSON it expects (SCRIPTED); `overrides` per step."""
    overrides = overrides or {}

    def respond(request: dict[str, Any]) -> Reply | str:
        step = step_of(request)
        if step in overrides:
            return overrides[step](request)
        if step == "seeker_answer":
            reply = SEEKER_REPLIES[turns_of(request, "seeker") % len(SEEKER_REPLIES)]
            return json.dumps({**SCRIPTED[step], "answer": reply})
        if step == "seeker_move":  # word the move as the prompt states it
            task = re.search(r"Your next message must: <<<(.*?)>>>", " ".join(user_texts(request)), flags=re.S)
            return json.dumps({"text": f"STUB: {task.group(1) if task else 'hm'}."})
        if step == "clarify_question":  # the greeting is a recommender line too
            question, aspect = QUESTIONS[(turns_of(request, "recommender") - 1) % len(QUESTIONS)]
            lists = re.findall(r"(?:may still ask about|not asked yet): <<<(.*?)>>>", " ".join(user_texts(request)))
            askable = any(aspect in re.split(r",\s*", line) for line in lists)
            return json.dumps({**SCRIPTED[step], "question": question, "aspect": aspect if askable else None})
        return json.dumps(SCRIPTED.get(step, {"text": "STUB: unknown prompt"}))

    return respond


def first_n(n: int, fault: Reply, then: Responder) -> Responder:
    """`fault` for the first `n` requests, `then` afterwards (thread-safe counter)."""
    counter = itertools.count()
    lock = threading.Lock()

    def respond(request: dict[str, Any]) -> Reply | str:
        with lock:
            i = next(counter)
        return fault if i < n else then(request)

    return respond


def always(reply: Reply | str) -> Responder:
    return lambda _request: reply


# --- Server --------------------------------------------------------------------------------

class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the SDKs expect
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr
        return

    def do_GET(self) -> None:
        record = self._record(None)
        if self.path.rstrip("/") == "/v1/models":
            self._send(record, 200, {"object": "list", "data": [
                {"id": "stub-model", "object": "model", "created": 0, "owned_by": "crsim"}]})
        else:
            self._send(record, 404, _error(f"no route {self.path}", "not_found"))

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            request = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            request = None
        record = self._record(request)
        stub = self.server.stub
        if self.path.rstrip("/") != "/v1/chat/completions":
            return self._send(record, 404, _error(f"no route {self.path}", "not_found"))
        if request is None:
            return self._send(record, 400, _error("body is not JSON", "invalid_request_error"))
        if stub.count > stub.max_requests:
            return self._send(record, 503, _error("stub request limit reached", "overloaded"))
        reply = stub.responder(request)
        reply = Reply(content=reply) if isinstance(reply, str) else reply
        if reply.delay and stub.stopping.wait(reply.delay):
            return  # stopped while delaying: drop the connection
        body = reply.body if reply.body is not None else _completion(request, reply.content, stub.count)
        self._send(record, reply.status, body, reply.headers)

    def _record(self, request: dict[str, Any] | None) -> RecordedRequest:
        record = RecordedRequest(self.command, self.path, dict(self.headers.items()), request)
        with self.server.stub.lock:
            self.server.stub.requests.append(record)
        return record

    def _send(self, record: RecordedRequest, status: int, body: dict[str, Any] | str,
              headers: dict[str, str] | None = None) -> None:
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
        record.status = status
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout) before we answered


def _completion(request: dict[str, Any], content: str | None, n: int) -> dict[str, Any]:
    prompt_words = sum(len(str(m.get("content", "")).split()) for m in request.get("messages", []))
    answer_words = len((content or "").split())
    return {
        "id": f"chatcmpl-stub-{n}", "object": "chat.completion", "created": int(time.time()),
        "model": request.get("model", "stub-model"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop", "logprobs": None}],
        "usage": {"prompt_tokens": prompt_words, "completion_tokens": answer_words,
                  "total_tokens": prompt_words + answer_words},
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a handler still delaying must not block stop()
    stub: OpenAIStubServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients dropping pooled keep-alive connections is normal; anything else is printed."""
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


class OpenAIStubServer:
    """The server, its script and its request log. Use as a context manager or `openai_stub`."""

    def __init__(self, responder: Responder | None = None, *, max_requests: int = 500,
                 lifetime: float = 900.0) -> None:
        self.responder: Responder = responder or crsim_responder()
        self.max_requests = max_requests
        self.lifetime = lifetime
        self.requests: list[RecordedRequest] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self._httpd: _Server | None = None
        self._threads: list[threading.Thread] = []
        self._url = ""

    @property
    def url(self) -> str:
        """Base URL for clients (`base_url` / `api_base`), ending in /v1."""
        assert self._url, "server not started"
        return self._url

    @property
    def count(self) -> int:
        """Requests to /v1/chat/completions so far."""
        with self.lock:
            return sum(1 for r in self.requests if r.path.startswith("/v1/chat/completions"))

    @property
    def completions(self) -> list[RecordedRequest]:
        with self.lock:
            return [r for r in self.requests if r.path.startswith("/v1/chat/completions")]

    def start(self) -> OpenAIStubServer:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)  # port 0: a free port
        self._httpd.stub = self
        host, port = self._httpd.server_address[:2]
        self._url = f"http://{host}:{port}/v1"
        serve = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                 name="openai-stub", daemon=True)
        watchdog = threading.Thread(target=self._watchdog, name="openai-stub-watchdog", daemon=True)
        self._threads = [serve, watchdog]
        for thread in self._threads:
            thread.start()
        return self

    def _watchdog(self) -> None:
        if not self.stopping.wait(self.lifetime):
            self.stop()

    def stop(self) -> None:
        if self.stopping.is_set() and self._httpd is None:
            return
        self.stopping.set()
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()

    def __enter__(self) -> OpenAIStubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# --- A crsim episode through a chat model -------------------------------------------------

@pytest.fixture
def openai_stub() -> Iterator[OpenAIStubServer]:
    """A started stub (answers every crsim step via `crsim_responder`), stopped afterwards."""
    with OpenAIStubServer() as stub:
        yield stub
