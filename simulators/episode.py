"""One episode: a LangGraph graph that alternates seeker and recommender until it must stop.

Agents propose, the orchestrator decides: after each move it asks the environment whether
the task ended (accepted, quit) and enforces the turn limit itself, then records a
`TerminationReason`. A crash anywhere inside the episode ends it with `error` and its
traceback; the transcript up to that point is kept.
"""

from __future__ import annotations

import time
import traceback
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from agents.llm.budget import BudgetExceeded
from agents.llm.recording import CallRecorder, LLMCallRecord, recording, summaries
from environments.base import Environment
from environments.models import Episode, Role, TerminationReason


def episode_seed(run_seed: int, index: int) -> int:
    """Independent, reproducible seed per episode (no matter the order episodes run in)."""
    return int(np.random.SeedSequence([run_seed, index]).generate_state(1)[0])


def episode_id(run_seed: int, index: int) -> str:
    return f"s{run_seed}-e{index:05d}"


@dataclass
class EpisodeContext:
    env: Environment
    recommender: Any
    seeker: Any
    max_turns: int
    seconds: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))


class EpisodeState(TypedDict, total=False):
    seeker_obs: Any
    recommender_obs: Any
    seeker_state: dict[str, Any]
    recommender_state: dict[str, Any]
    turn: int
    termination: TerminationReason


async def _act(ctx: EpisodeContext, role: str, agent: Any, observation: Any, memory: dict[str, Any]) -> Any:
    """Let `agent` move, time it, and apply the move: (step result, agent's new memory)."""
    started = time.perf_counter()
    action, memory = await agent.respond(observation, memory)
    ctx.seconds[role].append(time.perf_counter() - started)
    return ctx.env.step(action), memory


async def seeker_turn(state: EpisodeState, runtime: Runtime[EpisodeContext]) -> dict[str, Any]:
    ctx = runtime.context
    result, memory = await _act(ctx, "seeker", ctx.seeker, state["seeker_obs"], state["seeker_state"])
    update: dict[str, Any] = {"seeker_state": memory, "recommender_obs": result.observation}
    if result.terminated:
        accepted = result.info.get("accepted")
        update["termination"] = TerminationReason.accepted if accepted else TerminationReason.seeker_quit
    return update


async def recommender_turn(state: EpisodeState, runtime: Runtime[EpisodeContext]) -> dict[str, Any]:
    ctx = runtime.context
    result, memory = await _act(ctx, "recommender", ctx.recommender, state["recommender_obs"],
                                state["recommender_state"])
    turn = state["turn"] + 1
    update: dict[str, Any] = {"recommender_state": memory, "seeker_obs": result.observation, "turn": turn}
    if result.terminated:
        update["termination"] = TerminationReason.seeker_quit
    elif turn >= ctx.max_turns:
        update["termination"] = TerminationReason.max_turns
    return update


def _next(after: str):
    def route(state: EpisodeState) -> str:
        return END if state.get("termination") else after
    return route


def build_orchestrator() -> Any:
    graph = StateGraph(EpisodeState, context_schema=EpisodeContext)
    graph.add_node("seeker", seeker_turn)
    graph.add_node("recommender", recommender_turn)
    graph.add_edge(START, "seeker")
    graph.add_conditional_edges("seeker", _next("recommender"), ["recommender", END])
    graph.add_conditional_edges("recommender", _next("seeker"), ["seeker", END])
    return graph.compile(name="episode")


ORCHESTRATOR = build_orchestrator()


@dataclass
class EpisodeOutcome:
    episode: Episode
    seconds: dict[str, list[float]]
    llm_calls: list[LLMCallRecord]


async def run_episode(setup: Any, recommender: Any, seeker: Any, *, index: int, run_seed: int,
                      max_turns: int, config_hash: str) -> EpisodeOutcome:
    """Run one episode to its end; never raises for a failure inside the episode.

    A spent run budget ends it with `budget` (and the budget's state as `error` text, no
    traceback); any other exception ends it with `error` and the traceback.
    """
    seed = episode_seed(run_seed, index)
    env: Environment = setup.new_episode()
    ctx = EpisodeContext(env, recommender, seeker, max_turns)
    recorder = CallRecorder()
    termination, error, evaluation = TerminationReason.error, None, {}
    with recording(recorder):
        try:
            first = env.reset(seed=seed)
            state: EpisodeState = {
                "seeker_obs": first[Role.seeker], "recommender_obs": first[Role.recommender],
                "seeker_state": seeker.init_state(first[Role.seeker]),
                "recommender_state": recommender.init_state(first[Role.recommender]), "turn": 0,
            }
            final = await ORCHESTRATOR.ainvoke(state, context=ctx, config={"recursion_limit": 2 * max_turns + 8})
            termination = final["termination"]
        except BudgetExceeded as exc:
            termination, error = TerminationReason.budget, str(exc)
        except Exception:  # noqa: BLE001 - isolate the episode, keep its traceback
            error = traceback.format_exc()
    try:
        evaluation = env.evaluation()
    except Exception:  # noqa: BLE001 - reset itself may have failed
        evaluation = {}
    episode = Episode(
        id=episode_id(run_seed, index), index=index, config_hash=config_hash, seed=seed,
        environment=getattr(env, "name", type(env).__name__), target_item=evaluation.get("target_item"),
        profile=evaluation.get("profile", {}), turns=evaluation.get("turns", []),
        rankings=evaluation.get("rankings", []),
        termination=termination, llm_calls=summaries(recorder.records), error=error,
    )
    return EpisodeOutcome(episode, dict(ctx.seconds), list(recorder.records))
