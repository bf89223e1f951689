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

from typing import Any

import numpy as np

from environments.base import ItemCard
from environments.catalog import Catalog
from environments.episodes import pick_entry
from environments.errors import CrsimError
from environments.loading import load_catalog
from environments.multi_target.profile import DisclosedTarget, PepperProfile, SeenReview
from environments.multi_target.sampling import UserSlot, split_history
from environments.target_facts import target_knowledge
from environments.target_ranking import TargetRankingEnvironment, TargetRankingSetup

DEFAULT_OPENING = "Hi, how can I help you?"
DISCLOSURES = ("none", "selected")


class MultiTargetSetup(TargetRankingSetup):
    """Shared, read-only state for all episodes of a run: the user pool and the views."""

    name = "multi_target"

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


class MultiTargetEnvironment(TargetRankingEnvironment):
    name = "multi_target"
    setup: MultiTargetSetup

    def __init__(self, setup: MultiTargetSetup):
        super().__init__(setup)
        self._slot: UserSlot | None = None

    def reset(self, *, seed: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
        """Episode i simulates pool user i (modulo the pool), so a run covers distinct users;
        `options={"user": id}` picks one, and without an index the seed draws one."""
        self._slot = pick_entry(self.setup.pool, options, "user", lambda slot: slot.user_id, self._start(seed),
                                "in the user pool")
        return self._open(self.setup.profile_for(self._slot))

    def target_ids(self) -> list[str]:
        assert self._slot is not None
        return self._slot.target_ids

    def target_groups(self) -> dict[str, list[str]]:
        assert self._slot is not None
        return {"selected": list(self._slot.selected), "residual": self._slot.residual}
