"""Ground truth of a synthetic world, kept apart from the catalog recommenders see.

The catalog (items, reviews, users) is what agents may read. What generated it - each
user's latent likes and dislikes, and which aspect value every review sentence talks
about with which polarity - is written to separate `truth/` files, so simulated seekers
and evaluators can use it while recommenders cannot cheat with it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UserTruth(_Model):
    """A user's latent preferences, strongest first within each aspect."""

    user_id: str
    likes: dict[str, list[str]] = Field(default_factory=dict, description="Aspect -> liked values.")
    dislikes: dict[str, list[str]] = Field(default_factory=dict, description="Aspect -> disliked values.")
    weights: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="Aspect -> value -> strength: positive for likes, negative for dislikes.",
    )


class SentenceLabel(_Model):
    """One review sentence and what it expresses; aspect None marks off-topic chatter."""

    text: str
    aspect: str | None = None
    value: str | None = None
    polarity: Literal[-1, 0, 1] = 0


class ReviewTruth(_Model):
    """The labelled sentences of one review, in the order they appear in its text."""

    review_id: str
    item_id: str
    user_id: str
    sentences: list[SentenceLabel] = Field(default_factory=list)
