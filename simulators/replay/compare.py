"""Where two versions of an episode first differ (re-execution must find none)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from environments.models import Episode


@dataclass(frozen=True, slots=True)
class Divergence:
    episode_id: str
    where: str
    original: Any
    replayed: Any

    def __str__(self) -> str:
        return f"{self.episode_id}: {self.where} differs: logged {self.original!r}, re-executed {self.replayed!r}"


def first_divergence(original: Episode, replayed: Episode) -> Divergence | None:
    """The first difference in transcript order: each turn's speaker, text, items shown and
    feedback, then each turn's ranking of the target, then how the episode ended.

    Turn metadata (agents' private notes) and LLM call summaries are not compared: the
    transcript is what the replay must reproduce.
    """
    def differ(where: str, a: Any, b: Any) -> Divergence | None:
        return Divergence(original.id, where, a, b) if a != b else None

    for position in range(max(len(original.turns), len(replayed.turns))):
        if position >= len(original.turns) or position >= len(replayed.turns):
            return differ("number of turns", len(original.turns), len(replayed.turns))
        a, b = original.turns[position], replayed.turns[position]
        for field in ("role", "text", "items_shown", "feedback"):
            found = differ(f"turn {position} ({a.role.value}) {field}", getattr(a, field), getattr(b, field))
            if found:
                return found
    ranks = differ("target ranks per turn", [(r.turn, r.target_rank) for r in original.rankings],
                   [(r.turn, r.target_rank) for r in replayed.rankings])
    return ranks or differ("termination", original.termination.value, replayed.termination.value) \
        or differ("target item", original.target_item, replayed.target_item)
