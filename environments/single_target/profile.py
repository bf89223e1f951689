"""What a single-target seeker is given: its target's facts and reviews, not the catalog."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from environments.models import AttributeValue
from environments.target_facts import TargetKnowledge


@dataclass(frozen=True, slots=True)
class PersonContext:
    """What a real person said before the recommender first named an item (grounded episodes)."""

    conversation_id: str
    utterances: tuple[str, ...]
    named: tuple[str, ...]  # catalog items they mentioned then (ids)


@dataclass(frozen=True, slots=True)
class TargetBiasedProfile:
    """What a target-biased seeker knows: the target's facts and reviews, not the catalog."""

    target_id: str
    title: str
    attributes: dict[str, AttributeValue]
    description: str
    positive_reviews: tuple[str, ...]
    own_review: str
    knowledge: TargetKnowledge = TargetKnowledge(())  # what it knows of its attributes, and its words for them
    person: PersonContext | None = None  # a grounded episode's real person, before any recommendation

    def log_view(self) -> dict[str, Any]:
        view = {"target_id": self.target_id, "attributes": self.attributes,
                "n_positive_reviews": len(self.positive_reviews), "own_review": self.own_review}
        if self.person is not None:
            view |= {"conversation_id": self.person.conversation_id, "person_named": list(self.person.named)}
        return view
