"""Recommendation with hidden targets ranked every turn: what the single-target (SnipRec)
and multi-target (PEPPER) protocols share.

Both have the roles seeker then recommender, a fixed opening question, a recommender
that ranks every candidate of its catalog view each turn, an item interface showing the
top-K, and an evaluator that records where each hidden target landed. They differ only
in who the seeker is (one target's reviewer, or a user with a history) and so in the
target list and the profile: subclasses supply those and nothing else.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Protocol

import numpy as np

from environments.base import (
    DialogueInterface, Environment, EnvironmentSetup, ItemInterface, Recommendation, RecommenderObservation,
    SeekerObservation, SeekerReply, StepResult,
)
from environments.catalog import Catalog
from environments.models import EpisodeEvaluation, Item, Role, TerminationReason, Turn, TurnEvaluation
from environments.ranking import TieBrokenRanking, rank_targets, scores_from_action

TOP_LOGGED = 10
SEEKER_ENDINGS = {TerminationReason.accepted: "accept", TerminationReason.seeker_quit: "quit"}


class LoggableProfile(Protocol):
    def log_view(self) -> dict[str, Any]: ...


class TargetRankingSetup(EnvironmentSetup):
    """Shared, read-only state of a target-ranking run. Subclasses set, in `__init__`:
    `catalog`, `recommender_catalog` (the view the recommender ranks), `items_by_id`,
    `top_k` and `opening_question`."""

    roles = (Role.seeker.value, Role.recommender.value)
    recommender_catalog: Catalog
    items_by_id: dict[str, Item]
    top_k: int
    opening_question: str

    def scripted_action(self, role: str, turn: Turn, ending: TerminationReason | None) -> Any:
        if role == Role.seeker:
            decision = SEEKER_ENDINGS.get(ending) if ending else None
            return SeekerReply(text=turn.text, feedback=dict(turn.feedback), accept=decision == "accept",
                               quit=decision == "quit", metadata=dict(turn.metadata))
        if role == Role.recommender:
            return Recommendation(question=turn.text, ranked_ids=list(turn.items_shown), metadata=dict(turn.metadata))
        return super().scripted_action(role, turn, ending)


class TargetRankingEnvironment(Environment):
    """One episode: the subclass's `reset` picks the seeker (its profile and targets) with
    `self._rng`, then calls `_open()`; moves, observations and the evaluation are shared."""

    def __init__(self, setup: TargetRankingSetup):
        self.setup = setup
        self.candidates = setup.recommender_catalog.item_ids
        self.dialogue = DialogueInterface()
        self.items = ItemInterface(setup.items_by_id, setup.top_k)
        self.evaluations: list[TurnEvaluation] = []
        self.turn = 0
        self._rng: np.random.Generator | None = None
        self._profile: LoggableProfile | None = None
        self._seed = 0

    # ------------------------------------------------------ what subclasses give
    @abstractmethod
    def target_ids(self) -> list[str]:
        """The episode's hidden targets (valid once `reset` picked the seeker)."""

    def target_groups(self) -> dict[str, list[str]]:
        """Named subsets of the targets that metrics may score apart (none by default)."""
        return {}

    # ------------------------------------------------------------- protocol
    def _start(self, seed: int) -> np.random.Generator:
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        return self._rng

    def _open(self, profile: LoggableProfile) -> dict[str, Any]:
        self._profile = profile
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
        raise ValueError(f"{self.name} has no role '{role}' (roles: {', '.join(self.setup.roles)})")

    def step(self, role: str, action: Any) -> StepResult:
        if role == Role.seeker and isinstance(action, SeekerReply):
            return self._seeker_step(action)
        if role == Role.recommender and isinstance(action, Recommendation):
            return self._recommender_step(action)
        raise TypeError(f"{self.name}: a {role} cannot make a {type(action).__name__} move")

    def evaluation(self) -> EpisodeEvaluation:
        if self._profile is None:
            return EpisodeEvaluation(turns=list(self.dialogue.transcript()))
        return EpisodeEvaluation(targets=self.target_ids(), target_groups=self.target_groups(),
                                 profile=self._profile.log_view(), turns=list(self.dialogue.transcript()),
                                 evaluations=list(self.evaluations))

    # -------------------------------------------------------------- moves
    def _seeker_step(self, reply: SeekerReply) -> StepResult:
        for item_id, kind in reply.feedback.items():
            self.items.give_feedback(item_id, kind)
        self.dialogue.append(Role.seeker, reply.text, feedback=reply.feedback, metadata=reply.metadata)
        ending = TerminationReason.accepted if reply.accept else TerminationReason.seeker_quit if reply.quit else None
        return StepResult(ending)

    def _recommender_step(self, action: Recommendation) -> StepResult:
        assert self._rng is not None and self._profile is not None
        index = self.setup.recommender_catalog.item_index
        scores = scores_from_action(action, self.candidates, index)
        order = TieBrokenRanking(scores, self._rng)
        self.turn += 1
        ranks = rank_targets(scores, order, [(t, index[t]) for t in self.target_ids()])
        top = order.top(max(TOP_LOGGED, self.setup.top_k))
        top_ids = [self.candidates[i] for i in top]
        # a candidate the move did not rank (-inf: left out of `ranked_ids`, a NaN score) is
        # never put on screen: a recommender that names two films shows two, none shows none
        shown = self.items.present([self.candidates[i] for i in top if scores[i] > -np.inf])
        turn = self.dialogue.append(Role.recommender, action.question, items_shown=[c.id for c in shown],
                                    metadata=action.metadata)
        self.evaluations.append(TurnEvaluation(turn=self.turn, source_turn=turn.index,
                                               n_candidates=len(self.candidates), ranks=ranks, top=top_ids))
        return StepResult(None, {"turn": self.turn})
