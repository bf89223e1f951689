"""Agents that re-enact one side of a logged episode, optionally handing over to a live agent.

Holding one side fixed means its logged moves are re-applied to a fresh environment
exactly as they were made: the utterance, the feedback on shown items, and the decision
to accept or quit. Only those state-changing actions reach the environment; nothing of
the logged side is recomputed (no model call, no retrieval). After `rounds` moves (or
when the log runs out) a `successor` agent, if given, takes over: that is how an episode
is resumed from turn t with new agents.

A logged recommender move can only be re-applied as the question it asked and the items it
showed; its full ranking over the catalog was never logged (only the top few ids), so
the environment's rank of the target for a scripted turn is taken from the log
(`logged_rankings`), not from the truncated list.
"""

from __future__ import annotations

from typing import Any

from environments.base import Recommendation, SeekerReply
from environments.models import Episode, RankingRecord, Role, TerminationReason, Turn

SCRIPTED_KEY = "crsim_scripted"  # turn metadata: True on moves re-applied from the log


def logged_moves(episode: Episode, role: Role) -> list[Turn]:
    """The agent moves of `role`, in order; the environment's opening line is not a move."""
    return [t for t in episode.turns if t.role is role and not t.metadata.get("opening")]


class LoggedExhausted(RuntimeError):
    """The fixed side has no logged move left and no successor to hand over to."""


class _Scripted:
    role: Role

    def __init__(self, episode: Episode, *, rounds: int | None = None, successor: Any | None = None):
        self.episode = episode
        self.moves = logged_moves(episode, self.role)
        self.rounds = len(self.moves) if rounds is None else min(rounds, len(self.moves))
        self.successor = successor

    def init_state(self, observation: Any) -> dict[str, Any]:
        inner = self.successor.init_state(observation) if self.successor is not None else {}
        return {"played": 0, "inner": inner}

    async def respond(self, observation: Any, state: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        played = state["played"]
        if played < self.rounds:
            action = self._replay(played)
            return action, {**state, "played": played + 1}
        if self.successor is None:
            raise LoggedExhausted(f"the logged {self.role.value} of episode {self.episode.id} made "
                                  f"{len(self.moves)} moves; the replay asked for move {played + 1}")
        action, inner = await self.successor.respond(observation, state["inner"])
        return action, {**state, "inner": inner}

    def _replay(self, position: int) -> Any:
        raise NotImplementedError


class ScriptedSeeker(_Scripted):
    """Re-applies the logged seeker's utterances, feedback and final accept/quit."""

    role = Role.seeker

    def _replay(self, position: int) -> SeekerReply:
        turn = self.moves[position]
        last = position == len(self.moves) - 1
        ended_here = last and self.episode.turns and self.episode.turns[-1].index == turn.index
        termination = self.episode.termination
        return SeekerReply(
            text=turn.text, feedback=dict(turn.feedback),
            accept=bool(ended_here and termination is TerminationReason.accepted),
            quit=bool(ended_here and termination is TerminationReason.seeker_quit),
            metadata={**turn.metadata, SCRIPTED_KEY: True},
        )


class ScriptedRecommender(_Scripted):
    """Re-asks the logged recommender's questions and shows the items it showed."""

    role = Role.recommender

    def _replay(self, position: int) -> Recommendation:
        turn = self.moves[position]
        return Recommendation(question=turn.text, ranked_ids=list(turn.items_shown),
                              metadata={**turn.metadata, SCRIPTED_KEY: True})


def logged_rankings(original: Episode, replayed: Episode) -> Episode:
    """`replayed` with the logged ranking records restored for its scripted recommender turns."""
    scripted_turns = {
        number for number, turn in enumerate(logged_moves(replayed, Role.recommender), start=1)
        if turn.metadata.get(SCRIPTED_KEY)
    }
    if not scripted_turns:
        return replayed
    logged: dict[int, RankingRecord] = {r.turn: r for r in original.rankings}
    rankings = [logged.get(r.turn, r) if r.turn in scripted_turns else r for r in replayed.rankings]
    return replayed.model_copy(update={"rankings": rankings})
