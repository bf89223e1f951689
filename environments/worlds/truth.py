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


SentenceKind = Literal["plain", "generic", "hedge", "comparison", "lacking", "signature", "chatter"]


class SentenceLabel(_Model):
    """One review sentence and what it says about its item.

    `aspect`/`value` name the value the sentence talks about; `present` is False when the
    item lacks it (a "lacking" sentence: "don't come expecting harbor views"); a
    "comparison" also names a `contrasted` value the item lacks. Polarity is the writer's
    attitude: +1, -1, or 0 for a hedge. Chatter has no aspect; a "signature" sentence
    names one of the item's signature facts instead.
    """

    text: str
    aspect: str | None = None
    value: str | None = None
    polarity: Literal[-1, 0, 1] = 0
    kind: SentenceKind = "plain"
    present: bool = True
    contrasted: str | None = None
    signature: str | None = None


class ItemTruth(_Model):
    """What an item really is, next to what the catalog shows of it."""

    item_id: str
    attributes: dict[str, str | list[str]] = Field(description="True values (what ratings and reviews follow).")
    shown: dict[str, str | list[str]] = Field(description="What items.jsonl shows: partial and sometimes wrong.")
    cluster: int = Field(description="Near-duplicate cluster: items sharing most attribute values.")
    signatures: list[str] = Field(default_factory=list, description="Details only some reviews mention.")
    popularity: float = Field(description="Latent share of extra reviews (Zipf).")


class ReviewTruth(_Model):
    """The labelled sentences of one review, in the order they appear in its text."""

    review_id: str
    item_id: str
    user_id: str
    sentences: list[SentenceLabel] = Field(default_factory=list)


class ThemeTruth(_Model):
    """A playlist theme of the music world and its goal set (evaluator only: agents never see
    `goal`; a seeker is told the theme through its goal tracks' metadata, not their ids)."""

    theme_id: str = Field(description="Stable id, th0001...")
    name: str = Field(description="Short name, e.g. 'upbeat 80s workout'.")
    occasion: str = Field(description="What the playlist is for: workout, rainy sunday, ...")
    constraints: dict[str, str] = Field(description="Aspect -> true value every goal track has.")
    request: str = Field(description="The listener's opening request, in its own words.")
    goal: list[str] = Field(description="Goal set: 10-30 track ids fitting every constraint.")
    n_fitting: int = Field(description="How many tracks of the world fit the constraints.")
