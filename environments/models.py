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

from pydantic import BaseModel, ConfigDict, Field, field_validator

CATALOG_SCHEMA_VERSION = 1
EPISODE_SCHEMA_VERSION = 3
"""2: `LLMCallSummary.cost_usd` added. 3: many targets (`targets`), per-turn `evaluations`
(every target's rank, item-set state, mentions) instead of one `target_item`/`rankings`,
free role names, item-set moves on turns. Older logs still load (see `simulators.engine.logs`)."""

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
    negated: bool = Field(default=False, description="It says the item lacks something ('no patio here').")


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
    """The roles crsim's own protocols use. A protocol may declare roles with other names:
    a turn's role is a plain string, and these members compare equal to their values."""

    recommender = "recommender"
    seeker = "seeker"
    seller = "seller"
    customer = "customer"
    curator = "curator"


class Turn(_Model):
    """One utterance in a dialogue, with the items shown alongside it."""

    index: int = Field(description="Position in the transcript, from 0.")
    role: str = Field(description="Who spoke: one of the roles the environment declares.")
    text: str = Field(description="What was said.")
    items_shown: list[str] = Field(default_factory=list, description="Item ids presented with it.")
    feedback: dict[str, str] = Field(
        default_factory=dict, description="Item id -> the speaker's reaction (like/dislike/...) to a shown item."
    )
    added: list[str] = Field(default_factory=list, description="Items this move added to the item set.")
    removed: list[str] = Field(default_factory=list, description="Items this move removed from the item set.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Agent-provided extras.")

    @field_validator("role", mode="before")
    @classmethod
    def _plain_role(cls, value: Any) -> Any:
        return value.value if isinstance(value, Enum) else value


class TerminationReason(str, Enum):
    """Why an episode ended. `max_turns`, `error` and `budget` are the orchestrator's; the
    others are the environment's verdict on the task (see `environments.base.StepResult`)."""

    max_turns = "max_turns"
    accepted = "accepted"
    seeker_quit = "seeker_quit"
    found = "found"
    purchased = "purchased"
    set_complete = "set_complete"
    error = "error"
    budget = "budget"


class TargetRank(_Model):
    """Where one hidden target landed in a turn's ranking."""

    item_id: str = Field(description="The target item.")
    rank: int = Field(description="1-based rank after seeded tie-breaking.")
    n_better: int = Field(description="Items scored strictly above the target.")
    n_tied: int = Field(description="Items scored equal to the target, itself included.")


class ItemSetState(_Model):
    """The item set a protocol builds (a playlist, a basket) after one turn."""

    items: list[str] = Field(default_factory=list, description="Items in the set, in the order they were added.")
    added: list[str] = Field(default_factory=list, description="Items added this turn.")
    removed: list[str] = Field(default_factory=list, description="Items removed this turn.")


class ItemMention(_Model):
    """An item a role named in its utterance, as the environment knows it (evaluator's view)."""

    role: str = Field(description="Who named it.")
    item_id: str = Field(description="The catalog item named.")
    turn_index: int = Field(description="Transcript index of the turn that named it.")
    attitude: str | None = Field(default=None, description="like / dislike / neutral, if known.")


class TurnEvaluation(_Model):
    """What the evaluator records about one turn (round) of an episode; agents never see it.

    A ranking protocol fills `ranks` (every target's rank) and `top`; a set protocol fills
    `item_set`; a protocol whose roles name items fills `mentions`. Metrics read these.
    """

    turn: int = Field(description="Round, from 1 (every declared role moves once per round).")
    source_turn: int | None = Field(default=None, description="Transcript index of the move evaluated.")
    n_candidates: int = Field(default=0, description="Size of the ranked candidate set (0: nothing ranked).")
    ranks: list[TargetRank] = Field(default_factory=list, description="Rank of every target this turn.")
    top: list[str] = Field(default_factory=list, description="Top of the ranking (item ids).")
    item_set: ItemSetState | None = Field(default=None, description="The item set after this turn, if any.")
    mentions: list[ItemMention] = Field(default_factory=list, description="Items named this turn.")

    @property
    def best_rank(self) -> int | None:
        return min((r.rank for r in self.ranks), default=None)

    def rank_of(self, item_id: str) -> int | None:
        return next((r.rank for r in self.ranks if r.item_id == item_id), None)


class EpisodeEvaluation(_Model):
    """The evaluator's view of a finished (or crashed) episode, as the environment reports it."""

    targets: list[str] = Field(default_factory=list, description="Hidden targets (one for single-target).")
    target_groups: dict[str, list[str]] = Field(
        default_factory=dict, description="Named subsets of the targets a metric may score apart (e.g. 'selected').")
    profile: dict[str, Any] = Field(default_factory=dict, description="What the simulated user was given.")
    turns: list[Turn] = Field(default_factory=list, description="The transcript, private notes included.")
    evaluations: list[TurnEvaluation] = Field(default_factory=list, description="One record per evaluated turn.")


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
    targets: list[str] = Field(default_factory=list, description="Hidden targets (evaluator only).")
    target_groups: dict[str, list[str]] = Field(
        default_factory=dict, description="Named subsets of the targets a metric may score apart (e.g. 'selected').")
    profile: dict[str, Any] = Field(default_factory=dict, description="What the simulated user was given.")
    turns: list[Turn] = Field(default_factory=list, description="The transcript.")
    evaluations: list[TurnEvaluation] = Field(default_factory=list, description="Per-turn evaluation records.")
    termination: TerminationReason = Field(description="Why the episode ended.")
    llm_calls: list[LLMCallSummary] = Field(default_factory=list, description="Language-model calls.")
    error: str | None = Field(default=None, description="Traceback if the episode crashed.")

    @property
    def target_item(self) -> str | None:
        """The first target: the target of a single-target episode."""
        return self.targets[0] if self.targets else None
