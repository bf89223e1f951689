"""What a PEPPER seeker is given: the items it has seen (card, rating, its own review) and,
for the target-biased variant, the selected targets' attributes without their titles."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from environments.base import ItemCard
from environments.models import AttributeValue
from environments.target_facts import TargetKnowledge


@dataclass(frozen=True, slots=True)
class SeenReview:
    """One item the user has seen: its card, the user's rating and the user's own review."""

    item: ItemCard
    rating: float | None
    review: str


@dataclass(frozen=True, slots=True)
class DisclosedTarget:
    """A target as a target-biased seeker is told about it: attributes and plot, no title.

    `knowledge` is what the single-target seeker knows of its target (on a world, the true
    values in the seeker's own words and the signature details a plot summary would give
    away; on an imported catalog, the shown attributes)."""

    attributes: dict[str, AttributeValue]
    description: str
    knowledge: TargetKnowledge = TargetKnowledge(())


@dataclass(frozen=True, slots=True)
class PepperProfile:
    """What a PEPPER seeker is given. `disclosed` is empty unless the environment discloses
    the selected targets (target-biased variant); targets are never in `seen`."""

    user_id: str
    seen: tuple[SeenReview, ...]
    disclosed: tuple[DisclosedTarget, ...] = ()
    conversation_id: str | None = None  # a grounded episode's real conversation
    tastes: tuple[str, ...] = ()  # a grounded person's own taste words ("comedies", "scary"), as they said them

    def seen_ids(self) -> frozenset[str]:
        return frozenset(s.item.id for s in self.seen)

    def log_view(self) -> dict[str, Any]:
        view = {"user_id": self.user_id, "seen": [s.item.id for s in self.seen], "n_disclosed": len(self.disclosed)}
        view |= {"conversation_id": self.conversation_id} if self.conversation_id is not None else {}
        return view | ({"tastes": list(self.tastes)} if self.tastes else {})
