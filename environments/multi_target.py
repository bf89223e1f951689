"""Multi-target preference elicitation (the PEPPER protocol).

One episode per real (or synthetic) user with enough history: the user's reviewed items
are split into *seen* items, which the simulated seeker knows through its own reviews and
ratings, and held-out *targets*, which only the evaluator knows. Each turn the
recommender ranks the whole catalog, the item interface shows its top-K cards (title,
description, attributes) and the seeker reacts; every target's rank is recorded, so
Recall@(t, K) and Preference Coverage can be computed at any K afterwards.

The targets are also split into a seeded *selected* half and the *residual* rest
(`EpisodeEvaluation.target_groups`), whatever the seeker: a target-biased seeker is
initialised from the selected half (`disclose_targets: selected`, attribute cards without
titles, as in PEPPER's A.3), a target-free one from nothing but its seen items, and both
are scored on the same halves, which is what shows the target-biased seeker's bias.

The recommender's catalog view (and the seeker's, which it only uses as a stand-in for
a language model's knowledge of how people talk about items) holds none of any pool
user's targets: not their reviews, not the users' seen entries, not their interactions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from environments.target_facts import TargetKnowledge, target_knowledge
from environments.base import (
    DialogueInterface, Environment, EnvironmentSetup, ItemCard, ItemInterface, Recommendation,
    RecommenderObservation, SeekerObservation, SeekerReply, StepResult,
)
from environments.catalog import Catalog
from environments.errors import CrsimError
from environments.models import (
    AttributeValue, EpisodeEvaluation, Role, SeenItem, TerminationReason, Turn, TurnEvaluation,
)
from environments.ranking import TieBrokenRanking, rank_targets, scores_from_action
from environments.single_target import load_catalog

DEFAULT_OPENING = "Hi, how can I help you?"
TOP_LOGGED = 10
TARGET_RULES = ("random", "top_rated")
DISCLOSURES = ("none", "selected")
SEEKER_ENDINGS = {TerminationReason.accepted: "accept", TerminationReason.seeker_quit: "quit"}


@dataclass(frozen=True, slots=True)
class SeenReview:
    """One item the user has seen: its card, the user's rating and the user's own review."""

    item: ItemCard
    rating: float | None
    review: str


@dataclass(frozen=True, slots=True)
class DisclosedTarget:
    """A target as a target-biased seeker is told about it: attributes and plot, no title.

    `knowledge` is what the single-target seeker knows of its target (on a world, the true
    values in the seeker's own words and the signature details a plot summary would give
    away; on an imported catalog, the shown attributes)."""

    attributes: dict[str, AttributeValue]
    description: str
    knowledge: TargetKnowledge = TargetKnowledge(())


@dataclass(frozen=True, slots=True)
class PepperProfile:
    """What a PEPPER seeker is given. `disclosed` is empty unless the environment discloses
    the selected targets (target-biased variant); targets are never in `seen`."""

    user_id: str
    seen: tuple[SeenReview, ...]
    disclosed: tuple[DisclosedTarget, ...] = ()

    def seen_ids(self) -> frozenset[str]:
        return frozenset(s.item.id for s in self.seen)

    def log_view(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "seen": [s.item.id for s in self.seen],
                "n_disclosed": len(self.disclosed)}


@dataclass(frozen=True, slots=True)
class UserSlot:
    """One simulated user: what it has seen, its targets, and the selected half of them."""

    user_id: str
    seen: tuple[SeenItem, ...]
    targets: tuple[SeenItem, ...]
    selected: tuple[str, ...]

    @property
    def target_ids(self) -> list[str]:
        return [t.item_id for t in self.targets]

    @property
    def residual(self) -> list[str]:
        return [t for t in self.target_ids if t not in self.selected]


def split_history(history: list[SeenItem], share: float, rule: str, rng: np.random.Generator,
                  selected_share: float = 0.5) -> tuple[list[SeenItem], list[SeenItem], list[str]]:
    """(seen, targets, selected target ids) of one user's history.

    `random` holds out a seeded `share` of the items (at least two, so both halves are
    non-empty; at least one stays seen); `top_rated` holds out the highest-rated ones,
    ties broken by the same generator. PEPPER gives no rule; random is the default
    because world ratings are integers and top-rated targets would be mostly 5-star ties.
    """
    if rule not in TARGET_RULES:
        raise CrsimError(f"environment.target_rule={rule!r}; expected one of {', '.join(TARGET_RULES)}")
    n = len(history)
    n_targets = min(n - 1, max(2, int(round(share * n))))
    order = rng.permutation(n)
    if rule == "top_rated":
        order = order[np.argsort([-(history[i].rating or 0.0) for i in order], kind="stable")]
    held = set(int(i) for i in order[:n_targets])
    targets = [history[i] for i in sorted(held)]
    seen = [history[i] for i in range(n) if i not in held]
    n_selected = min(len(targets) - 1, max(1, int(round(selected_share * len(targets)))))
    picked = sorted(int(i) for i in rng.permutation(len(targets))[:n_selected])
    return seen, targets, [targets[i].item_id for i in picked]


class MultiTargetSetup(EnvironmentSetup):
    """Shared, read-only state for all episodes of a run: the user pool and the views."""

    name = "multi_target"
    roles = (Role.seeker.value, Role.recommender.value)

    def __init__(self, catalog: Catalog, *, min_interactions: int = 10, target_share: float = 0.2,
                 target_rule: str = "random", user_pool_size: int | None = 500, holdout_seed: int = 0,
                 top_k: int = 4, opening_question: str | None = None, disclose_targets: str = "none",
                 selected_share: float = 0.5):
        if disclose_targets not in DISCLOSURES:
            raise CrsimError(f"environment.disclose_targets={disclose_targets!r}; expected one of "
                             f"{', '.join(DISCLOSURES)}")
        if not 0.0 < target_share < 1.0:
            raise CrsimError(f"environment.target_share={target_share}; expected a share between 0 and 1")
        self.catalog = catalog
        self.top_k = top_k
        self.disclose_targets = disclose_targets
        self.opening_question = opening_question or DEFAULT_OPENING
        self.items_by_id = {item.id: item for item in catalog.items}
        self.pool = self._draw_pool(min_interactions, target_share, target_rule, user_pool_size, holdout_seed,
                                    selected_share)
        held = [(slot.user_id, t) for slot in self.pool for t in slot.targets]
        self.recommender_catalog = catalog.without(
            reviews=[t.review_id for _, t in held if t.review_id],
            interactions=[(user, t.item_id) for user, t in held])

    def _draw_pool(self, min_interactions: int, share: float, rule: str, size: int | None, seed: int,
                   selected_share: float) -> list[UserSlot]:
        rng = np.random.default_rng(seed)
        eligible = [u for u in self.catalog.users
                    if len({s.item_id for s in u.seen if s.item_id in self.items_by_id}) >= max(3, min_interactions)]
        if not eligible:
            raise CrsimError(f"catalog '{self.catalog.manifest.name}' has no user with >= {min_interactions} "
                             "interactions: no PEPPER episode can be built")
        order = rng.permutation(len(eligible))[: size if size else len(eligible)]
        pool = []
        for position in order:
            user = eligible[int(position)]
            history = list({s.item_id: s for s in user.seen if s.item_id in self.items_by_id}.values())
            seen, targets, selected = split_history(history, share, rule, rng, selected_share)
            pool.append(UserSlot(user.user_id, tuple(seen), tuple(targets), tuple(selected)))
        return pool

    def new_episode(self) -> MultiTargetEnvironment:
        return MultiTargetEnvironment(self)

    def agent_catalog(self, role: str) -> Catalog | None:
        return self.recommender_catalog if role in self.roles else None

    def scripted_action(self, role: str, turn: Turn, ending: TerminationReason | None) -> Any:
        if role == Role.seeker:
            decision = SEEKER_ENDINGS.get(ending) if ending else None
            return SeekerReply(text=turn.text, feedback=dict(turn.feedback), accept=decision == "accept",
                               quit=decision == "quit", metadata=dict(turn.metadata))
        if role == Role.recommender:
            return Recommendation(question=turn.text, ranked_ids=list(turn.items_shown), metadata=dict(turn.metadata))
        return super().scripted_action(role, turn, ending)

    def profile_for(self, slot: UserSlot) -> PepperProfile:
        reviews = self.catalog.review_by_id
        seen = tuple(SeenReview(ItemCard.of(self.items_by_id[s.item_id]), s.rating,
                                reviews[s.review_id].text if s.review_id in reviews else "")
                     for s in slot.seen)
        disclosed: tuple[DisclosedTarget, ...] = ()
        if self.disclose_targets == "selected":
            disclosed = tuple(DisclosedTarget(dict(self.items_by_id[t].attributes), self.items_by_id[t].description,
                                              target_knowledge(self.catalog, self.items_by_id[t]))
                              for t in slot.selected)
        return PepperProfile(slot.user_id, seen, disclosed)


def build_multi_target(catalog: str | None = None, world: dict[str, Any] | None = None,
                       **options: Any) -> MultiTargetSetup:
    """Hydra factory: load `catalog` (a directory) or the synthetic `world` it describes."""
    return MultiTargetSetup(load_catalog(catalog, world), **options)


class MultiTargetEnvironment(Environment):
    name = "multi_target"

    def __init__(self, setup: MultiTargetSetup):
        self.setup = setup
        self.candidates = setup.recommender_catalog.item_ids
        self.dialogue = DialogueInterface()
        self.items = ItemInterface(setup.items_by_id, setup.top_k)
        self.evaluations: list[TurnEvaluation] = []
        self.turn = 0
        self._rng: np.random.Generator | None = None
        self._slot: UserSlot | None = None
        self._profile: PepperProfile | None = None
        self._seed = 0

    def reset(self, *, seed: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
        """Episode i simulates pool user i (modulo the pool), so a run covers distinct users;
        `options={"user": id}` picks one, and without an index the seed draws one."""
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        pool, options = self.setup.pool, options or {}
        if "user" in options:
            matches = [slot for slot in pool if slot.user_id == options["user"]]
            if not matches:
                raise ValueError(f"user '{options['user']}' is not in the user pool")
            self._slot = matches[0]
        elif options.get("episode_index") is not None:
            self._slot = pool[int(options["episode_index"]) % len(pool)]
        else:
            self._slot = pool[int(self._rng.integers(len(pool)))]
        self._profile = self.setup.profile_for(self._slot)
        self.dialogue.append(Role.recommender, self.setup.opening_question, metadata={"opening": True})
        return {role: self.observe(role) for role in self.setup.roles}

    def observe(self, role: str) -> Any:
        noun = self.setup.catalog.item_noun
        if role == Role.seeker:
            return SeekerObservation(self.turn, self.dialogue.visible_to(Role.seeker), self.items.shown(),
                                     self._profile, noun, self._seed)
        if role == Role.recommender:
            return RecommenderObservation(self.turn, self.dialogue.visible_to(Role.recommender), self.items.shown(),
                                          self.candidates, noun, self._seed)
        raise ValueError(f"multi_target has no role '{role}' (roles: {', '.join(self.setup.roles)})")

    def step(self, role: str, action: Any) -> StepResult:
        if role == Role.seeker and isinstance(action, SeekerReply):
            for item_id, kind in action.feedback.items():
                self.items.give_feedback(item_id, kind)
            self.dialogue.append(Role.seeker, action.text, feedback=action.feedback, metadata=action.metadata)
            ending = (TerminationReason.accepted if action.accept
                      else TerminationReason.seeker_quit if action.quit else None)
            return StepResult(ending)
        if role == Role.recommender and isinstance(action, Recommendation):
            return self._recommend(action)
        raise TypeError(f"multi_target: a {role} cannot make a {type(action).__name__} move")

    def evaluation(self) -> EpisodeEvaluation:
        if self._slot is None or self._profile is None:
            return EpisodeEvaluation(turns=list(self.dialogue.transcript()))
        slot = self._slot
        return EpisodeEvaluation(
            targets=slot.target_ids, target_groups={"selected": list(slot.selected), "residual": slot.residual},
            profile=self._profile.log_view(), turns=list(self.dialogue.transcript()),
            evaluations=list(self.evaluations))

    def _recommend(self, action: Recommendation) -> StepResult:
        assert self._rng is not None and self._slot is not None
        index = self.setup.recommender_catalog.item_index
        scores = scores_from_action(action, self.candidates, index)
        order = TieBrokenRanking(scores, self._rng)
        self.turn += 1
        ranks = rank_targets(scores, order, [(t, index[t]) for t in self._slot.target_ids])
        top_ids = [self.candidates[i] for i in order.top(max(TOP_LOGGED, self.setup.top_k))]
        shown = self.items.present(top_ids)
        turn = self.dialogue.append(Role.recommender, action.question, items_shown=[c.id for c in shown],
                                    metadata=action.metadata)
        self.evaluations.append(TurnEvaluation(turn=self.turn, source_turn=turn.index,
                                               n_candidates=len(self.candidates), ranks=ranks, top=top_ids))
        return StepResult(None, {"turn": self.turn})
