"""The TRACER shopping protocol: a customer and a seller, a catalog search and a plan.

Roles speak in the order `customer`, `seller` (the customer opens with the category).
Per episode the environment samples a product and the customer's preference from it
(`preference.py`), searches the category, and asks the planner for the first step. Each
customer move states some aspects (`CustomerMove.expressed`, from the customer's state
tracker); the environment reveals those of the current step with the preference's true
stance — so the search follows what was said, and an aspect the customer only asked
about stays pending. Once every aspect of a step is answered it searches again and plans
the next step; when the results have converged the seller recommends one of them, the
customer accepts, and the seller's closing move ends the episode with `purchased` (or
`found` when it closes on a recommendation the customer did not accept). The seller
must close within `close_within` of its moves after recommending.

Evaluation, per round: the number of matching products (`n_candidates`), the first
results (`top`), the recommended product as an `ItemMention` whose attitude is `like`
when it satisfies every wanted and no unwanted preference (`dislike` otherwise), and the
purchase as the item set. The profile holds the preference, the plan steps taken, the
searches, and the final product.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from environments.base import DialogueInterface, Environment, EnvironmentSetup, ItemCard, ItemInterface, StepResult
from environments.catalog import Catalog
from environments.errors import CrsimError
from environments.models import (
    EpisodeEvaluation, ItemMention, ItemSetState, Role, TerminationReason, Turn, TurnEvaluation,
)
from environments.catalog import load_catalog_dir
from environments.shopping.domains import GLOSSES
from environments.shopping.planner import Planner, PlanStep, converged
from environments.shopping.preference import Feature, Preference, sample_preference
from environments.shopping.products import ShoppingCatalog
from environments.shopping.views import AspectHint, CustomerMove, CustomerView, SellerMove, SellerView
from environments.shopping.world import generate_shopping_world

CUSTOMER, SELLER = Role.customer.value, Role.seller.value
MAX_CANDIDATES = 50
TOP_LOGGED = 10


class ShoppingSetup(EnvironmentSetup):
    name = "tracer_shopping"
    roles = (CUSTOMER, SELLER)

    def __init__(self, catalog: Catalog, planner: str = "tree", preference_weights: dict[str, float] | None = None,
                 close_within: int = 3, glosses: dict[str, str] | None = None, min_features: int = 2):
        self.catalog = catalog
        self.shop = ShoppingCatalog(catalog, min_features=min_features)
        if not self.shop.pool:
            raise CrsimError(f"catalog '{catalog.manifest.name}' has no product with {min_features} or more "
                             "features: nothing to shop for")
        self.planner = Planner(self.shop, planner)
        self.preference_weights = dict(preference_weights or {})
        self.close_within = close_within
        self.glosses = dict(glosses or {})
        self.items_by_id = {item.id: item for item in catalog.items}

    def new_episode(self) -> ShoppingEnvironment:
        return ShoppingEnvironment(self)

    def agent_catalog(self, role: str) -> Catalog | None:
        return self.catalog if role == SELLER else None

    def scripted_action(self, role: str, turn: Turn, ending: TerminationReason | None) -> Any:
        meta = dict(turn.metadata)
        if role == SELLER:
            return SellerMove(turn.text, tuple(meta.get("asked", ())), meta.get("recommend"),
                              bool(meta.get("close")), meta)
        return CustomerMove(turn.text, tuple(meta.get("expressed", ())), meta.get("question"),
                            bool(meta.get("accept")), meta)


class ShoppingEnvironment(Environment):
    name = "tracer_shopping"

    def __init__(self, setup: ShoppingSetup):
        self.setup = setup
        self.shop = setup.shop
        self.dialogue = DialogueInterface()
        self.items = ItemInterface(setup.items_by_id, top_k=1)
        self.records: list[TurnEvaluation] = []
        self.rng = np.random.default_rng(0)
        self.seed = 0
        self.preference: Preference | None = None
        self.revealed: dict[str, Feature] = {}
        self.rows = np.array([], dtype=np.int64)
        self.step_now: PlanStep | None = None
        self.steps: list[PlanStep] = []
        self.searches = 0
        self.asked: tuple[str, ...] = ()
        self.final: str | None = None
        self.accepted = False
        self.moves_since_recommendation = 0

    # ---------------------------------------------------------------- episode start
    def reset(self, *, seed: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        product = (options or {}).get("product_id")
        if product is not None:
            row = self.setup.catalog.item_index.get(product)
            if row is None:
                raise CrsimError(f"no product '{product}' in catalog '{self.setup.catalog.manifest.name}'")
        else:
            row = self.shop.pool[int(self.rng.integers(len(self.shop.pool)))]
        self.preference = sample_preference(self.shop, row, self.rng, self.setup.preference_weights)
        self._search()
        self._plan()
        return {role: self.observe(role) for role in self.setup.roles}

    def _search(self) -> None:
        assert self.preference is not None
        self.rows = self.setup.planner.search(self.preference, self.revealed)
        self.searches += 1

    def _plan(self) -> None:
        assert self.preference is not None
        self.step_now = self.setup.planner.next_step(self.rows, self.preference, self.revealed, self.rng)

    @property
    def converged(self) -> bool:
        return self.step_now is None

    def _pending(self) -> list[str]:
        return [] if self.step_now is None else [a.aspect for a in self.step_now.aspects
                                                 if a.aspect not in self.revealed]

    # ---------------------------------------------------------------- observations
    def observe(self, role: str) -> Any:
        assert self.preference is not None
        dialogue = self.dialogue.visible_to(role)
        if role == CUSTOMER:
            shown = self.items.shown()
            return CustomerView(len(self.records) + 1, dialogue, self.preference, self.asked,
                                shown[0] if shown else None, self.seed)
        hints = {a.aspect: a for a in (self.step_now.aspects if self.step_now else [])}
        candidates = tuple(ItemCard.of(self.setup.catalog.items[int(i)]) for i in self.rows[:MAX_CANDIDATES]) \
            if self.converged else ()
        return SellerView(len(self.records) + 1, dialogue, self.preference.category,
                          tuple(AspectHint(a, tuple(hints[a].hints)) for a in self._pending()),
                          tuple(self.revealed), len(self.rows), self.converged, candidates, self.final,
                          self.accepted, self.setup.glosses, self.seed)

    # ---------------------------------------------------------------- moves
    def step(self, role: str, action: Any) -> StepResult:
        if role == CUSTOMER:
            return self._customer(action)
        if role == SELLER:
            return self._seller(action)
        raise CrsimError(f"{self.name} has no role '{role}'")

    def _customer(self, move: CustomerMove) -> StepResult:
        assert self.preference is not None
        pending = self._pending()
        stated = [a for a in dict.fromkeys(move.expressed) if a in pending]
        for aspect in stated:
            self.revealed[aspect] = self.preference.feature(aspect)
        if self.step_now is not None and not self._pending():
            self._search()
            self.steps.append(self.step_now.model_copy(update={"results_after": len(self.rows)}))
            self._plan()
        accept = bool(move.accept and self.final is not None)
        self.accepted = self.accepted or accept
        added = self.items.add([self.final]) if accept and self.final else []
        self.dialogue.append(CUSTOMER, move.text, added=added, metadata={
            **move.metadata, "expressed": stated, "question": move.question, "accept": accept})
        return StepResult()

    def _seller(self, move: SellerMove) -> StepResult:
        assert self.preference is not None
        pending = self._pending()
        asked = tuple(a for a in dict.fromkeys(move.asked) if a in pending)
        mentions, shown = [], []
        if move.recommend is not None:
            ids = {self.setup.catalog.items[int(i)].id for i in self.rows}
            if not self.converged or move.recommend not in ids:
                raise CrsimError(f"seller recommended '{move.recommend}', which is not among the converged results")
            self.final = move.recommend
            shown = [card.id for card in self.items.present([move.recommend])]
            self.moves_since_recommendation = 0
        elif self.final is not None:
            self.moves_since_recommendation += 1
        self.asked = asked
        turn = self.dialogue.append(SELLER, move.text, items_shown=shown, metadata={
            **move.metadata, "asked": list(asked), "recommend": move.recommend, "close": move.close})
        if move.recommend is not None:
            row = self.setup.catalog.item_index[move.recommend]
            fits = self.shop.satisfies(row, self.preference.wanted, self.preference.unwanted)
            mentions.append(ItemMention(role=SELLER, item_id=move.recommend, turn_index=turn.index,
                                        attitude="like" if fits else "dislike"))
        basket = self.items.item_set()
        self.records.append(TurnEvaluation(
            turn=len(self.records) + 1, source_turn=turn.index, n_candidates=len(self.rows),
            top=[self.setup.catalog.items[int(i)].id for i in self.rows[:TOP_LOGGED]], mentions=mentions,
            item_set=ItemSetState(items=list(basket), added=list(basket)) if self.accepted else None))
        if move.close and self.final is not None:
            return StepResult(TerminationReason.purchased if self.accepted else TerminationReason.found)
        if self.final is not None and self.moves_since_recommendation >= self.setup.close_within:
            raise CrsimError(f"seller did not close within {self.setup.close_within} moves of recommending")
        return StepResult()

    # ---------------------------------------------------------------- evaluator
    def evaluation(self) -> EpisodeEvaluation:
        if self.preference is None:
            return EpisodeEvaluation(turns=list(self.dialogue.transcript()))
        steps = [*self.steps, *([self.step_now] if self.step_now is not None else [])]
        profile = {
            "preference": self.preference.model_dump(mode="json"),
            "planner": self.setup.planner.kind,
            "plan": [s.model_dump(mode="json") for s in steps],
            "searches": self.searches,
            "converged": self.converged and converged(self.shop, self.rows, self.preference),
            "results": len(self.rows),
            "final_product": self.final,
        }
        return EpisodeEvaluation(targets=[self.preference.product_id], profile=profile,
                                 turns=list(self.dialogue.transcript()), evaluations=list(self.records))


def build_shopping(domain: str = "electronics", catalog: str | Path | None = None, n_products: int = 3000,
                   world_seed: int = 0, planner: str = "tree", preference_weights: dict[str, float] | None = None,
                   close_within: int = 3) -> ShoppingSetup:
    """Hydra factory: a synthetic domain world, or any catalog directory (`products` import)."""
    if catalog is not None:
        loaded = load_catalog_dir(catalog)
    else:
        loaded = generate_shopping_world(domain, n_products=n_products, seed=world_seed)
    return ShoppingSetup(loaded, planner=planner, preference_weights=preference_weights, close_within=close_within,
                         glosses=GLOSSES)
