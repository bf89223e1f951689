"""Agents that re-enact one role of a logged episode, optionally handing over to a live agent.

Holding one role fixed means its logged moves are re-applied to a fresh environment
exactly as they were made: the environment setup turns each logged `Turn` back into the
action that made it (`EnvironmentSetup.scripted_action`: the utterance, the feedback, the
items shown, the set moves, the decision to end), so this module works for any protocol.
Nothing of the logged role is recomputed (no model call, no retrieval). After `rounds`
moves (or when the log runs out) a `successor` agent, if given, takes over: that is how
an episode is resumed from turn t with new agents. The successor's memory is rebuilt
from the logged moves it takes over from (`resume_state`, when the agent has one), so a
recommender does not ask again what the log already asked.

A logged ranking move can only be re-applied as what it showed; its full ranking over
the catalog was never logged (only the top few ids), so the evaluation records of
scripted moves are taken from the log (`logged_evaluations`), not from the re-run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from environments.models import Episode, TerminationReason, Turn

SCRIPTED_KEY = "crsim_scripted"  # turn metadata: True on moves re-applied from the log

ActionFromTurn = Callable[[str, Turn, TerminationReason | None], Any]


def logged_moves(episode: Episode, role: str) -> list[Turn]:
    """The agent moves of `role`, in order; the environment's opening line is not a move."""
    return [t for t in episode.turns if t.role == role and not t.metadata.get("opening")]


class LoggedExhausted(RuntimeError):
    """The fixed role has no logged move left and no successor to hand over to."""


class ScriptedAgent:
    """Re-applies the logged moves of `role` (see the module docstring)."""

    def __init__(self, role: str, episode: Episode, action_from_turn: ActionFromTurn, *,
                 rounds: int | None = None, successor: Any | None = None):
        self.role = role
        self.episode = episode
        self.action_from_turn = action_from_turn
        self.moves = logged_moves(episode, role)
        self.rounds = len(self.moves) if rounds is None else min(rounds, len(self.moves))
        self.successor = successor

    def init_state(self, observation: Any) -> dict[str, Any]:
        inner = self.successor.init_state(observation) if self.successor is not None else {}
        return {"played": 0, "inner": inner}

    async def respond(self, observation: Any, state: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        played = state["played"]
        if played < self.rounds:
            return self._replay(played), {**state, "played": played + 1}
        if self.successor is None:
            raise LoggedExhausted(f"the logged {self.role} of episode {self.episode.id} made "
                                  f"{len(self.moves)} moves; the replay asked for move {played + 1}")
        inner = state["inner"]
        if played == self.rounds and self.rounds and hasattr(self.successor, "resume_state"):
            inner = self.successor.resume_state(observation, self.moves[: self.rounds])
        action, inner = await self.successor.respond(observation, inner)
        return action, {**state, "played": played + 1, "inner": inner}

    def _replay(self, position: int) -> Any:
        turn = self.moves[position]
        last = self.episode.turns[-1].index == turn.index if self.episode.turns else False
        ending = self.episode.termination if last else None
        action = self.action_from_turn(self.role, turn, ending)
        metadata = getattr(action, "metadata", None)
        if isinstance(metadata, dict):
            metadata[SCRIPTED_KEY] = True
        return action


def logged_evaluations(original: Episode, replayed: Episode) -> Episode:
    """`replayed` with the logged evaluation records restored for records of scripted moves."""
    scripted = {t.index for t in replayed.turns if t.metadata.get(SCRIPTED_KEY)}
    if not scripted:
        return replayed
    logged = {r.turn: r for r in original.evaluations}
    records = [logged.get(r.turn, r) if r.source_turn in scripted else r for r in replayed.evaluations]
    return replayed.model_copy(update={"evaluations": records})
