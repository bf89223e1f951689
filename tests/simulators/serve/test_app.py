"""The server `crsim serve` runs, spoken to over a real socket: what the agent is given,
what it keeps per conversation, and the one-line refusals of bad requests."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import numpy as np

from agents.base import recommender_from_function
from agents.remote.protocol import PROTOCOL
from environments.base import Recommendation, RecommenderObservation
from simulators.serve.app import AgentServer


class Recording:
    """A recommender that scores by item position, remembers what it saw, and says so."""

    def __init__(self, n: int):
        self.seen: list[RecommenderObservation] = []
        self.scores = np.arange(n, dtype=np.float64)
        self.scores[0] = -np.inf  # one candidate it refuses to rank

    def __call__(self, observation: RecommenderObservation) -> Recommendation:
        self.seen.append(observation)
        return Recommendation(question=f"turn {observation.turn}?", scores=self.scores,
                              metadata={"count": np.int64(len(self.seen))})


def exchange(server: AgentServer, requests: list[tuple[str, str, Any]]) -> list[tuple[int, Any]]:
    """Start `server` on a free port, send `requests` (method, path, body) in order, stop it."""
    import aiohttp
    from aiohttp import web

    async def go() -> list[tuple[int, Any]]:
        runner = web.AppRunner(server.app())
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        out = []
        try:
            async with aiohttp.ClientSession() as session:
                for method, path, body in requests:
                    data = body if isinstance(body, str) else json.dumps(body)
                    async with session.request(method, f"http://127.0.0.1:{port}{path}", data=data) as response:
                        text = await response.text()
                        kind = response.headers.get("Content-Type", "")
                        out.append((response.status, json.loads(text) if "json" in kind else text))
        finally:
            await runner.cleanup()
        return out

    return asyncio.run(go())


def turn(conversation: str, reset: bool, **extra: Any) -> dict[str, Any]:
    return {"protocol": PROTOCOL, "conversation_id": conversation, "reset": reset, "role": "recommender",
            "turn": extra.pop("turn", 0), "item_noun": "restaurants", "seed": 3, **extra}


def test_a_conversation_keeps_its_candidates_and_memory_and_shown_cards_come_from_the_catalog(tiny_catalog):
    agent = Recording(len(tiny_catalog.items))
    server = AgentServer("recommender", recommender_from_function(agent), tiny_catalog, "recording")
    history = [{"index": 0, "role": "recommender", "text": "Hi"}, {"index": 1, "role": "seeker", "text": "spicy"}]
    (info, first, second) = exchange(server, [
        ("GET", "/", None),
        ("POST", "/turn", turn("a", True, message="spicy", history=history, candidates=tiny_catalog.item_ids)),
        ("POST", "/turn", turn("a", False, turn=1, message="cheap", shown=[{"id": "i03", "title": "Place 03"}],
                               history=history + [{"index": 2, "role": "recommender", "text": "turn 0?"},
                                                  {"index": 3, "role": "seeker", "text": "cheap"}])),
    ])
    assert info == (200, {"protocol": PROTOCOL, "role": "recommender", "agent": "recording",
                          "catalog_fingerprint": tiny_catalog.fingerprint, "items": 24})
    assert first[0] == 200 and first[1]["text"] == "turn 0?" and first[1]["metadata"] == {"count": 1}
    assert first[1]["scores"][0] is None and first[1]["scores"][1:] == list(range(1, 24))  # -inf: null
    assert second[0] == 200 and second[1]["text"] == "turn 1?"
    seen = agent.seen[1]
    assert list(seen.candidates) == list(tiny_catalog.item_ids) and seen.episode_seed == 3
    assert seen.shown[0].description.startswith("A ") and [t.text for t in seen.dialogue][-1] == "cheap"


def test_without_history_the_server_keeps_the_transcript(tiny_catalog):
    agent = Recording(len(tiny_catalog.items))
    server = AgentServer("recommender", recommender_from_function(agent), tiny_catalog, "recording")
    exchange(server, [("POST", "/turn", turn("b", True, message="spicy")),
                      ("POST", "/turn", turn("b", False, turn=1, message="cheap"))])
    assert [(t.role, t.text) for t in agent.seen[1].dialogue] == [
        ("seeker", "spicy"), ("recommender", "turn 0?"), ("seeker", "cheap")]


def test_bad_requests_are_refused_in_one_line(tiny_catalog):
    agent = Recording(len(tiny_catalog.items))
    server = AgentServer("recommender", recommender_from_function(agent), tiny_catalog, "recording")
    answers = exchange(server, [
        ("POST", "/turn", "{not json"),
        ("POST", "/turn", {"conversation_id": "c", "role": "recommender"}),
        ("POST", "/turn", turn("c", True, role="seeker")),
        ("POST", "/turn", turn("never-started", False)),
    ])
    assert [status for status, _ in answers] == [400, 400, 400, 409]
    assert answers[0][1].startswith("the request is not JSON")
    assert answers[1][1] == "field 'turn': Field required"
    assert answers[2][1] == "field 'role': this server serves a recommender, not a seeker"
    assert answers[3][1].startswith("unknown conversation 'never-started': its first move must say reset")
    assert all("\n" not in text for _, text in answers) and agent.seen == []


def test_a_failing_agent_is_a_500_with_its_exception_line(tiny_catalog):
    def broken(observation: RecommenderObservation) -> Recommendation:
        raise ValueError("no index for this catalog")

    server = AgentServer("recommender", recommender_from_function(broken), tiny_catalog, "broken")
    ((status, text),) = exchange(server, [("POST", "/turn", turn("d", True))])
    assert status == 500 and text.startswith("ValueError: no index for this catalog")


def test_the_usersimcrs_shape_rebuilds_the_dialogue_and_names_the_top_titles(tiny_catalog):
    agent = Recording(len(tiny_catalog.items))
    server = AgentServer("recommender", recommender_from_function(agent), tiny_catalog, "recording",
                         shape="usersimcrs")
    (info, reply, bad) = exchange(server, [
        ("GET", "/", None),
        ("POST", "/", {"context": ["spicy", "Which price?", "cheap"], "message": "cheap"}),  # UserSimCRS repeats it
        ("POST", "/", {"message": "no context"}),
    ])
    assert info == (200, "Model is running.") and bad[0] == 400
    assert reply == (200, "turn 1? You might like: Place 23; Place 22; Place 21.")
    assert [t.text for t in agent.seen[0].dialogue] == ["spicy", "Which price?", "cheap"]
