"""What a CPCD retriever may see at a turn, and the query texts of the paper's baselines.

At CPCD turn t a system has heard the user's utterances X_0 … X_t and has seen, for
each earlier turn s, the first three tracks the user liked there (the evaluator's seed
tracks; the paper's d(δZ_s)). `TurnContext` holds exactly that and nothing else (no
goal playlist, no later likes), so no retriever can score on what it is graded against.

Query modes (§6 of the CPCD paper):
- `user`: the user's utterances, latest first (the BM25 baseline, §6.1);
- `user+items`: X_t [SEP] d_{t-1} [SEP] X_{t-1} … d_0 [SEP] X_0, with d_s the text of the
  seed tracks of turn s (the dense baseline, §6.2).
Segments are joined by " [SEP] " for the sentence encoder (MiniLM's tokenizer reads it
as its separator token) and by newlines for BM25, where "[SEP]" would be a word.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from environments.datasets.cpcd import CpcdTurn
from simulators.evaluation.cpcd_protocol import SEEDS_PER_TURN

QUERY_MODES = ("user", "user+items")
DENSE_SEPARATOR = " [SEP] "
LEXICAL_SEPARATOR = "\n"


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
    """The query's parts, latest first; empty parts are dropped."""
    if mode not in QUERY_MODES:
        raise ValueError(f"unknown query mode {mode!r} (one of {', '.join(QUERY_MODES)})")
    segments = [context.utterances[-1]]
    for turn in range(context.turn - 1, -1, -1):
        if mode == "user+items" and context.seeds[turn]:
            segments.append("; ".join(track_text(track) for track in context.seeds[turn]))
        segments.append(context.utterances[turn])
    return [segment.strip() for segment in segments if segment.strip()]
