"""What a single-target seeker is given: its target's facts and reviews, not the catalog."""

from __future__ import annotations

from collections.abc import Mapping
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
    liked: tuple[str, ...] = ()  # titles of other items this seeker liked (its reviews, a person's named items)
    tastes: tuple[str, ...] = ()  # words a grounded person used for what they like ("comedies", "scary")
    liked_kinds: Mapping[str, tuple[str, ...]] | None = None  # a liked title's kinds ("comedy"), where known
    # On a real catalog (no world truth): what kind of product the target is, the words many
    # items' reviews share (the seeker says nothing else), and its critical reviews (dislikes).
    kind: str | None = None
    kind_countable: bool = True  # False for a kind said without a plural ("outerwear", "swim"): "some swim"
    shared_words: Mapping[str, int] | None = None  # word -> how many items' reviews use it
    shared_pairs: Mapping[str, int] | None = None  # "gig bag" -> how many items' reviews write it
    theme_words: frozenset[str] = frozenset()  # words most items' reviews use ("guitar"): they describe nothing
    critical_reviews: tuple[str, ...] = ()
    # What the reviews say of the target on the catalog's mined aspects, as (aspect, values)
    # ("case", ("hard",)): the choices a recommender's question about that aspect offers.
    described: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # A grounded corpus's item popularity (how many of its conversations mention each item):
    # how likely a person is to have seen an item (`agents.seekers.decisions`).
    popularity: Mapping[str, float] | None = None

    def log_view(self) -> dict[str, Any]:
        view = {"target_id": self.target_id, "attributes": self.attributes,
                "n_positive_reviews": len(self.positive_reviews), "own_review": self.own_review}
        if self.liked:
            view["liked"] = list(self.liked)
        if self.kind:
            view["kind"] = self.kind
        if self.tastes:
            view["tastes"] = list(self.tastes)
        if self.person is not None:
            view |= {"conversation_id": self.person.conversation_id, "person_named": list(self.person.named)}
        return view
