"""Run many episodes: bounded concurrency, seeded, fault-isolated, resumable, logged.

Episodes run as asyncio tasks under a semaphore (`concurrency`): language-model calls are
I/O and overlap; offline work is CPU-bound and simply runs one episode at a time. Each
finished episode is appended to `episodes.jsonl` at once, so an interrupted run keeps
everything it finished, and a re-run into the same directory skips episodes already
logged under the same config hash.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from agents.llm.budget import RunBudget, budget_scope
from agents.llm.recording import recording
from environments.models import Episode, TerminationReason
from simulators.engine.episode import episode_id, run_episode
from simulators.engine.logs import EPISODES_FILE, LoggedEpisodes, LogProblem
from simulators.engine.outcomes import OutcomeLines, RunLogs


@dataclass
class RunSummary:
    """What a run did. `episodes` is read lazily from the log (`LoggedEpisodes`): iterate it,
    as often as needed, one episode in memory at a time."""

    episodes: LoggedEpisodes
    ran: int
    skipped: int
    not_started: int = 0
    usage: dict[str, Any] | None = None

    @property
    def problems(self) -> list[LogProblem]:
        return self.episodes.problems

    @property
    def errors(self) -> int:
        return self.episodes.count(TerminationReason.error.value)


def logged_episodes(run_dir: Path, config_hash: str, wanted: set[str] | None = None) -> LoggedEpisodes:
    """This config's logged episodes, the latest line per id (a resumed run may re-log one)."""
    return LoggedEpisodes(Path(run_dir) / EPISODES_FILE, config_hash, wanted)


def build_agents_recorded(config: Any, setup: Any, *, run_dir: Path, budget: RunBudget | None,
                          roles: Any = None) -> dict[str, Any]:
    """Build every role's agent with its language-model calls recorded and budgeted.

    An agent may use its model while it is built (a recommender that summarises its
    catalog, a seeker that derives preferences from reviews). Those calls are charged to
    the run's budget like any other and logged in `llm_calls.jsonl` under
    `BUILD_CALLS_ID`, so `crsim replay --reexecute` answers them from the recording too.
    """
    from agents.llm.budget import BudgetExceeded
    from environments.errors import CrsimError, causes
    from simulators.engine.build import build_agents

    with recording() as recorder, budget_scope(budget):
        try:
            agents = build_agents(config, setup, roles)
        except Exception as exc:
            spent = next((c for c in causes(exc) if isinstance(c, BudgetExceeded)), None)
            if spent is None:
                raise
            raise CrsimError(f"the run's budget ran out while the agents were being built ({spent}); "
                             "raise budget.max_tokens / budget.max_cost_usd") from None
        finally:
            if recorder.records:
                RunLogs(run_dir).write_build_calls(recorder.records)
    return agents


def _todo(run_dir: Path, config_hash: str, episodes: int, seed: int) -> list[int]:
    """Indices not yet finished under this config (budget-ended ones count as unfinished, and
    so do those a remote agent broke: its server may be back)."""
    logged = logged_episodes(run_dir, config_hash)
    done_ids = logged.ids_except(TerminationReason.budget.value) - logged.unreached_ids()
    return [i for i in range(episodes) if episode_id(seed, i) not in done_ids]


def _summary(run_dir: Path, config_hash: str, episodes: int, seed: int, ran: int, not_started: int,
             budget: RunBudget | None) -> RunSummary:
    finished = logged_episodes(run_dir, config_hash, {episode_id(seed, i) for i in range(episodes)})
    return RunSummary(finished, ran - not_started, episodes - ran, not_started,
                      budget.usage() if budget is not None else None)


async def run_episodes(setup: Any, agents: dict[str, Any], *, episodes: int, max_turns: int, seed: int,
                       concurrency: int, run_dir: Path, config_hash: str, progress: bool = True,
                       budget: RunBudget | None = None,
                       on_episode: Callable[[Episode], None] | None = None) -> RunSummary:
    """Run `episodes` episodes into `run_dir`, skipping those already logged there.

    Episodes that ended on a spent budget count as unfinished, so a resumed run (with a
    larger budget) runs them again. Once `budget` is spent no new episode starts.
    """
    todo = _todo(run_dir, config_hash, episodes, seed)
    logs = RunLogs(run_dir)
    gate = asyncio.Semaphore(max(1, concurrency))
    bar = tqdm(total=episodes, initial=episodes - len(todo), disable=not progress, desc="episodes", unit="ep")

    not_started = 0

    async def one(index: int) -> None:
        nonlocal not_started
        async with gate:
            if budget is not None and budget.exhausted:
                not_started += 1
                return
            outcome = await run_episode(setup, agents, index=index, run_seed=seed,
                                        max_turns=max_turns, config_hash=config_hash)
        logs.write(outcome)
        bar.update()
        if on_episode:
            on_episode(outcome.episode)

    try:
        with budget_scope(budget):
            await asyncio.gather(*(one(i) for i in todo))
    finally:
        bar.close()
    return _summary(run_dir, config_hash, episodes, seed, len(todo), not_started, budget)


def run_episodes_in_processes(config: dict[str, Any], *, workers: int, episodes: int, max_turns: int, seed: int,
                              run_dir: Path, config_hash: str, progress: bool = True, backend: str = "processes",
                              ray_address: str | None = None) -> RunSummary:
    """`run_episodes` across worker processes (`simulators.engine.workers`) or Ray actors
    (`backend="ray"`, `simulators.engine.ray_workers`); the resolved `config` is what each worker
    builds its setup and agents from."""
    from functools import partial

    from simulators.engine.workers import run_in_processes

    if backend == "ray":
        from simulators.engine.ray_workers import run_in_ray

        run_in_processes = partial(run_in_ray, address=ray_address)  # noqa: F811 - same contract

    todo = _todo(run_dir, config_hash, episodes, seed)
    logs = RunLogs(run_dir)
    bar = tqdm(total=episodes, initial=episodes - len(todo), disable=not progress, desc="episodes", unit="ep")

    def write(lines: OutcomeLines) -> None:
        logs.write_lines(lines)
        bar.update()

    try:
        if todo:
            run_in_processes(config, todo, workers=workers, max_turns=max_turns, seed=seed,
                             config_hash=config_hash, on_outcome=write)
    finally:
        bar.close()
    return _summary(run_dir, config_hash, episodes, seed, len(todo), 0, None)
