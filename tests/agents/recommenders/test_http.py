"""`recommender=http` against a real server on 127.0.0.1 (tests/crs_stub_server.py): what it
sends, how each kind of reply becomes a move, and how each kind of failure ends."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import numpy as np
import pytest
from crs_stub_server import Answer, free_port

from agents.recommenders.http import build
from agents.remote.client import RemoteAgentError
from environments.base import ItemCard, RecommenderObservation
from environments.errors import CrsimError
from environments.models import Role, Turn


def observation(catalog: Any, dialogue: list[tuple[str, str]], turn: int = 0, seed: int = 7,
                shown: tuple[str, ...] = ()) -> RecommenderObservation:
    turns = tuple(Turn(index=i, role=role, text=text) for i, (role, text) in enumerate(dialogue))
    cards = tuple(ItemCard.of(catalog.items[catalog.item_index[i]]) for i in shown)
    return RecommenderObservation(turn, turns, cards, catalog.item_ids, catalog.item_noun, seed)


OPENING = [(Role.recommender, "Hi! What are you looking for?"), (Role.seeker, "something spicy")]


def moves(agent: Any, observations: list[RecommenderObservation]) -> list[Any]:
    """The agent's moves for one conversation's observations, in one event loop."""
    async def play() -> list[Any]:
        state, out = agent.init_state(observations[0]), []
        for obs in observations:
            action, state = await agent.respond(obs, state)
            out.append(action)
        return out
    return asyncio.run(play())


def test_the_crsim_shape_resets_once_sends_candidates_once_and_keeps_one_conversation_id(tiny_catalog, crs_stub):
    crs_stub.responder = lambda path, body: Answer({"text": "How about these?", "items": ["i03", "i01"],
                                                    "metadata": {"why": "spicy"}})
    agent = build(tiny_catalog, url=crs_stub.url)
    second = OPENING + [(Role.recommender, "How about these?"), (Role.seeker, "cheaper please")]
    first_move, second_move = moves(agent, [observation(tiny_catalog, OPENING),
                                            observation(tiny_catalog, second, turn=1, shown=("i03", "i01"))])
    (path1, path2), (req1, req2) = [p for _, p, _ in crs_stub.requests], crs_stub.posts()
    assert path1 == path2 == "/turn"
    assert req1["reset"] is True and req2.get("reset", False) is False
    assert req1["conversation_id"] == req2["conversation_id"] and req1["conversation_id"].endswith("-7")
    assert req1["candidates"] == list(tiny_catalog.item_ids) and "candidates" not in req2
    assert req2["message"] == "cheaper please" and [t["text"] for t in req2["history"]][-1] == "cheaper please"
    assert [s["id"] for s in req2["shown"]] == ["i03", "i01"] and req1["role"] == "recommender"
    assert first_move.ranked_ids == ["i03", "i01"] and first_move.question == "How about these?"
    assert second_move.metadata["why"] == "spicy"
    remote = second_move.metadata["remote"]
    assert remote["attempts"] == 1 and remote["latency_ms"] > 0 and remote["items"] == 2


def test_a_second_agent_never_shares_a_conversation_id_with_the_first(tiny_catalog, crs_stub):
    crs_stub.responder = lambda path, body: Answer({"text": "?", "items": []})
    for _ in range(2):
        moves(build(tiny_catalog, url=crs_stub.url), [observation(tiny_catalog, OPENING)])
    first, second = crs_stub.posts()
    assert first["conversation_id"] != second["conversation_id"]  # two runs on one server stay apart


def test_scores_are_taken_as_they_are_and_null_means_unranked(tiny_catalog, crs_stub):
    scores: list[float | None] = [float(i % 5) for i in range(len(tiny_catalog.items))]
    scores[2] = None
    crs_stub.responder = lambda path, body: Answer({"text": "Which cuisine?", "scores": scores})
    (move,) = moves(build(tiny_catalog, url=crs_stub.url), [observation(tiny_catalog, OPENING)])
    assert move.ranked_ids is None and move.scores[2] == -math.inf
    assert np.array_equal(np.delete(move.scores, 2), np.delete(np.asarray([s or 0 for s in scores]), 2))


def test_ids_the_catalog_lacks_are_left_out_and_reported(tiny_catalog, crs_stub):
    crs_stub.responder = lambda path, body: Answer({"text": "Try these", "items": ["nope", "i05", "gone"]})
    (move,) = moves(build(tiny_catalog, url=crs_stub.url), [observation(tiny_catalog, OPENING)])
    assert move.ranked_ids == ["i05"] and move.metadata["remote"]["unknown_ids"] == ["nope", "gone"]


def test_a_text_only_reply_is_linked_to_the_catalog_and_titles_it_lacks_are_reported(tiny_catalog, crs_stub):
    crs_stub.responder = lambda path, body: Answer(
        {"text": "You could try Place 07, or Place 02! Or \"Zorblax Grill\", like Kebab Kingdom (2019)."})
    (move,) = moves(build(tiny_catalog, url=crs_stub.url), [observation(tiny_catalog, OPENING)])
    assert move.ranked_ids == ["i07", "i02"]
    assert move.metadata["remote"]["unlinked"] == ["Zorblax Grill", "Kebab Kingdom (2019)"]


def test_a_reply_with_no_items_ranks_nothing(tiny_catalog, crs_stub):
    crs_stub.responder = lambda path, body: Answer({"text": "Tell me more about what you like."})
    (move,) = moves(build(tiny_catalog, url=crs_stub.url), [observation(tiny_catalog, OPENING)])
    assert move.ranked_ids == [] and move.metadata["remote"]["items"] == 0


def test_the_usersimcrs_shape_sends_the_dialogue_from_the_seeker_on_and_reads_plain_text(tiny_catalog, crs_stub):
    crs_stub.responder = lambda path, body: Answer("I would suggest Place 11 for that.")
    dialogue = OPENING + [(Role.recommender, "Any budget?"), (Role.seeker, "cheap")]
    (move,) = moves(build(tiny_catalog, url=crs_stub.url, shape="usersimcrs"), [observation(tiny_catalog, dialogue)])
    ((_, path, body),) = crs_stub.requests
    assert path == "/" and body == {"context": ["something spicy", "Any budget?"], "message": "cheap"}
    assert move.question == "I would suggest Place 11 for that." and move.ranked_ids == ["i11"]


def test_5xx_replies_are_retried_with_backoff_until_one_succeeds(tiny_catalog, crs_stub):
    replies = iter([Answer("overloaded", status=503), Answer("boom", status=500),
                    Answer({"text": "Here", "items": ["i01"]})])
    crs_stub.responder = lambda path, body: next(replies)
    (move,) = moves(build(tiny_catalog, url=crs_stub.url, retries=3, backoff_s=0.01),
                    [observation(tiny_catalog, OPENING)])
    assert move.ranked_ids == ["i01"] and move.metadata["remote"]["attempts"] == 3
    assert len(crs_stub.requests) == 3


@pytest.mark.parametrize(("answer", "expected"), [
    (Answer("boom", status=500), r"HTTP 500 'boom' \(3 attempts\)"),
    (Answer("bad request", status=400), r"HTTP 400 'bad request'\n"),
    (Answer("<html>not json</html>"), r"the reply is not JSON"),
    (Answer({"items": ["i01"]}), r"malformed reply, field 'text': Field required"),
    (Answer({"text": "hi", "scores": [1.0, 2.0]}), r"2 scores for 24 candidates"),
    (Answer({"text": "late"}, delay=5.0), r"no reply within 0.5 s"),
], ids=["5xx-every-time", "4xx", "not-json", "no-text", "wrong-score-count", "too-slow"])
def test_an_unusable_answer_is_one_line_naming_the_server(tiny_catalog, crs_stub, answer, expected):
    crs_stub.responder = lambda path, body: answer
    agent = build(tiny_catalog, url=crs_stub.url, retries=2, backoff_s=0.01, timeout_s=0.5)
    with pytest.raises(RemoteAgentError, match=expected) as caught:
        moves(agent, [observation(tiny_catalog, OPENING)])
    line = caught.value.args[0]  # LangGraph adds a note after it; error_line() reads this line
    assert "\n" not in line and line.startswith(crs_stub.url)
    attempts = 3 if answer.status >= 500 else 1  # only a 5xx is asked again
    assert len(crs_stub.requests) == attempts


def test_a_server_that_is_down_is_retried_then_one_line(tiny_catalog):
    url = f"http://127.0.0.1:{free_port()}"
    agent = build(tiny_catalog, url=url, retries=1, backoff_s=0.01)
    with pytest.raises(RemoteAgentError, match=r"cannot connect .*\(2 attempts\)"):
        moves(agent, [observation(tiny_catalog, OPENING)])


def test_requests_in_flight_to_one_server_are_limited(tiny_catalog, crs_stub):
    crs_stub.responder = lambda path, body: Answer({"text": "?", "items": []}, delay=0.2)
    agent = build(tiny_catalog, url=crs_stub.url, max_in_flight=2)

    async def many() -> None:
        await asyncio.gather(*(agent.respond(obs, agent.init_state(obs))
                               for obs in (observation(tiny_catalog, OPENING, seed=s) for s in range(6))))

    asyncio.run(many())
    assert len(crs_stub.requests) == 6 and crs_stub.most_in_flight == 2
    assert len({body["conversation_id"] for body in crs_stub.posts()}) == 6


@pytest.mark.parametrize(("key", "value", "message"), [
    ("shape", "grpc", "recommender.shape: 'grpc' is not a wire shape"),
    ("url", "127.0.0.1:8765", "recommender.url: '127.0.0.1:8765' is not an http"),
    ("timeout_s", 0, "recommender.timeout_s: Input should be greater than 0"),
])
def test_a_bad_setting_is_a_crsim_error_naming_the_key(tiny_catalog, key, value, message):
    settings: dict[str, Any] = {"url": "http://127.0.0.1:1", key: value}
    with pytest.raises(CrsimError, match=message):
        build(tiny_catalog, **settings)
