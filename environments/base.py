"""Environment interfaces: what agents can see and do, and what only the evaluator sees.

An environment owns the catalog, an *item interface* (which items are on screen and the
feedback given on them), a *dialogue interface* (the transcript) and the hidden ground
truth of the episode. It hands each role an observation built for that role, so
visibility rules live in one place instead of in every agent: a recommender's observation
never holds the target, and only the evaluator (`Environment.evaluation`) sees everything.

`reset` / `step` follow Gymnasium's split between *terminated* (the task ended: the seeker
accepted or quit) and *truncated* (a limit was hit). Observations and actions are plain
dataclasses because they are built every turn and never saved; what is saved is `Turn`,
`RankingRecord` and `Episode` from `environments.models`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from environments.models import AttributeValue, Item, Role, Turn


@dataclass(frozen=True, slots=True)
class ItemCard:
    """An item as presented on screen: what a seeker may read about it."""

    id: str
    title: str
    description: str
    attributes: Mapping[str, AttributeValue]

    @classmethod
    def of(cls, item: Item) -> ItemCard:
        return cls(item.id, item.title, item.description, item.attributes)


@dataclass(frozen=True, slots=True)
class Recommendation:
    """A recommender's move: a ranking of the candidates and a question for the seeker.

    Give either `scores` (one per candidate, aligned with the observation's `candidates`;
    higher is better, equal scores are tied and broken at random by the environment) or
    `ranked_ids` (best first; unlisted candidates tie for last place).
    """

    question: str
    scores: np.ndarray | None = None
    ranked_ids: Sequence[str] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SeekerReply:
    """A seeker's move: an utterance, optional feedback on shown items, and its decision."""

    text: str
    feedback: Mapping[str, str] = field(default_factory=dict)
    accept: bool = False
    quit: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)


Action = Recommendation | SeekerReply


@dataclass(frozen=True, slots=True)
class RecommenderObservation:
    """What a recommender sees: the transcript and what is on screen, never the target."""

    turn: int
    dialogue: Sequence[Turn]
    shown: Sequence[ItemCard]
    candidates: Sequence[str]
    item_noun: str
    episode_seed: int


@dataclass(frozen=True, slots=True)
class SeekerObservation:
    """What a seeker sees: the transcript, what is on screen, and its own profile."""

    turn: int
    dialogue: Sequence[Turn]
    shown: Sequence[ItemCard]
    profile: Any
    item_noun: str
    episode_seed: int


Observation = RecommenderObservation | SeekerObservation


@dataclass(frozen=True, slots=True)
class StepResult:
    observation: Observation
    terminated: bool
    truncated: bool
    info: dict[str, Any] = field(default_factory=dict)


ENVIRONMENT_METADATA = frozenset({"opening"})


class DialogueInterface:
    """The transcript. Appending is the only state change; reading is free.

    Agents put private notes in a turn's metadata (which profile fact a seeker used, which
    aspect a recommender asked about). Those notes are logged for the evaluator but would
    leak structure across roles, so `visible_to(role)` shows other roles' turns with only
    the environment's own keys (`ENVIRONMENT_METADATA`) left in their metadata.
    """

    def __init__(self) -> None:
        self._turns: list[Turn] = []
        self._public: list[Turn] = []

    def append(self, role: Role, text: str, *, items_shown: Sequence[str] = (),
               feedback: Mapping[str, str] | None = None, metadata: dict[str, Any] | None = None) -> Turn:
        turn = Turn(
            index=len(self._turns), role=role, text=text, items_shown=list(items_shown),
            feedback=dict(feedback or {}), metadata=dict(metadata or {}),
        )
        self._turns.append(turn)
        public = {k: v for k, v in turn.metadata.items() if k in ENVIRONMENT_METADATA}
        self._public.append(turn if public == turn.metadata else turn.model_copy(update={"metadata": public}))
        return turn

    def transcript(self) -> tuple[Turn, ...]:
        """Everything, private notes included: the evaluator's and the log's view."""
        return tuple(self._turns)

    def visible_to(self, role: Role) -> tuple[Turn, ...]:
        return tuple(full if full.role is role else public for full, public in zip(self._turns, self._public))


class ItemInterface:
    """The items on screen and the feedback given on them.

    `present` and `give_feedback` change state; `shown` and `feedback` only read, so a
    replay can re-apply exactly the state changes of a logged episode.
    """

    def __init__(self, items_by_id: Mapping[str, Item], top_k: int):
        self._items = items_by_id
        self.top_k = top_k
        self._shown: tuple[ItemCard, ...] = ()
        self._feedback: dict[str, str] = {}

    def present(self, ranked_ids: Sequence[str]) -> tuple[ItemCard, ...]:
        self._shown = tuple(ItemCard.of(self._items[i]) for i in ranked_ids[: self.top_k])
        return self._shown

    def give_feedback(self, item_id: str, kind: str) -> None:
        if item_id not in self._items:
            raise KeyError(f"feedback on unknown item '{item_id}'")
        self._feedback[item_id] = kind

    def shown(self) -> tuple[ItemCard, ...]:
        return self._shown

    def feedback(self) -> dict[str, str]:
        return dict(self._feedback)


class Environment(ABC):
    """One episode's world. Built fresh per episode by an environment setup."""

    name: str = "environment"

    @abstractmethod
    def reset(self, *, seed: int, options: dict[str, Any] | None = None) -> dict[Role, Observation]:
        """Start an episode; return the first observation of every role."""

    @abstractmethod
    def step(self, action: Action) -> StepResult:
        """Apply the acting role's move; return the next role's observation."""

    @abstractmethod
    def evaluation(self) -> dict[str, Any]:
        """Everything the evaluator needs (ground truth, per-turn rankings, the full transcript
        with private notes). Never shown to agents."""
