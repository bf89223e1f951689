"""Where two versions of an episode first differ (re-execution must find none)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from environments.models import Episode, TurnEvaluation


@dataclass(frozen=True, slots=True)
class Divergence:
    episode_id: str
    where: str
    original: Any
    replayed: Any

    def __str__(self) -> str:
        return f"{self.episode_id}: {self.where} differs: logged {self.original!r}, re-executed {self.replayed!r}"


def first_divergence(original: Episode, replayed: Episode) -> Divergence | None:
    """The first difference in transcript order: each turn's speaker, text, items shown,
    feedback and set moves; then each turn's evaluation record (targets' ranks, item set,
    mentions); then how the episode ended and its targets.

    Turn metadata (agents' private notes) and LLM call summaries are not compared: the
    transcript is what the replay must reproduce.
    """
    def differ(where: str, a: Any, b: Any) -> Divergence | None:
        return Divergence(original.id, where, a, b) if a != b else None

    for position in range(max(len(original.turns), len(replayed.turns))):
        if position >= len(original.turns) or position >= len(replayed.turns):
            return differ("number of turns", len(original.turns), len(replayed.turns))
        a, b = original.turns[position], replayed.turns[position]
        for field in ("role", "text", "items_shown", "feedback", "added", "removed"):
            found = differ(f"turn {position} ({a.role}) {field}", getattr(a, field), getattr(b, field))
            if found:
                return found
    records = differ("evaluation records", [_record(r) for r in original.evaluations],
                     [_record(r) for r in replayed.evaluations])
    return records or differ("termination", original.termination.value, replayed.termination.value) \
        or differ("targets", original.targets, replayed.targets)


def _record(record: TurnEvaluation) -> tuple:
    """What of a record a replay must reproduce (ranks, set, mentions), not bookkeeping."""
    item_set = record.item_set.items if record.item_set is not None else None
    return (record.turn, [(r.item_id, r.rank) for r in record.ranks], item_set,
            [(m.role, m.item_id) for m in record.mentions])
