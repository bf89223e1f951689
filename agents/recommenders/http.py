"""`recommender=http`: a conversational recommender running as a service, in any language.

Each turn the observation goes to the server and its reply comes back as the move: the
text is the question the seeker reads, and the ranking is what the reply recommends
(`agents/remote/protocol.py` has both wire shapes, chosen by `shape`):
- `scores`, one per candidate: used as they are, so a crsim agent served by `crsim serve`
  ranks exactly as it does in process (ties included);
- `items`, ids best first: the unlisted candidates tie below them; ids the catalog lacks
  are left out and reported;
- neither (and always in the `usersimcrs` shape): the titles in the text, linked to the
  catalog (`agents/remote/linking.py`); names that link to nothing are reported.
A reply that recommends nothing ranks nothing: every candidate ties and none is shown.

What each exchange took is logged on the recommender's move (`metadata["remote"]`: the
latency of the answering attempt in ms, the attempts, ids and titles that did not link),
which `crsim run` and `crsim report` summarise as the CRS's latency percentiles. A server
that is down, too slow or answers garbage ends the episode with a one-line
`RemoteAgentError` (`agents/remote/client.py`); the run goes on with the next.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from pydantic import ValidationError

from agents.base import GraphAgent, TurnState
from agents.remote.client import Exchange, HttpEndpoint, HttpSettings, RemoteAgentError, snippet
from agents.remote.linking import ReplyLinker
from agents.remote.protocol import (
    REMOTE_KEY, SHAPES, ShownItem, TurnReply, TurnRequest, UserSimCRSRequest, problem_line, scores_from_wire,
)
from environments.base import Recommendation, RecommenderObservation
from environments.catalog import Catalog
from environments.errors import CrsimError
from environments.models import Role, Turn

class HttpState(TurnState, total=False):
    conversation: str  # the id this episode has on the server (crsim shape)
    candidates: list[str]  # the candidates sent with the first move; `scores` align with them


@dataclass(frozen=True, slots=True)
class HttpContext:
    endpoint: HttpEndpoint
    shape: str
    send_history: bool
    catalog: Catalog
    linker: ReplyLinker
    run_token: str  # keeps this run's conversations apart from another run's on a shared server


def build(catalog: Catalog, url: str, shape: str = "crsim", timeout_s: float = 30.0, retries: int = 3,
          backoff_s: float = 0.5, max_in_flight: int = 8, send_history: bool = True,
          llm: Any | None = None) -> GraphAgent[HttpContext]:
    """Hydra factory for `recommender=http` (`llm` is accepted and unused: the CRS has its own)."""
    if shape not in SHAPES:
        raise CrsimError(f"recommender.shape: '{shape}' is not a wire shape crsim speaks ({', '.join(SHAPES)})")
    if not url.startswith(("http://", "https://")):
        raise CrsimError(f"recommender.url: '{url}' is not an http:// or https:// URL")
    try:
        settings = HttpSettings(url=url, timeout_s=timeout_s, retries=retries, backoff_s=backoff_s,
                                max_in_flight=max_in_flight)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise CrsimError(f"recommender.{first['loc'][0]}: {first['msg']}") from None
    context = HttpContext(HttpEndpoint(settings), shape, send_history, catalog, ReplyLinker(catalog),
                          uuid.uuid4().hex[:12])
    graph = StateGraph(HttpState, context_schema=HttpContext)
    graph.add_node("exchange", exchange)
    graph.add_edge(START, "exchange")
    graph.add_edge("exchange", END)
    return GraphAgent(Role.recommender, graph.compile(name="http"), context,
                      memory_keys=("conversation", "candidates"))


async def exchange(state: HttpState, runtime: Runtime[HttpContext]) -> dict[str, Any]:
    """Send the turn, read the reply, turn it into a move."""
    ctx, obs = runtime.context, state["observation"]
    if ctx.shape == "usersimcrs":
        reply = await _usersimcrs_turn(ctx, obs)
        return {"action": _move(ctx, obs, reply, list(obs.candidates))}
    first = "conversation" not in state
    conversation = state.get("conversation") or f"{ctx.run_token}-{obs.episode_seed}"
    candidates = list(obs.candidates) if first else state.get("candidates", list(obs.candidates))
    request = TurnRequest(conversation_id=conversation, reset=first, role=Role.recommender.value, turn=obs.turn,
                          message=latest_seeker_text(obs.dialogue),
                          history=list(obs.dialogue) if ctx.send_history else None,
                          shown=[ShownItem(id=c.id, title=c.title) for c in obs.shown],
                          candidates=candidates if first else None, item_noun=obs.item_noun, seed=obs.episode_seed)
    answer = await ctx.endpoint.post_json("turn", request.model_dump(mode="json", exclude_none=True))
    try:
        reply = TurnReply.model_validate(answer.json(ctx.endpoint.url("turn")))
    except ValidationError as exc:
        raise RemoteAgentError(f"{ctx.endpoint.url('turn')}: malformed reply, {problem_line(exc, 'reply')}: "
                               f"{snippet(answer.body)}") from None
    return {"action": _move(ctx, obs, (reply, answer), candidates), "conversation": conversation,
            "candidates": candidates}


async def _usersimcrs_turn(ctx: HttpContext, obs: RecommenderObservation) -> tuple[TurnReply, Exchange]:
    """The UserSimCRS / CRS Arena shape: the utterances so far (from the seeker's first, as
    those CRSs expect a dialogue to open), the latest as `message`; the reply is its text."""
    utterances = [t.text for t in obs.dialogue]
    first_seeker = next((i for i, t in enumerate(obs.dialogue) if t.role == Role.seeker), len(utterances))
    spoken = utterances[first_seeker:]
    request = UserSimCRSRequest(context=spoken[:-1], message=spoken[-1] if spoken else "")
    answer = await ctx.endpoint.post_json("", request.model_dump(mode="json"))
    text = answer.text()
    if "json" in answer.content_type:  # a server that wraps the utterance as a JSON string
        decoded = answer.json(ctx.endpoint.url())
        if not isinstance(decoded, str):
            raise RemoteAgentError(f"{ctx.endpoint.url()}: expected the CRS's utterance as text, got JSON "
                                   f"{type(decoded).__name__}: {snippet(answer.body)}")
        text = decoded
    return TurnReply(text=text.strip()), answer


def _move(ctx: HttpContext, obs: RecommenderObservation, answered: tuple[TurnReply, Exchange],
          candidates: Sequence[str]) -> Recommendation:
    reply, answer = answered
    remote: dict[str, Any] = {"latency_ms": round(answer.latency_ms, 3), "attempts": answer.attempts}
    metadata = {**reply.metadata, REMOTE_KEY: remote}
    if reply.scores is not None:
        if len(reply.scores) != len(candidates):
            raise RemoteAgentError(f"{ctx.endpoint.url('turn')}: {len(reply.scores)} scores for "
                                   f"{len(candidates)} candidates")
        scores = np.asarray(scores_from_wire(reply.scores), dtype=np.float64)
        return Recommendation(question=reply.text, scores=_aligned(scores, candidates, obs.candidates),
                              metadata=metadata)
    if reply.items is not None:
        known = [i for i in dict.fromkeys(reply.items) if i in ctx.catalog.item_index]
        unknown = [i for i in reply.items if i not in ctx.catalog.item_index]
        if unknown:
            remote["unknown_ids"] = unknown
        ranked = known
    else:
        linked = ctx.linker.link(reply.text)
        ranked = linked.items
        if linked.unlinked:
            remote["unlinked"] = linked.unlinked
    remote["items"] = len(ranked)
    return Recommendation(question=reply.text, ranked_ids=ranked, metadata=metadata)


def _aligned(scores: np.ndarray, sent: Sequence[str], now: Sequence[str]) -> np.ndarray:
    """Scores for the first move's candidates laid over this turn's (the same list, in every
    protocol crsim has; a candidate not sent is unranked)."""
    if list(sent) == list(now):
        return scores
    by_id = dict(zip(sent, scores))
    return np.asarray([by_id.get(c, -np.inf) for c in now], dtype=np.float64)


def latest_seeker_text(dialogue: Sequence[Turn]) -> str:
    """The seeker's most recent utterance ('' before it has spoken)."""
    return next((t.text for t in reversed(dialogue) if t.role == Role.seeker), "")
