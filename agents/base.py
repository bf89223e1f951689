"""Role protocols and the LangGraph-backed agent that implements them.

Every role — recommender, seeker, seller, customer — is an object with
`init_state(observation)` and `async respond(observation, state) -> (action, state)`.
Agents keep no per-episode state on `self`, so one agent object serves many concurrent
episodes; what an agent remembers between turns is the state dict it returns.

`GraphAgent` runs a compiled LangGraph graph per turn: the graph state holds the
observation, the agent's memory and (on the way out) the action; fixed dependencies
(catalog handles, indexes, chat model, language steps) travel as LangGraph runtime
context, not in state. `recommender_from_function` / `seeker_from_function` wrap a plain
`respond(observation) -> action` in a one-node graph: the smallest plug-in.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from environments.base import (
    Recommendation, RecommenderObservation, SeekerObservation, SeekerReply,
)
from environments.models import Role, Turn

Obs = TypeVar("Obs", contravariant=True)
Act = TypeVar("Act", covariant=True)
AgentState = dict[str, Any]


@runtime_checkable
class Agent(Protocol[Obs, Act]):
    """Any role's agent. Optionally it also has `resume_state(observation, moves)`: its
    memory rebuilt from its role's earlier moves (`Turn`s, private notes included), used
    when it takes over a logged episode half-way (`crsim replay --resume-from T`)."""

    role: str

    def init_state(self, observation: Obs) -> AgentState: ...

    async def respond(self, observation: Obs, state: AgentState) -> tuple[Act, AgentState]: ...


class Recommender(Agent[RecommenderObservation, Recommendation], Protocol):
    """Ranks candidates and asks the seeker a question each turn."""


class Seeker(Agent[SeekerObservation, SeekerReply], Protocol):
    """Answers the recommender, possibly accepting or quitting."""


class TurnState(TypedDict, total=False):
    """Graph state for one turn. Agents extend it with their own memory keys."""

    observation: Any
    action: Any


S = TypeVar("S")
C = TypeVar("C")


def threaded_parts(graph: Any) -> list[str]:
    """Nodes and conditional edges of a compiled graph that are plain (not `async`) functions.

    Under `ainvoke`, LangGraph runs a plain function on a thread pool. Concurrent episodes
    then resume in the order their threads finish, which varies from run to run: log lines
    come out in another order, and whatever episodes share (the encoder's memo, say) is
    filled in another order. Coroutine functions run on the event loop, whose order is fixed.
    """
    builder = getattr(graph, "builder", None)
    if builder is None:
        return []
    parts = [(f"node {name!r}", spec.runnable) for name, spec in builder.nodes.items()]
    parts += [(f"edge {name!r} after {source!r}", spec.path)
              for source, branches in builder.branches.items() for name, spec in branches.items()]
    return [label for label, runnable in parts if getattr(runnable, "func", None) is not None]


def check_runs_on_loop(graph: Any) -> None:
    """Refuse a graph with plain-function nodes or edges (see `threaded_parts`)."""
    threaded = threaded_parts(graph)
    if threaded:
        name = getattr(graph, "name", "graph")
        raise TypeError(f"{name}: {', '.join(threaded)} must be `async def`: LangGraph runs plain functions "
                        "on a thread pool, so episodes would interleave by thread timing and the same seed "
                        "could give a different log")


class GraphAgent(Generic[C]):
    """An agent whose turn is one invocation of a compiled LangGraph graph.

    `memory_keys` names the state entries that survive to the next turn; everything else
    (observation, action, scratch values) is per turn. `resume` rebuilds that memory from
    the agent role's earlier moves in a transcript (see `Agent`); without it, an agent
    taking over half-way starts with fresh memory.
    """

    def __init__(self, role: str, graph: Any, context: C, memory_keys: tuple[str, ...] = (),
                 initial_memory: Callable[[Any], AgentState] | None = None,
                 resume: Callable[[Any, Sequence[Turn]], AgentState] | None = None):
        check_runs_on_loop(graph)
        self.role = str(role.value if isinstance(role, Role) else role)
        self.graph = graph
        self.context = context
        self.memory_keys = memory_keys
        self._initial_memory = initial_memory
        self._resume = resume

    def init_state(self, observation: Any) -> AgentState:
        return self._initial_memory(observation) if self._initial_memory else {}

    def resume_state(self, observation: Any, moves: Sequence[Turn]) -> AgentState:
        state = self.init_state(observation)
        return {**state, **self._resume(observation, moves)} if self._resume else state

    async def respond(self, observation: Any, state: AgentState) -> tuple[Any, AgentState]:
        result = await self.graph.ainvoke({**state, "observation": observation}, context=self.context)
        if result.get("action") is None:
            raise RuntimeError(f"{self.role} graph finished without an action")
        return result["action"], {key: result[key] for key in self.memory_keys if key in result}


def agent_from_function(role: str, respond: Callable[[Any], Any | Awaitable[Any]]) -> GraphAgent[None]:
    """Turn `respond(observation) -> action` into an agent for any role a protocol declares."""
    import inspect

    async def node(state: TurnState) -> dict[str, Any]:
        action = respond(state["observation"])
        if inspect.isawaitable(action):
            action = await action
        return {"action": action}

    graph = StateGraph(TurnState)
    graph.add_node("respond", node)
    graph.add_edge(START, "respond")
    graph.add_edge("respond", END)
    return GraphAgent(role, graph.compile(name=f"{role}_fn"), None)


def recommender_from_function(
    respond: Callable[[RecommenderObservation], Recommendation | Awaitable[Recommendation]],
) -> GraphAgent[None]:
    """Turn `respond(observation) -> Recommendation` into a recommender agent."""
    return agent_from_function(Role.recommender.value, respond)


def seeker_from_function(
    respond: Callable[[SeekerObservation], SeekerReply | Awaitable[SeekerReply]],
) -> GraphAgent[None]:
    """Turn `respond(observation) -> SeekerReply` into a seeker agent."""
    return agent_from_function(Role.seeker.value, respond)
