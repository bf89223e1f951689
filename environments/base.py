"""Environment interfaces: what agents can see and do, and what only the evaluator sees.

A *protocol* (single-target recommendation, preference elicitation, playlist curation,
product search, ...) is an `EnvironmentSetup` — what Hydra builds once per run — plus
the per-episode `Environment` it hands out. The setup declares the protocol to the rest
of crsim: its roles in speaking order, the catalog view each role's agent is built from,
and how a logged move is re-applied in a replay. The orchestrator, the runner, replay and
reports follow that declaration and never branch on which protocol it is.

An environment owns the catalog, an *item interface* (which items are on screen, the
feedback given on them and, for set protocols, the item set being built), a *dialogue
interface* (the transcript) and the hidden ground truth of the episode. It hands each
role an observation built for that role, so visibility rules live in one place instead
of in every agent: a recommender's observation never holds the target, and only the
evaluator (`Environment.evaluation`, a typed `EpisodeEvaluation`) sees everything.

`step(role, action)` applies one move and says whether the task ended, and why
(`StepResult.termination`: accepted, found, set complete, ...). Limits — the number of
turns, the run's budget — are the orchestrator's, not the environment's, so there is no
separate "truncated" flag. Observations and actions are plain dataclasses because they
are built every turn and never saved; what is saved is `Turn`, `TurnEvaluation` and
`Episode` from `environments.models`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from environments.models import AttributeValue, EpisodeEvaluation, Item, TerminationReason, Turn

if TYPE_CHECKING:
    from environments.catalog import Catalog


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
    `ranked_ids` (best first; unlisted candidates tie for last place). A candidate left
    unranked (unlisted, or a NaN score) is never put on screen: a move that names two items
    shows two.
    """

    question: str
    scores: np.ndarray | None = None
    ranked_ids: Sequence[str] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SeekerReply:
    """A seeker's move: an utterance, optional feedback on shown items, and its decision.

    `add` / `remove` change the item set in protocols that build one; `mentions` names the
    catalog items the utterance refers to (private: the evaluator sees them, other roles
    must find them in the text themselves)."""

    text: str
    feedback: Mapping[str, str] = field(default_factory=dict)
    accept: bool = False
    quit: bool = False
    add: Sequence[str] = ()
    remove: Sequence[str] = ()
    mentions: Sequence[str] = ()
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
    """What one move did: `termination` is set when the move ended the task, naming why."""

    termination: TerminationReason | None = None
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def terminated(self) -> bool:
        return self.termination is not None


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

    def append(self, role: str, text: str, *, items_shown: Sequence[str] = (),
               feedback: Mapping[str, str] | None = None, added: Sequence[str] = (), removed: Sequence[str] = (),
               metadata: dict[str, Any] | None = None) -> Turn:
        turn = Turn(
            index=len(self._turns), role=role, text=text, items_shown=list(items_shown),
            feedback=dict(feedback or {}), added=list(added), removed=list(removed), metadata=dict(metadata or {}),
        )
        self._turns.append(turn)
        public = {k: v for k, v in turn.metadata.items() if k in ENVIRONMENT_METADATA}
        self._public.append(turn if public == turn.metadata else turn.model_copy(update={"metadata": public}))
        return turn

    def transcript(self) -> tuple[Turn, ...]:
        """Everything, private notes included: the evaluator's and the log's view."""
        return tuple(self._turns)

    def visible_to(self, role: str) -> tuple[Turn, ...]:
        return tuple(full if full.role == role else public for full, public in zip(self._turns, self._public))


class ItemInterface:
    """The items on screen, the feedback given on them, and the item set being built.

    `present`, `give_feedback`, `add` and `remove` change state; `shown`, `feedback` and
    `item_set` only read, so a replay can re-apply exactly the state changes of a logged
    episode. Feedback is a reaction to a shown item (the latest one counts); set moves are
    separate, so a seeker can like an item without keeping it, or keep one it disliked.
    """

    def __init__(self, items_by_id: Mapping[str, Item], top_k: int):
        self._items = items_by_id
        self.top_k = top_k
        self._shown: tuple[ItemCard, ...] = ()
        self._feedback: dict[str, str] = {}
        self._set: dict[str, None] = {}

    def _known(self, item_id: str, what: str) -> None:
        if item_id not in self._items:
            raise KeyError(f"{what} unknown item '{item_id}'")

    def present(self, ranked_ids: Sequence[str]) -> tuple[ItemCard, ...]:
        self._shown = tuple(ItemCard.of(self._items[i]) for i in ranked_ids[: self.top_k])
        return self._shown

    def give_feedback(self, item_id: str, kind: str) -> None:
        self._known(item_id, "feedback on")
        self._feedback[item_id] = kind

    def add(self, item_ids: Iterable[str]) -> list[str]:
        """Put items into the set; returns those that were not in it already."""
        added = []
        for item_id in item_ids:
            self._known(item_id, "cannot add")
            if item_id not in self._set:
                self._set[item_id] = None
                added.append(item_id)
        return added

    def remove(self, item_ids: Iterable[str]) -> list[str]:
        """Take items out of the set; returns those that were in it."""
        removed = [item_id for item_id in item_ids if item_id in self._set]
        for item_id in removed:
            del self._set[item_id]
        return removed

    def shown(self) -> tuple[ItemCard, ...]:
        return self._shown

    def feedback(self) -> dict[str, str]:
        return dict(self._feedback)

    def item_set(self) -> tuple[str, ...]:
        return tuple(self._set)


class Environment(ABC):
    """One episode's world. Built fresh per episode by an environment setup."""

    name: str = "environment"

    @abstractmethod
    def reset(self, *, seed: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
        """Start an episode; return the first observation of every declared role.

        The orchestrator passes `options={"episode_index": i}`; an environment may use it
        (one user per episode) or ignore it, and must accept options it does not know."""

    @abstractmethod
    def observe(self, role: str) -> Any:
        """What `role` sees now (called before each of its moves)."""

    @abstractmethod
    def step(self, role: str, action: Any) -> StepResult:
        """Apply `role`'s move; say whether it ended the task."""

    @abstractmethod
    def evaluation(self) -> EpisodeEvaluation:
        """Everything the evaluator needs (targets, per-turn records, the full transcript with
        private notes). Never shown to agents. Must work after a failed `reset` too (then
        with what is known, possibly nothing)."""


class EnvironmentSetup(ABC):
    """A protocol, as Hydra builds it: shared, read-only state for all episodes of a run.

    `roles` are the roles in speaking order: each round every role moves once, in this
    order, and `max_turns` counts rounds. `crsim run` builds one agent per role from the
    config group of the same name (`recommender`, `seeker`, `curator`, ...), passing it
    `agent_catalog(role)` as `catalog` when that is not None. `new_episode()` must be cheap:
    episodes run concurrently, each in its own `Environment`.
    """

    name: str = "setup"
    roles: tuple[str, ...] = ()
    catalog: Catalog

    @abstractmethod
    def new_episode(self) -> Environment:
        """A fresh environment for one episode."""

    def agent_catalog(self, role: str) -> Catalog | None:
        """The catalog view `role`'s agent is built from; None: the agent gets no catalog."""
        return None

    def scripted_action(self, role: str, turn: Turn, ending: TerminationReason | None) -> Any:
        """The action that re-applies a logged move of `role` (replay with one side fixed).

        `ending` is the episode's logged termination when this was the episode's last move,
        so an accepting or quitting move can be re-made as such."""
        raise NotImplementedError(f"{self.name} cannot re-apply logged {role} moves")
