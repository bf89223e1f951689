"""The orchestrator follows the roles a setup declares and records the ending the environment names."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agents.base import agent_from_function
from environments.base import DialogueInterface, Environment, EnvironmentSetup, StepResult
from environments.models import EpisodeEvaluation, TerminationReason, TurnEvaluation
from simulators.engine.episode import run_episode


class CountingSetup(EnvironmentSetup):
    """Three roles; the environment ends the task when `ender` makes its `at`-th move."""

    name = "counting"
    roles = ("a", "b", "c")

    def __init__(self, ender: str | None, at: int, ending: TerminationReason = TerminationReason.found):
        self.ender, self.at, self.ending = ender, at, ending

    def new_episode(self) -> Environment:
        return CountingEnvironment(self)


class CountingEnvironment(Environment):
    name = "counting"

    def __init__(self, setup: CountingSetup):
        self.setup = setup
        self.dialogue = DialogueInterface()
        self.moves: dict[str, int] = {}
        self.records: list[TurnEvaluation] = []

    def reset(self, *, seed: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
        return {role: self.observe(role) for role in self.setup.roles}

    def observe(self, role: str) -> Any:
        return len(self.dialogue.transcript())

    def step(self, role: str, action: Any) -> StepResult:
        self.moves[role] = self.moves.get(role, 0) + 1
        turn = self.dialogue.append(role, action)
        if role == "c":
            self.records.append(TurnEvaluation(turn=self.moves[role], source_turn=turn.index))
        if role == self.setup.ender and self.moves[role] == self.setup.at:
            return StepResult(self.setup.ending)
        return StepResult()

    def evaluation(self) -> EpisodeEvaluation:
        return EpisodeEvaluation(turns=list(self.dialogue.transcript()), evaluations=list(self.records))


def _agents(fail_at: int | None = None) -> dict[str, Any]:
    def say(role: str):
        def respond(seen: int) -> str:
            if fail_at is not None and seen >= fail_at:
                raise RuntimeError("boom")
            return f"{role}{seen}"
        return agent_from_function(role, respond)
    return {role: say(role) for role in ("a", "b", "c")}


def _run(setup: CountingSetup, max_turns: int = 3, agents: dict | None = None):
    return asyncio.run(run_episode(setup, agents or _agents(), index=0, run_seed=0, max_turns=max_turns,
                                   config_hash="h")).episode


def test_roles_move_in_the_declared_order_and_rounds_count_turns():
    episode = _run(CountingSetup(None, 0))
    assert [t.role for t in episode.turns] == ["a", "b", "c"] * 3
    assert episode.termination is TerminationReason.max_turns and [r.turn for r in episode.evaluations] == [1, 2, 3]


@pytest.mark.parametrize(("ender", "ending"), [("a", TerminationReason.purchased), ("b", TerminationReason.found),
                                                ("c", TerminationReason.set_complete)])
def test_the_ending_is_the_environments_whoever_moved_last(ender, ending):
    episode = _run(CountingSetup(ender, 2, ending))
    assert episode.termination is ending
    assert episode.turns[-1].role == ender and len(episode.turns) == 3 + "abc".index(ender) + 1


def test_a_crash_keeps_the_transcript_and_a_missing_agent_is_named():
    episode = _run(CountingSetup(None, 0), agents=_agents(fail_at=4))
    assert episode.termination is TerminationReason.error and "boom" in episode.error
    assert len(episode.turns) == 4
    with pytest.raises(ValueError, match=r"no agent for role\(s\) \['c'\]"):
        _run(CountingSetup(None, 0), agents={k: v for k, v in _agents().items() if k != "c"})
