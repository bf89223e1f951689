"""Single-target recommendation (the SnipRec protocol).

Each episode hides one target item. The recommender opens with a fixed question, then
every turn returns a ranking of all candidates and a question; the item interface shows
its top-K; the seeker answers. The evaluator records where the target landed each turn.

`SingleTargetSetup` holds what all episodes share (catalog, target pool, the
recommender's catalog view with the seekers' own reviews withheld) and is what Hydra
builds; `new_episode()` gives a fresh, cheap `SingleTargetEnvironment` per episode, so
episodes can run concurrently.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from environments.base import (
    DialogueInterface, Environment, EnvironmentSetup, ItemInterface, Recommendation, RecommenderObservation,
    SeekerObservation, SeekerReply, StepResult,
)
from environments.catalog import Catalog
from environments.errors import CrsimError
from environments.holdout import TargetSlot, draw_target_pool
from environments.models import (
    AttributeValue, EpisodeEvaluation, Role, TerminationReason, Turn, TurnEvaluation,
)
from environments.ranking import TieBrokenRanking, rank_targets, scores_from_action
from environments.target_facts import TargetKnowledge, target_knowledge

DEFAULT_OPENING = "Hello, what category of {item_noun} are you looking for?"
TOP_LOGGED = 10
SEEKER_ENDINGS = {TerminationReason.accepted: "accept", TerminationReason.seeker_quit: "quit"}


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


class SingleTargetSetup(EnvironmentSetup):
    """Shared, read-only state for all episodes of a run."""

    name = "single_target"
    roles = (Role.seeker.value, Role.recommender.value)

    def __init__(self, catalog: Catalog, *, target_pool_size: int = 500, holdout_seed: int = 0,
                 top_k: int = 4, opening_question: str | None = None, max_positive_reviews: int = 10,
                 target_sampling: str = "by_reviews"):
        self.catalog = catalog
        self.pool: list[TargetSlot] = draw_target_pool(catalog, target_pool_size, holdout_seed)
        self.pool_weights = target_weights(catalog, self.pool, target_sampling)
        self.recommender_catalog = catalog.without(
            reviews=[slot.review_id for slot in self.pool],
            interactions=[(catalog.review_by_id[slot.review_id].user_id, slot.item_id) for slot in self.pool],
        )
        self.top_k = top_k
        self.opening_question = (opening_question or DEFAULT_OPENING).format(item_noun=catalog.item_noun)
        self.max_positive_reviews = max_positive_reviews
        self.items_by_id = {item.id: item for item in catalog.items}

    def new_episode(self) -> SingleTargetEnvironment:
        return SingleTargetEnvironment(self)

    def agent_catalog(self, role: str) -> Catalog | None:
        return self.recommender_catalog if role == Role.recommender else None

    def scripted_action(self, role: str, turn: Turn, ending: TerminationReason | None) -> Any:
        if role == Role.seeker:
            decision = SEEKER_ENDINGS.get(ending) if ending else None
            return SeekerReply(text=turn.text, feedback=dict(turn.feedback), accept=decision == "accept",
                               quit=decision == "quit", metadata=dict(turn.metadata))
        if role == Role.recommender:
            return Recommendation(question=turn.text, ranked_ids=list(turn.items_shown),
                                  metadata=dict(turn.metadata))
        return super().scripted_action(role, turn, ending)

    def profile_for(self, slot: TargetSlot) -> TargetBiasedProfile:
        item = self.catalog.item(slot.item_id)
        others = [r for r in self.catalog.reviews_by_item.get(item.id, []) if r.id != slot.review_id]
        positive = tuple(r.text for r in sorted(others, key=lambda r: (-r.rating, -r.helpful_votes, r.id))
                         if r.rating >= 4.0)[: self.max_positive_reviews]
        own = self.catalog.review_by_id[slot.review_id].text
        return TargetBiasedProfile(item.id, item.title, dict(item.attributes), item.description, positive, own,
                                   target_knowledge(self.catalog, item))


def target_weights(catalog: Catalog, pool: list[TargetSlot], sampling: str) -> np.ndarray:
    """How often each pool item is an episode's target.

    `by_reviews` (default): in proportion to its positive reviews, as if each episode's
    seeker were a random reviewer who liked a pool item - popular items come up more
    often, as they do in review datasets, which is what lets popularity beat random.
    `uniform`: every pool item alike.
    """
    if sampling == "uniform":
        return np.full(len(pool), 1.0 / len(pool))
    if sampling != "by_reviews":
        raise ValueError(f"target_sampling={sampling!r}; expected by_reviews or uniform")
    counts = np.array([sum(r.rating >= 4.0 for r in catalog.reviews_by_item.get(slot.item_id, []))
                       for slot in pool], dtype=float)
    return counts / counts.sum()


def build_single_target(catalog: str | None = None, world: dict[str, Any] | None = None,
                        **options: Any) -> SingleTargetSetup:
    """Hydra factory: load `catalog` (a directory) or the synthetic `world` it describes."""
    return SingleTargetSetup(load_catalog(catalog, world), **options)


def load_catalog(catalog: str | None, world: dict[str, Any] | None) -> Catalog:
    """The catalog directory if given, else the synthetic world it describes (cached)."""
    if catalog:
        return load_catalog_dir(catalog)
    from environments.worlds import load_world

    return load_world(**(world or {}))


def load_catalog_dir(catalog: str | Path) -> Catalog:
    """`Catalog.load` for an environment's `catalog:` key, which must name a directory."""
    path = Path(catalog).expanduser()
    if not path.is_dir():
        problem = "is a file, not a directory" if path.exists() else "no such directory"
        raise CrsimError(f"environment.catalog={catalog}: {problem}; give a catalog directory (one holding "
                         "items.jsonl; `crsim data import` makes one) or environment.catalog=null for the "
                         "synthetic world")
    return Catalog.load(path)


class SingleTargetEnvironment(Environment):
    name = "single_target"

    def __init__(self, setup: SingleTargetSetup):
        self.setup = setup
        view = setup.recommender_catalog
        self.candidates = view.item_ids
        self.dialogue = DialogueInterface()
        self.items = ItemInterface(setup.items_by_id, setup.top_k)
        self.evaluations: list[TurnEvaluation] = []
        self.turn = 0
        self._rng: np.random.Generator | None = None
        self._slot: TargetSlot | None = None
        self._profile: TargetBiasedProfile | None = None
        self._seed = 0

    # ------------------------------------------------------------- protocol
    def reset(self, *, seed: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        pool = self.setup.pool
        if options and "target" in options:
            matches = [slot for slot in pool if slot.item_id == options["target"]]
            if not matches:
                raise ValueError(f"item '{options['target']}' is not in the target pool")
            self._slot = matches[0]
        else:
            self._slot = pool[int(self._rng.choice(len(pool), p=self.setup.pool_weights))]
        self._profile = self.setup.profile_for(self._slot)
        self.dialogue.append(Role.recommender, self.setup.opening_question, metadata={"opening": True})
        return {role: self.observe(role) for role in self.setup.roles}

    def observe(self, role: str) -> Any:
        if role == Role.seeker:
            return SeekerObservation(self.turn, self.dialogue.visible_to(Role.seeker), self.items.shown(),
                                     self._profile, self.setup.catalog.item_noun, self._seed)
        if role == Role.recommender:
            return RecommenderObservation(self.turn, self.dialogue.visible_to(Role.recommender), self.items.shown(),
                                          self.candidates, self.setup.catalog.item_noun, self._seed)
        raise ValueError(f"single_target has no role '{role}' (roles: {', '.join(self.setup.roles)})")

    def step(self, role: str, action: Any) -> StepResult:
        if role == Role.seeker and isinstance(action, SeekerReply):
            return self._seeker_step(action)
        if role == Role.recommender and isinstance(action, Recommendation):
            return self._recommender_step(action)
        raise TypeError(f"single_target: a {role} cannot make a {type(action).__name__} move")

    def evaluation(self) -> EpisodeEvaluation:
        if self._slot is None or self._profile is None:
            return EpisodeEvaluation(turns=list(self.dialogue.transcript()))
        return EpisodeEvaluation(targets=[self._slot.item_id], profile=self._profile.log_view(),
                                 turns=list(self.dialogue.transcript()), evaluations=list(self.evaluations))

    # -------------------------------------------------------------- moves
    def _seeker_step(self, reply: SeekerReply) -> StepResult:
        for item_id, kind in reply.feedback.items():
            self.items.give_feedback(item_id, kind)
        self.dialogue.append(Role.seeker, reply.text, feedback=reply.feedback, metadata=reply.metadata)
        ending = TerminationReason.accepted if reply.accept else TerminationReason.seeker_quit if reply.quit else None
        return StepResult(ending)

    def _recommender_step(self, action: Recommendation) -> StepResult:
        assert self._rng is not None and self._slot is not None
        view = self.setup.recommender_catalog
        scores = scores_from_action(action, self.candidates, view.item_index)
        order = TieBrokenRanking(scores, self._rng)
        self.turn += 1
        ranks = rank_targets(scores, order, [(self._slot.item_id, view.item_index[self._slot.item_id])])
        top_ids = [self.candidates[i] for i in order.top(max(TOP_LOGGED, self.setup.top_k))]
        shown = self.items.present(top_ids)
        turn = self.dialogue.append(Role.recommender, action.question, items_shown=[c.id for c in shown],
                                    metadata=action.metadata)
        self.evaluations.append(TurnEvaluation(turn=self.turn, source_turn=turn.index, n_candidates=len(self.candidates),
                                               ranks=ranks, top=top_ids))
        return StepResult(None, {"turn": self.turn})
