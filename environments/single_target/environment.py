"""Single-target recommendation (the SnipRec protocol).

Each episode hides one target item. The recommender opens with a fixed question, then
every turn returns a ranking of all candidates and a question; the item interface shows
its top-K; the seeker answers. The evaluator records where the target landed each turn.

`SingleTargetSetup` holds what all episodes share (catalog, target pool, the
recommender's catalog view with the seekers' own reviews withheld) and is what Hydra
builds; `new_episode()` gives a fresh, cheap `SingleTargetEnvironment` per episode, so
episodes can run concurrently. Moves, observations and the per-turn ranks are
`TargetRankingEnvironment`'s (shared with the multi-target protocol); this module only
says who the seeker is and which item is its target.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from environments.catalog import Catalog
from environments.loading import load_catalog
from environments.models import Item, Review, Role
from environments.search.aspects import mine_aspects
from environments.search.vocabulary import CatalogVocabulary, listed_kind
from environments.single_target.holdout import TargetSlot, draw_target_pool
from environments.single_target.profile import TargetBiasedProfile
from environments.target_facts import is_world, target_knowledge
from environments.target_ranking import TargetRankingEnvironment, TargetRankingSetup

DEFAULT_OPENING = "Hello, what category of {item_noun} are you looking for?"
MAX_LIKED = 3  # other items a seeker may name as ones it liked


class SingleTargetSetup(TargetRankingSetup):
    """Shared, read-only state for all episodes of a run."""

    name = "single_target"

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
        # On a real catalog the seeker is worded from what many items share (environments.catalog.vocabulary).
        self.vocabulary = None if is_world(catalog) or not catalog.reviews else CatalogVocabulary.of(catalog)
        self.shared_words = self.vocabulary.shared_words() if self.vocabulary is not None else None
        self.shared_pairs = self.vocabulary.shared_pairs() if self.vocabulary is not None else None
        self.theme_words = self.vocabulary.theme_words() if self.vocabulary is not None else frozenset()
        # The aspects reviewers write about and each item's values (cached on disk): what the
        # seeker can answer a recommender's question about a mined aspect with.
        self.aspects = mine_aspects(catalog) if self.vocabulary is not None else None
        self._kinds: dict[str, str | None] = {}

    def new_episode(self) -> SingleTargetEnvironment:
        return SingleTargetEnvironment(self)

    def agent_catalog(self, role: str) -> Catalog | None:
        return self.recommender_catalog if role == Role.recommender else None

    def profile_for(self, slot: TargetSlot) -> TargetBiasedProfile:
        item = self.catalog.item(slot.item_id)
        others = [r for r in self.catalog.reviews_by_item.get(item.id, []) if r.id != slot.review_id]
        positive = tuple(r.text for r in sorted(others, key=lambda r: (-r.rating, -r.helpful_votes, r.id))
                         if r.rating >= 4.0)[: self.max_positive_reviews]
        own_review = self.catalog.review_by_id[slot.review_id]
        profile = TargetBiasedProfile(item.id, item.title, dict(item.attributes), item.description, positive,
                                      own_review.text, target_knowledge(self.catalog, item),
                                      liked=self._liked_by(own_review))
        if self.vocabulary is None:
            return profile
        critical = tuple(r.text for r in sorted(others, key=lambda r: (r.rating, r.id)) if r.rating <= 2.0)
        kind = self._kind(item)
        # A listing's category label may be no count noun ("Outerwear", "Swim"); a kind the
        # reviews name is one they count ("bridge": rarely made plural, still "a bridge").
        countable = kind is None or listed_kind(item) is None or self.vocabulary.countable(kind)
        return replace(profile, kind=kind, kind_countable=countable,
                       shared_words=self.shared_words, shared_pairs=self.shared_pairs,
                       theme_words=self.theme_words,
                       critical_reviews=critical[: self.max_positive_reviews], described=self._described(item))

    def _described(self, item: Item) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The target's values on the mined aspects whose values its reviews name."""
        if self.aspects is None:
            return ()
        found = ((name, self.aspects.values_of(name, item.id)) for name in self.aspects.names)
        return tuple((name, values) for name, values in found if values)

    def _kind(self, item: Item) -> str | None:
        """The target's kind, found once per item (a popular target's reviews are read once, not
        per episode): its metadata's, else the mined kind it is one of ("strings", not the
        "fingers" its reviews name most), else the noun its reviews name (`CatalogVocabulary.kind`)."""
        if item.id not in self._kinds and self.vocabulary is not None:
            kind = listed_kind(item) or (self.aspects.kind_of(item.id) if self.aspects is not None else None)
            if kind is None:
                kind = self.vocabulary.kind(item, [r.text for r in self.catalog.reviews_by_item.get(item.id, [])])
            self._kinds[item.id] = kind
        return self._kinds.get(item.id)

    def _liked_by(self, own: Review) -> tuple[str, ...]:
        """Titles of other items the target's reviewer rated 4 or more, best first."""
        theirs = [r for r in self.catalog.reviews_by_user.get(own.user_id, [])
                  if r.item_id != own.item_id and r.rating >= 4.0]
        theirs.sort(key=lambda r: (-r.rating, r.id))
        return tuple(self.items_by_id[r.item_id].title for r in theirs[:MAX_LIKED] if r.item_id in self.items_by_id)


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


class SingleTargetEnvironment(TargetRankingEnvironment):
    name = "single_target"
    setup: SingleTargetSetup

    def __init__(self, setup: SingleTargetSetup):
        super().__init__(setup)
        self._slot: TargetSlot | None = None

    def reset(self, *, seed: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
        """The target is drawn from the pool by `pool_weights`; `options={"target": id}` names one."""
        rng = self._start(seed)
        pool = self.setup.pool
        if options and "target" in options:
            matches = [slot for slot in pool if slot.item_id == options["target"]]
            if not matches:
                raise ValueError(f"item '{options['target']}' is not in the target pool")
            self._slot = matches[0]
        else:
            self._slot = pool[int(rng.choice(len(pool), p=self.setup.pool_weights))]
        return self._open(self.setup.profile_for(self._slot))

    def target_ids(self) -> list[str]:
        assert self._slot is not None
        return [self._slot.item_id]
