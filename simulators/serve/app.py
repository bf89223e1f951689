"""The server `crsim serve` runs: one crsim agent, many conversations, over HTTP.

A served seeker brings its environment's episodes along (`seeker.py`); what follows is
about the recommender, the usual case.

It speaks crsim/1 (`agents/remote/protocol.py`): `GET /` describes it, `POST /turn` is one
move. Each conversation keeps the agent's memory between moves, the candidates its first
move sent and, when the client sends no history, the transcript so far; `reset` starts a
conversation afresh. Conversations are many and independent (a client runs episodes in
parallel), so they live in a bounded map (`conversations.py`): a move for a forgotten or
never-started conversation is refused (409), never answered from nothing. The agent is the one `crsim run` builds from the same config, so it answers as it
does in process: a served `recommender=bm25` ranks exactly as `recommender=bm25`.

With `shape="usersimcrs"` it speaks instead the shape UserSimCRS's wrappers and CRS Arena
send to a CRS (`POST /` with the context and the message, a plain-text reply), so those
toolkits can talk to a crsim recommender; that shape has no screen, so the reply names the
films on it after the recommender's question.

Bad requests get a 400 with one line saying which field is wrong; an agent that fails
gets a 500 with the exception's line (the client retries a 5xx, then ends the episode).
"""

from __future__ import annotations

import json
import math
import traceback
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import ValidationError

from agents.remote.protocol import (
    PROTOCOL, ServerInfo, TurnReply, TurnRequest, UserSimCRSRequest, problem_line, wire_scores,
)
from environments.base import EnvironmentSetup, ItemCard, Recommendation, RecommenderObservation
from environments.catalog import Catalog
from environments.models import Role, Turn
from simulators.serve.conversations import MAX_CONVERSATIONS, Conversations
from simulators.serve.seeker import SeekerHost


@dataclass
class Conversation:
    state: dict[str, Any]
    candidates: list[str]
    dialogue: list[Turn] = field(default_factory=list)  # kept only when the client sends no history


class AgentServer:
    """One agent of `role`, built on `catalog` (the view the environment gives that role)."""

    def __init__(self, role: str, agent: Any, catalog: Catalog, name: str, shape: str = "crsim",
                 max_conversations: int = MAX_CONVERSATIONS, setup: EnvironmentSetup | None = None):
        self.role, self.agent, self.catalog, self.name, self.shape = role, agent, catalog, name, shape
        self.conversations: Conversations[Conversation] = Conversations(max_conversations)
        self.seekers: SeekerHost | None = None
        if role == Role.seeker.value:
            if setup is None or shape != "crsim":
                raise ValueError("a served seeker needs its environment setup and speaks crsim/1 only")
            self.seekers = SeekerHost(setup, agent, max_conversations)
        elif role != Role.recommender.value:
            raise ValueError(f"crsim serve serves a recommender or a seeker, not a {role}")

    # ------------------------------------------------------------------ HTTP
    def app(self) -> Any:
        from aiohttp import web

        app = web.Application(client_max_size=64 * 1024 * 1024)
        if self.shape == "usersimcrs":
            app.router.add_get("/", self._usersimcrs_info)
            app.router.add_post("/", self._usersimcrs_turn)
        else:
            app.router.add_get("/", self._info)
            app.router.add_post("/turn", self._turn)
        return app

    async def _info(self, request: Any) -> Any:
        info = ServerInfo(protocol=PROTOCOL, role=self.role, agent=self.name,
                          catalog_fingerprint=self.catalog.fingerprint,
                          items=len(self.catalog.items))
        return _json(info.model_dump(mode="json"))

    async def _turn(self, request: Any) -> Any:
        from aiohttp import web

        try:
            move = TurnRequest.model_validate(json.loads(await request.read()))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            return web.Response(status=400, text=f"the request is not JSON: {exc}")
        except ValidationError as exc:
            return web.Response(status=400, text=problem_line(exc, "request"))
        if move.role != self.role:
            return web.Response(status=400, text=f"field 'role': this server serves a {self.role}, not a {move.role}")
        try:
            reply = await (self.seekers.move(move) if self.seekers is not None else self.move(move))
        except LookupError as exc:
            return web.Response(status=409, text=str(exc.args[0]))
        except Exception as exc:  # noqa: BLE001 - the client hears one line; the log keeps the rest
            traceback.print_exc()
            return web.Response(status=500, text=f"{type(exc).__name__}: {exc}")
        return _json(reply.model_dump(mode="json", exclude_none=True))

    async def _usersimcrs_info(self, request: Any) -> Any:
        from aiohttp import web

        return web.Response(text="Model is running.")

    async def _usersimcrs_turn(self, request: Any) -> Any:
        from aiohttp import web

        try:
            asked = UserSimCRSRequest.model_validate(json.loads(await request.read()))
        except (json.JSONDecodeError, UnicodeDecodeError, ValidationError):
            return web.Response(status=400, text="An error occurred, make sure you have provided the context and "
                                                 "message.")
        context = list(asked.context)
        if context and context[-1] == asked.message:  # UserSimCRS's wrapper sends the message in both
            context.pop()
        dialogue = [Turn(index=i, role=Role.seeker if i % 2 == 0 else Role.recommender, text=text)
                    for i, text in enumerate([*context, asked.message])]
        move = TurnRequest(conversation_id="", reset=True, role=self.role, turn=len(dialogue) // 2,
                           message=asked.message, history=dialogue, candidates=list(self.catalog.item_ids),
                           item_noun=self.catalog.item_noun)
        reply = await self.move(move, keep=False)
        titles = [self.catalog.items[self.catalog.item_index[i]].title for i in _top(reply, self.catalog)]
        text = reply.text + (f" You might like: {'; '.join(titles)}." if titles else "")
        return web.Response(text=text)

    # ------------------------------------------------------------------ moves
    async def move(self, move: TurnRequest, keep: bool = True) -> TurnReply:
        """The agent's move for `move`, its memory kept under the conversation's id."""
        conversation = self._conversation(move)
        if move.history is not None:
            dialogue = list(move.history)
        else:
            conversation.dialogue.append(Turn(index=len(conversation.dialogue), role=Role.seeker, text=move.message))
            dialogue = list(conversation.dialogue)
        shown = tuple(self._card(s.id, s.title) for s in move.shown)
        observation = RecommenderObservation(move.turn, tuple(dialogue), shown, conversation.candidates,
                                             move.item_noun, move.seed)
        if move.reset:
            conversation.state = self.agent.init_state(observation)
        action, conversation.state = await self.agent.respond(observation, conversation.state)
        if not isinstance(action, Recommendation):
            raise TypeError(f"the served agent moved a {type(action).__name__}, not a Recommendation")
        if move.history is None:
            conversation.dialogue.append(Turn(index=len(conversation.dialogue), role=Role.recommender,
                                              text=action.question))
        if keep:
            self.conversations.keep(move.conversation_id, conversation)
        return reply_of(action, conversation.candidates, self.catalog)

    def _conversation(self, move: TurnRequest) -> Conversation:
        if move.reset:
            candidates = list(move.candidates) if move.candidates is not None else list(self.catalog.item_ids)
            return Conversation(state={}, candidates=candidates)
        return self.conversations.get(move.conversation_id)

    def _card(self, item_id: str, title: str) -> ItemCard:
        position = self.catalog.item_index.get(item_id)
        return ItemCard.of(self.catalog.items[position]) if position is not None else ItemCard(item_id, title, "", {})


def reply_of(action: Recommendation, candidates: list[str], catalog: Catalog) -> TurnReply:
    """A recommender's move on the wire: its scores over the conversation's candidates (its
    ranking laid over them when the agent ranks another list), or its ranked ids."""
    metadata = json.loads(json.dumps(action.metadata, default=_plain))
    if action.scores is not None:
        scores = np.asarray(action.scores, dtype=np.float64)
        if len(candidates) != scores.shape[0]:
            raise ValueError(f"the agent scored {scores.shape[0]} items for {len(candidates)} candidates")
        return TurnReply(text=action.question, scores=wire_scores(scores.tolist()), metadata=metadata)
    return TurnReply(text=action.question, items=list(action.ranked_ids or []), metadata=metadata)


def _top(reply: TurnReply, catalog: Catalog, k: int = 3) -> list[str]:
    """The ids a reply puts first (the usersimcrs shape names them in its text)."""
    if reply.items is not None:
        return [i for i in reply.items if i in catalog.item_index][:k]
    scored = [(s, -n, catalog.item_ids[n]) for n, s in enumerate(reply.scores or []) if s is not None]
    return [item_id for _, _, item_id in sorted(scored, reverse=True)[:k]]


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return str(value)


def _json(payload: Any) -> Any:
    from aiohttp import web

    return web.json_response(payload, dumps=lambda data: json.dumps(data, default=_plain))
