"""What a single-target seeker is given: its target's facts and reviews, not the catalog."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from environments.models import AttributeValue
from environments.target_facts import TargetKnowledge


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

    def log_view(self) -> dict[str, Any]:
        return {"target_id": self.target_id, "attributes": self.attributes,
                "n_positive_reviews": len(self.positive_reviews), "own_review": self.own_review}
