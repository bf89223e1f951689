"""One episode: a LangGraph graph that lets each declared role move in turn until it must stop.

The environment setup declares its roles in speaking order; each round every role moves
once, and `max_turns` counts rounds. Agents propose, the orchestrator decides: after each
move it asks the environment whether the task ended (and why: accepted, found, set
complete, ...), enforces the round limit itself, then records a `TerminationReason`. A
crash anywhere inside the episode ends it with `error` and its traceback; a spent run
budget with `budget`; the transcript up to that point is kept either way. Nothing here
knows which protocol runs.
"""

from __future__ import annotations

import time
import traceback
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from agents.base import check_runs_on_loop
from agents.llm.budget import BudgetExceeded
from agents.llm.recording import CallRecorder, LLMCallRecord, recording, summaries
from environments.base import Environment
from environments.check import roles_problem
from environments.models import Episode, EpisodeEvaluation, TerminationReason


def episode_seed(run_seed: int, index: int) -> int:
    """Independent, reproducible seed per episode (no matter the order episodes run in)."""
    return int(np.random.SeedSequence([run_seed, index]).generate_state(1)[0])


def episode_id(run_seed: int, index: int) -> str:
    return f"s{run_seed}-e{index:05d}"


@dataclass
class EpisodeContext:
    env: Environment
    agents: Mapping[str, Any]
    max_turns: int
    seconds: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))


class EpisodeState(TypedDict, total=False):
    memory: dict[str, dict[str, Any]]  # role -> the agent's memory between its moves
    turn: int  # completed rounds
    termination: TerminationReason


def _role_node(role: str, closes_round: bool):
    """The graph node of one role: observe, let the agent move, apply the move, judge."""

    async def move(state: EpisodeState, runtime: Runtime[EpisodeContext]) -> dict[str, Any]:
        ctx = runtime.context
        started = time.perf_counter()
        action, memory = await ctx.agents[role].respond(ctx.env.observe(role), state["memory"][role])
        ctx.seconds[role].append(time.perf_counter() - started)
        result = ctx.env.step(role, action)
        update: dict[str, Any] = {"memory": {**state["memory"], role: memory}}
        turn = state["turn"] + (1 if closes_round else 0)
        if closes_round:
            update["turn"] = turn
        if result.termination is not None:
            update["termination"] = result.termination
        elif closes_round and turn >= ctx.max_turns:
            update["termination"] = TerminationReason.max_turns
        return update

    return move


def _route(after: str):
    async def route(state: EpisodeState) -> str:  # async: see agents.base.threaded_parts
        return END if state.get("termination") else after
    return route


@lru_cache(maxsize=32)
def orchestrator(roles: tuple[str, ...]) -> Any:
    """The compiled graph for `roles` (speaking order): role 1 -> role 2 -> ... -> role 1."""
    problem = roles_problem(roles)
    if problem is not None:
        raise ValueError(problem)
    graph = StateGraph(EpisodeState, context_schema=EpisodeContext)
    for position, role in enumerate(roles):
        graph.add_node(role, _role_node(role, closes_round=position == len(roles) - 1))
    graph.add_edge(START, roles[0])
    for position, role in enumerate(roles):
        after = roles[(position + 1) % len(roles)]
        graph.add_conditional_edges(role, _route(after), [after, END])
    compiled = graph.compile(name="episode")
    check_runs_on_loop(compiled)
    return compiled


@dataclass
class EpisodeOutcome:
    episode: Episode
    seconds: dict[str, list[float]]
    llm_calls: list[LLMCallRecord]


async def run_episode(setup: Any, agents: Mapping[str, Any], *, index: int, run_seed: int, max_turns: int,
                      config_hash: str) -> EpisodeOutcome:
    """Run one episode to its end; never raises for a failure inside the episode.

    `agents` maps each role `setup.roles` declares to its agent. The environment is reset
    with the episode's seed and `options={"episode_index": index}` (a protocol that walks a
    fixed list, one user per episode, uses it; others ignore it). A spent run budget ends
    the episode with `budget` (and the budget's state as `error` text, no traceback); any
    other exception ends it with `error` and the traceback.
    """
    roles: Sequence[str] = tuple(setup.roles)
    missing = [role for role in roles if role not in agents]
    if missing:
        raise ValueError(f"no agent for role(s) {missing} of environment '{setup.name}'")
    seed = episode_seed(run_seed, index)
    env: Environment = setup.new_episode()
    ctx = EpisodeContext(env, agents, max_turns)
    recorder = CallRecorder()
    termination, error = TerminationReason.error, None
    with recording(recorder):
        try:
            first = env.reset(seed=seed, options={"episode_index": index})
            state: EpisodeState = {"memory": {role: agents[role].init_state(first[role]) for role in roles},
                                   "turn": 0}
            limit = (len(roles) + 1) * max_turns + 8
            final = await orchestrator(tuple(roles)).ainvoke(state, context=ctx, config={"recursion_limit": limit})
            termination = final["termination"]
        except BudgetExceeded as exc:
            termination, error = TerminationReason.budget, str(exc)
        except Exception:  # noqa: BLE001 - isolate the episode, keep its traceback
            error = traceback.format_exc()
    try:
        evaluation = env.evaluation()
    except Exception:  # noqa: BLE001 - keep the episode even if the evaluator fails too
        evaluation = EpisodeEvaluation()
        termination, error = TerminationReason.error, (error or "") + "evaluation failed:\n" + traceback.format_exc()
    episode = Episode(
        id=episode_id(run_seed, index), index=index, config_hash=config_hash, seed=seed,
        environment=getattr(env, "name", type(env).__name__), targets=evaluation.targets,
        target_groups=evaluation.target_groups,
        profile=evaluation.profile, turns=evaluation.turns, evaluations=evaluation.evaluations,
        termination=termination, llm_calls=summaries(recorder.records), error=error,
    )
    return EpisodeOutcome(episode, dict(ctx.seconds), list(recorder.records))


def error_line(traceback_text: str) -> str:
    """The exception line of a logged traceback ('ValueError: ...').

    Not simply the last line: notes follow it (LangGraph adds "During task with name ...")
    and a message may span lines. The final exception's line is the first one after its
    last indented frame line."""
    lines = traceback_text.rstrip().splitlines()
    last_frame = max((n for n, line in enumerate(lines) if line.startswith(" ")), default=-1)
    rest = [line.strip() for line in lines[last_frame + 1:] if line.strip()]
    return rest[0] if rest else (lines[-1].strip() if lines else "no traceback logged")
