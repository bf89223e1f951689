"""What a CPCD retriever may see at a turn, and the query texts of the paper's baselines.

At CPCD turn t a system has heard the user's utterances X_0 … X_t and has seen, for
each earlier turn s, the first three tracks the user liked there (the evaluator's seed
tracks; the paper's d(δZ_s)). `TurnContext` holds exactly that and nothing else (no
goal playlist, no later likes), so no retriever can score on what it is graded against.

Query modes (§6 of the CPCD paper) are built by `agents.recommenders.playlist_query`,
which the simulated curators share: `user` (utterances, latest first) and `user+items`
(utterances interleaved with the text of the seed tracks of each earlier turn).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agents.recommenders.playlist_query import DENSE_SEPARATOR, LEXICAL_SEPARATOR, QUERY_MODES, query_parts
from environments.datasets.cpcd import CpcdTurn
from simulators.offline.cpcd.protocol import SEEDS_PER_TURN

__all__ = ["DENSE_SEPARATOR", "LEXICAL_SEPARATOR", "QUERY_MODES", "TurnContext", "query_segments"]


@dataclass(frozen=True)
class TurnContext:
    """The conversation up to CPCD turn `turn`, as a retriever may see it."""

    dialog_id: str
    turn: int
    utterances: tuple[str, ...]  # X_0 … X_t
    seeds: tuple[tuple[str, ...], ...]  # first liked tracks of turns 0 … t-1
    excluded: np.ndarray  # bool per candidate: in a seed cluster (never ranked)

    @classmethod
    def at(cls, dialog_id: str, turns: Sequence[CpcdTurn], turn: int, excluded: np.ndarray) -> TurnContext:
        return cls(dialog_id, turn, tuple(t.query for t in turns[:turn + 1]),
                   tuple(tuple(t.liked[:SEEDS_PER_TURN]) for t in turns[:turn]), excluded)


def query_segments(context: TurnContext, mode: str, track_text: Callable[[str], str]) -> list[str]:
    """The query's parts, latest first; empty parts are dropped (`playlist_query.query_parts`)."""
    return query_parts(context.utterances[: context.turn + 1], context.seeds[: context.turn], mode, track_text)
