"""The data model every part of crsim shares.

Everything that is saved to disk or crosses a boundary between environment, agents and
simulators is one of these pydantic models, so that a catalog written by a dataset adapter,
a synthetic world or a test fixture loads the same way, and a logged episode can be
re-scored or replayed long after the run. Schema versions are written with the data; a
reader refuses a version it does not know with a message naming it.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

CATALOG_SCHEMA_VERSION = 1
EPISODE_SCHEMA_VERSION = 2
"""2: `LLMCallSummary.cost_usd` added. Version-1 logs still load (see `simulators.logs`)."""

AttributeValue = str | list[str]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Item(_Model):
    """One thing that can be recommended: a restaurant, a movie, a product."""

    id: str = Field(description="Stable identifier, kept from the source dataset.")
    title: str = Field(description="Display name shown to seekers.")
    category: str = Field(default="", description="Top-level category, e.g. 'restaurant'.")
    attributes: dict[str, AttributeValue] = Field(
        default_factory=dict, description="Aspect -> value(s), e.g. {'cuisine': 'thai'}."
    )
    description: str = Field(default="", description="Free-text description or plot.")
    extra: dict[str, Any] = Field(default_factory=dict, description="Source-specific fields.")


class Review(_Model):
    """A user's review of an item."""

    id: str = Field(description="Stable identifier, kept from the source dataset.")
    item_id: str = Field(description="Id of the reviewed item.")
    user_id: str = Field(description="Id of the reviewing user.")
    rating: float = Field(description="Star rating as given by the source (usually 1-5).")
    text: str = Field(description="Review text.")
    helpful_votes: int = Field(default=0, description="Helpful/useful votes, 0 if unknown.")
    timestamp: int | None = Field(default=None, description="Unix seconds, if known.")


class Snippet(_Model):
    """A short self-contained statement about one aspect of an item (SnipRec)."""

    text: str = Field(description="The snippet text.")
    item_id: str | None = Field(default=None, description="Item it describes, if any.")
    source: Literal["review", "attribute", "dialogue"] = Field(description="Where it came from.")
    aspect: str | None = Field(default=None, description="Aspect it talks about, if known.")
    sentiment: float = Field(default=0.0, description="Polarity in [-1, 1].")


class SeenItem(_Model):
    item_id: str = Field(description="An item the user interacted with.")
    rating: float | None = Field(default=None, description="The user's rating, if any.")
    review_id: str | None = Field(default=None, description="The user's review, if any.")


class UserProfile(_Model):
    """A user as far as the catalog knows them."""

    user_id: str = Field(description="Stable identifier, kept from the source dataset.")
    seen: list[SeenItem] = Field(default_factory=list, description="Interaction history.")
    target_items: list[str] = Field(default_factory=list, description="Items to be found, if set.")
    preferences: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Derived preferences, e.g. {'likes': [...], 'dislikes': [...]}.",
    )


class CatalogManifest(_Model):
    """`catalog.json`: what a catalog directory holds and which schema wrote it."""

    schema_version: int = Field(default=CATALOG_SCHEMA_VERSION, description="On-disk format version.")
    name: str = Field(description="Human-readable catalog name.")
    domain: str = Field(default="generic", description="Domain key, e.g. 'restaurant', 'movie'.")
    item_noun: str = Field(default="items", description="Plural noun used in prompts, e.g. 'movies'.")
    source: str = Field(default="", description="Adapter or generator that wrote it.")
    counts: dict[str, int] = Field(default_factory=dict, description="Rows per file.")
    extra: dict[str, Any] = Field(default_factory=dict, description="Generator settings etc.")


class Role(str, Enum):
    recommender = "recommender"
    seeker = "seeker"
    seller = "seller"
    customer = "customer"


class Turn(_Model):
    """One utterance in a dialogue, with the items shown alongside it."""

    index: int = Field(description="Position in the transcript, from 0.")
    role: Role = Field(description="Who spoke.")
    text: str = Field(description="What was said.")
    items_shown: list[str] = Field(default_factory=list, description="Item ids presented with it.")
    feedback: dict[str, str] = Field(
        default_factory=dict, description="Item id -> like/dislike/add given on shown items."
    )
    metadata: dict[str, Any] = Field(default_factory=dict, description="Agent-provided extras.")


class TerminationReason(str, Enum):
    max_turns = "max_turns"
    accepted = "accepted"
    seeker_quit = "seeker_quit"
    error = "error"
    budget = "budget"


class RankingRecord(_Model):
    """Where the hidden target landed in one turn's ranking (evaluator's view)."""

    turn: int = Field(description="Recommendation turn, from 1.")
    target_rank: int = Field(description="1-based rank of the target after seeded tie-breaking.")
    n_better: int = Field(description="Items scored strictly above the target.")
    n_tied: int = Field(description="Items scored equal to the target, itself included.")
    n_candidates: int = Field(description="Size of the ranked candidate set.")
    top: list[str] = Field(default_factory=list, description="Top of the ranking (item ids).")


class LLMCallSummary(_Model):
    step: str = Field(description="Language step, e.g. 'seeker_answer'.")
    role: str = Field(description="Agent role that made the call.")
    prompt_hash: str = Field(description="Hash of model, messages and parameters.")
    ok: bool = Field(description="Whether the answer parsed (possibly after repair).")
    repaired: bool = Field(default=False, description="Whether a repair attempt was needed.")
    error: str | None = Field(default=None, description="Parse/transport error, if any.")
    input_tokens: int | None = Field(default=None, description="Prompt tokens, if reported.")
    output_tokens: int | None = Field(default=None, description="Completion tokens, if reported.")
    cache_hit: bool = Field(default=False, description="Answered from the response cache.")
    cost_usd: float | None = Field(default=None, description="USD, if the model is priced (0 for cache hits).")


class Episode(_Model):
    """One simulated conversation, as logged: enough to re-score, render and replay it.

    Wall-clock timings are deliberately not part of this record (they go to
    `timings.jsonl`), so that the same config and seed give a byte-identical log.
    """

    schema_version: int = Field(default=EPISODE_SCHEMA_VERSION, description="Episode format version.")
    id: str = Field(description="Stable id: derived from run seed and episode index.")
    index: int = Field(description="Episode index within the run.")
    config_hash: str = Field(description="Hash of the resolved config that produced it.")
    seed: int = Field(description="Seed of this episode's random generators.")
    environment: str = Field(description="Environment protocol name.")
    target_item: str | None = Field(default=None, description="Hidden target (evaluator only).")
    profile: dict[str, Any] = Field(default_factory=dict, description="What the seeker was given.")
    turns: list[Turn] = Field(default_factory=list, description="The transcript.")
    rankings: list[RankingRecord] = Field(default_factory=list, description="Per-turn target ranks.")
    termination: TerminationReason = Field(description="Why the episode ended.")
    llm_calls: list[LLMCallSummary] = Field(default_factory=list, description="Language-model calls.")
    error: str | None = Field(default=None, description="Traceback if the episode crashed.")
