"""A protocol that exists only in the tests: a buyer fills a basket with two wanted gifts.

It is the proof that crsim's core is generic: roles with other names (`broker`, `buyer`),
two targets per episode, an item set built over the turns, its own actions and
observations, and an ending (`set_complete`) the environment declares — run through
`crsim run`, `crsim replay` and `crsim report` without any change under `simulators/`.

Each round the broker ranks the gifts and shows the top three; the buyer puts every
shown gift it wants into the basket and says what it is still looking for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.base import agent_from_function
from environments.base import DialogueInterface, Environment, EnvironmentSetup, ItemCard, ItemInterface, StepResult
from environments.catalog import Catalog
from environments.models import (
    CatalogManifest, EpisodeEvaluation, Item, ItemSetState, TerminationReason, Turn, TurnEvaluation,
)
from environments.ranking import rank_targets, tie_broken_order

COLORS = ["red", "blue", "green", "gold", "black", "white"]
KINDS = ["mug", "scarf", "lamp", "book", "candle"]


@dataclass(frozen=True, slots=True)
class Offer:
    text: str
    scores: np.ndarray
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Pick:
    text: str
    add: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class BrokerView:
    dialogue: tuple[Turn, ...]
    basket: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BuyerView:
    dialogue: tuple[Turn, ...]
    shown: tuple[ItemCard, ...]
    wanted: tuple[tuple[str, str, str], ...]  # (item id, color, kind): the buyer knows its targets
    basket: tuple[str, ...]


def gift_catalog() -> Catalog:
    items = [Item(id=f"g{i:02d}", title=f"{c} {k}".title(), category="gift", attributes={"color": c, "kind": k})
             for i, (c, k) in enumerate((c, k) for k in KINDS for c in COLORS)]
    return Catalog(CatalogManifest(name="gifts", domain="gift", item_noun="gifts"), items)


class BasketSetup(EnvironmentSetup):
    name = "toy_basket"
    roles = ("broker", "buyer")

    def __init__(self, shown: int = 3):
        self.catalog = gift_catalog()
        self.shown = shown
        self.items_by_id = {item.id: item for item in self.catalog.items}

    def new_episode(self) -> BasketEnvironment:
        return BasketEnvironment(self)

    def agent_catalog(self, role: str) -> Catalog | None:
        return self.catalog if role == "broker" else None

    def scripted_action(self, role: str, turn: Turn, ending: TerminationReason | None) -> Any:
        if role == "broker":
            order = {item_id: len(turn.items_shown) - k for k, item_id in enumerate(turn.items_shown)}
            return Offer(turn.text, np.array([float(order.get(i, 0)) for i in self.catalog.item_ids]),
                         dict(turn.metadata))
        return Pick(turn.text, tuple(turn.added), dict(turn.metadata))


class BasketEnvironment(Environment):
    name = "toy_basket"

    def __init__(self, setup: BasketSetup):
        self.setup = setup
        self.dialogue = DialogueInterface()
        self.items = ItemInterface(setup.items_by_id, setup.shown)
        self.records: list[TurnEvaluation] = []
        self.targets: list[str] = []
        self.rng = np.random.default_rng(0)

    def reset(self, *, seed: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
        self.rng = np.random.default_rng(seed)
        self.targets = [str(t) for t in self.rng.choice(self.setup.catalog.item_ids, size=2, replace=False)]
        return {role: self.observe(role) for role in self.setup.roles}

    def observe(self, role: str) -> Any:
        basket = self.items.item_set()
        if role == "broker":
            return BrokerView(self.dialogue.visible_to(role), basket)
        wanted = tuple((t, *(str(self.setup.items_by_id[t].attributes[a]) for a in ("color", "kind")))
                       for t in self.targets)
        return BuyerView(self.dialogue.visible_to(role), self.items.shown(), wanted, basket)

    def step(self, role: str, action: Any) -> StepResult:
        if role == "broker":
            order = tie_broken_order(np.asarray(action.scores, dtype=float), self.rng)
            ids = self.setup.catalog.item_ids
            shown = self.items.present([ids[i] for i in order])
            turn = self.dialogue.append(role, action.text, items_shown=[c.id for c in shown], metadata=action.metadata)
            index = self.setup.catalog.item_index
            self.records.append(TurnEvaluation(
                turn=len(self.records) + 1, source_turn=turn.index, n_candidates=len(ids), top=[ids[i] for i in order[:5]],
                ranks=rank_targets(np.asarray(action.scores, dtype=float), order, [(t, index[t]) for t in self.targets])))
            return StepResult()
        added = self.items.add(action.add)
        self.dialogue.append(role, action.text, added=added, metadata=action.metadata)
        state = ItemSetState(items=list(self.items.item_set()), added=added)
        self.records[-1] = self.records[-1].model_copy(update={"item_set": state})
        done = set(self.targets) <= set(self.items.item_set())
        return StepResult(TerminationReason.set_complete if done else None)

    def evaluation(self) -> EpisodeEvaluation:
        return EpisodeEvaluation(targets=list(self.targets), profile={"wanted": list(self.targets)},
                                 turns=list(self.dialogue.transcript()), evaluations=list(self.records))


def build(shown: int = 3) -> BasketSetup:
    return BasketSetup(shown)


def keyword_broker(catalog: Catalog, llm: Any = None) -> Any:
    """Ranks gifts by the words the buyer used, leaving out what is already in the basket."""
    def respond(view: BrokerView) -> Offer:
        words = " ".join(t.text for t in view.dialogue if t.role == "buyer").lower().split()
        scores = np.array([sum(str(v) in words for v in item.attributes.values()) - 10 * (item.id in view.basket)
                           for item in catalog.items], dtype=float)
        return Offer("How about these?", scores)
    return agent_from_function("broker", respond)


def wishlist_buyer(llm: Any = None) -> Any:
    """Takes every shown gift it wants; names one wanted gift it has not got yet."""
    def respond(view: BuyerView) -> Pick:
        shown = {card.id for card in view.shown}
        take = tuple(t for t, _, _ in view.wanted if t in shown and t not in view.basket)
        missing = [(color, kind) for t, color, kind in view.wanted if t not in view.basket and t not in take]
        text = f"I still want a {missing[0][0]} {missing[0][1]}." if missing else "That is everything, thanks."
        return Pick(text, take, {"missing": len(missing)})
    return agent_from_function("buyer", respond)
