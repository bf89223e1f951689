"""Playlist curation (CPCD's task as a simulation): the environment's state is a set of tracks.

One episode per goal set (a music world's theme, or an imported conversation's goal
playlist). The seeker's opening request is already in the transcript when the episode
starts; then every round the curator moves first — it shows items Y_t, adds some of them
to the playlist Z_t and says something (`Curation`) — and the seeker answers: it likes or
dislikes shown items (`SeekerReply.feedback`), may take items out of the playlist
(`remove`) or put shown ones in (`add`), and says it is satisfied (`accept`, which ends the
episode with `set_complete`) or not. `max_turns` rounds end it otherwise.

The set lives in the core's `ItemInterface` (add/remove; a removed item can come back);
each round's `TurnEvaluation` holds the set after the round (`ItemSetState`, scored by
`set_precision/recall/f1`) and the rank of every goal item not yet in the set within Y_t
(scored by `hits@K`; goal items not shown rank last). The seeker is given a `ThemeBrief`,
never the goal's ids; only the evaluator sees the goal. What the brief holds is the
setup's `disclose`: `theme` (target-biased: what the goal items are like) or `request`
(target-free: only what the seeker asked for, and a world listener's general taste).

Agents' mistakes do not crash an episode: an id outside the catalog, an add of an item that
was not shown, feedback on an item not on screen, a removal of an item not in the set are
refused, and each refusal is written into the move's logged metadata (`refused`: id and
reason) so the log says what was ignored and why.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from environments.base import (
    DialogueInterface, Environment, EnvironmentSetup, ItemCard, ItemInterface, Recommendation, SeekerReply,
    StepResult,
)
from environments.catalog import Catalog
from environments.episodes import pick_entry
from environments.errors import CrsimError
from environments.loading import load_catalog
from environments.models import (
    EpisodeEvaluation, ItemSetState, Role, TargetRank, TerminationReason, Turn, TurnEvaluation,
)
from environments.playlist.goals import PlaylistGoal, ThemeBrief, listener_taste, load_goals, request_brief
from environments.playlist.views import Curation, CuratorObservation, PlaylistSeekerObservation
from environments.ranking import scores_from_action, tie_broken_order

DISCLOSURES = ("theme", "request")
SEEKER_ENDINGS = {TerminationReason.set_complete: "accept", TerminationReason.seeker_quit: "quit"}


class PlaylistSetup(EnvironmentSetup):
    """Shared, read-only state of a run: the catalog and the goal sets, one per episode."""

    name = "playlist"
    roles = (Role.recommender.value, Role.seeker.value)

    def __init__(self, catalog: Catalog, goals: list[PlaylistGoal] | None = None, *, top_k: int = 10,
                 ranking_adds: int = 3, max_goals: int | None = None, disclose: str = "theme"):
        if top_k < 1 or ranking_adds < 0:
            raise CrsimError(f"environment.top_k={top_k} must be >= 1 and ranking_adds={ranking_adds} >= 0")
        if disclose not in DISCLOSURES:
            raise CrsimError(f"environment.disclose={disclose!r}; expected one of {', '.join(DISCLOSURES)}")
        self.disclose = disclose
        self.catalog = catalog
        self.goals = (goals if goals is not None else load_goals(catalog))[:max_goals]
        if not self.goals:
            raise CrsimError(f"catalog '{catalog.manifest.name}': no playlist goals to run episodes on")
        self.top_k = top_k
        self.ranking_adds = ranking_adds
        self.items_by_id = {item.id: item for item in catalog.items}
        self._users = _world_users(catalog) if disclose == "request" else []

    def brief(self, goal: PlaylistGoal) -> ThemeBrief:
        """What the seeker is told about `goal` (see `disclose`)."""
        return goal.brief if self.disclose == "theme" else request_brief(goal, listener_taste(self._users, goal))

    def new_episode(self) -> PlaylistEnvironment:
        return PlaylistEnvironment(self)

    def agent_catalog(self, role: str) -> Catalog | None:
        """Both roles read the catalog: the goal sets are truth files no view contains."""
        return self.catalog if role in self.roles else None

    def scripted_action(self, role: str, turn: Turn, ending: TerminationReason | None) -> Any:
        if role == Role.seeker:
            decision = SEEKER_ENDINGS.get(ending) if ending else None
            return SeekerReply(text=turn.text, feedback=dict(turn.feedback), add=list(turn.added),
                               remove=list(turn.removed), accept=decision == "accept", quit=decision == "quit",
                               metadata=dict(turn.metadata))
        if role == Role.recommender:
            return Curation(response=turn.text, shown=list(turn.items_shown), add=list(turn.added),
                            metadata=dict(turn.metadata))
        return super().scripted_action(role, turn, ending)


def _world_users(catalog: Catalog) -> list[Any]:
    """A world's listeners (`truth/users.jsonl`); none for an imported catalog."""
    from environments.catalog.jsonl import read_jsonl
    from environments.worlds.truth import UserTruth

    path = catalog.path / "truth" / "users.jsonl" if catalog.path is not None else None
    return read_jsonl(path, UserTruth) if path is not None and path.is_file() else []


def build_playlist(catalog: str | None = None, world: dict[str, Any] | None = None, **options: Any) -> PlaylistSetup:
    """Hydra factory: a catalog directory with dialogues, or the synthetic (music) `world`."""
    return PlaylistSetup(load_catalog(catalog, world), **options)


FEEDBACK_KINDS = ("like", "dislike")


class PlaylistEnvironment(Environment):
    name = "playlist"

    def __init__(self, setup: PlaylistSetup):
        self.setup = setup
        self.candidates = setup.catalog.item_ids
        self.dialogue = DialogueInterface()
        self.items = ItemInterface(setup.items_by_id, setup.top_k)
        self.evaluations: list[TurnEvaluation] = []
        self.turn = 0
        self._goal: PlaylistGoal | None = None
        self._rng: np.random.Generator | None = None
        self._seed = 0

    # ------------------------------------------------------------- protocol
    def reset(self, *, seed: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
        """Episode i curates goal i (modulo the goals); `options={"goal": id}` picks one."""
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        self._goal = pick_entry(self.setup.goals, options, "goal", lambda goal: goal.goal_id, self._rng,
                                "among this run's playlist goals")
        self.dialogue.append(Role.seeker, self._goal.request, metadata={"opening": True})
        return {role: self.observe(role) for role in self.setup.roles}

    def observe(self, role: str) -> Any:
        noun = self.setup.catalog.item_noun
        playlist = tuple(ItemCard.of(self.setup.items_by_id[i]) for i in self.items.item_set())
        if role == Role.recommender:
            return CuratorObservation(self.turn, self.dialogue.visible_to(role), self.items.shown(), self.candidates,
                                      noun, self._seed, playlist)
        if role == Role.seeker:
            brief = self.setup.brief(self._goal) if self._goal is not None else None
            return PlaylistSeekerObservation(self.turn, self.dialogue.visible_to(role), self.items.shown(), brief,
                                             noun, self._seed, playlist)
        raise ValueError(f"playlist has no role '{role}' (roles: {', '.join(self.setup.roles)})")

    def step(self, role: str, action: Any) -> StepResult:
        if role == Role.recommender and isinstance(action, Recommendation):
            action = self._as_curation(action)
        if role == Role.recommender and isinstance(action, Curation):
            return self._curate(action)
        if role == Role.seeker and isinstance(action, SeekerReply):
            return self._react(action)
        raise TypeError(f"playlist: a {role} cannot make a {type(action).__name__} move")

    def evaluation(self) -> EpisodeEvaluation:
        if self._goal is None:
            return EpisodeEvaluation(turns=list(self.dialogue.transcript()))
        return EpisodeEvaluation(targets=list(self._goal.items), profile=self._goal.log_view(),
                                 turns=list(self.dialogue.transcript()), evaluations=list(self.evaluations))

    # -------------------------------------------------------------- moves
    def _curate(self, action: Curation) -> StepResult:
        assert self._goal is not None
        refused: list[dict[str, str]] = []
        shown_ids = self._known(action.shown, "shown", refused)
        if len(shown_ids) > self.setup.top_k:
            refused += [{"item_id": i, "reason": f"not shown: beyond the {self.setup.top_k} items a screen holds"}
                        for i in shown_ids[self.setup.top_k:]]
        shown = [card.id for card in self.items.present(shown_ids)]
        adds = []
        for item_id in self._known(action.add, "added", refused):
            if item_id in shown:
                adds.append(item_id)
            else:
                refused.append({"item_id": item_id, "reason": "cannot add an item that is not shown this turn"})
        before = set(self.items.item_set())
        added = self.items.add(adds)
        self.turn += 1
        metadata = {**action.metadata, **({"refused": refused} if refused else {})}
        turn = self.dialogue.append(Role.recommender, action.response, items_shown=shown, added=added,
                                    metadata=metadata)
        self.evaluations.append(TurnEvaluation(
            turn=self.turn, source_turn=turn.index, n_candidates=len(self.candidates),
            ranks=self._goal_ranks(shown, before), top=shown,
            item_set=ItemSetState(items=list(self.items.item_set()), added=added)))
        return StepResult(None, {"turn": self.turn, "refused": refused})

    def _react(self, reply: SeekerReply) -> StepResult:
        refused: list[dict[str, str]] = []
        on_screen = {card.id for card in self.items.shown()}
        feedback = {}
        for item_id, kind in reply.feedback.items():
            if item_id not in self.setup.items_by_id:
                refused.append({"item_id": item_id, "reason": "feedback on an item outside the catalog"})
            elif item_id not in on_screen:
                refused.append({"item_id": item_id, "reason": "feedback on an item that is not shown"})
            elif kind not in FEEDBACK_KINDS:
                refused.append({"item_id": item_id, "reason": f"feedback '{kind}' is not one of {FEEDBACK_KINDS}"})
            else:
                feedback[item_id] = kind
                self.items.give_feedback(item_id, kind)
        in_set = set(self.items.item_set())
        removes = []
        for item_id in self._known(reply.remove, "removed", refused):
            if item_id in in_set:
                removes.append(item_id)
            else:
                refused.append({"item_id": item_id, "reason": "cannot remove an item that is not in the set"})
        removed = self.items.remove(removes)
        added = self.items.add(self._known(reply.add, "added", refused))
        metadata = {**reply.metadata, **({"refused": refused} if refused else {})}
        self.dialogue.append(Role.seeker, reply.text, feedback=feedback, added=added, removed=removed,
                             metadata=metadata)
        if self.evaluations:
            last = self.evaluations[-1]
            state = last.item_set or ItemSetState()
            self.evaluations[-1] = last.model_copy(update={"item_set": ItemSetState(
                items=list(self.items.item_set()), added=[*state.added, *added], removed=removed)})
        ending = (TerminationReason.set_complete if reply.accept
                  else TerminationReason.seeker_quit if reply.quit else None)
        return StepResult(ending, {"refused": refused})

    # ------------------------------------------------------------- helpers
    def _known(self, item_ids: Any, what: str, refused: list[dict[str, str]]) -> list[str]:
        """The ids that name catalog items (each once, in order); the others are refused."""
        known = []
        for item_id in item_ids:
            if not isinstance(item_id, str) or item_id not in self.setup.items_by_id:
                refused.append({"item_id": str(item_id), "reason": f"{what} item is not in the catalog"})
            elif item_id not in known:
                known.append(item_id)
        return known

    def _goal_ranks(self, shown: list[str], in_set_before: set[str]) -> list[TargetRank]:
        """Rank within Y_t of every goal item not yet in the set; unshown ones rank last."""
        assert self._goal is not None
        n, position = len(self.candidates), {item_id: r for r, item_id in enumerate(shown, 1)}
        ranks = []
        for item_id in self._goal.items:
            if item_id in in_set_before:
                continue
            if item_id in position:
                ranks.append(TargetRank(item_id=item_id, rank=position[item_id], n_better=position[item_id] - 1,
                                        n_tied=1))
            else:
                ranks.append(TargetRank(item_id=item_id, rank=n, n_better=len(shown), n_tied=n - len(shown)))
        return ranks

    def _as_curation(self, action: Recommendation) -> Curation:
        """A ranking recommender as a curator: show its top K and add the first `ranking_adds`."""
        assert self._rng is not None
        if action.ranked_ids is not None:  # unknown ids are refused by `_curate`, not raised here
            shown = list(action.ranked_ids)[: self.setup.top_k]
        else:
            scores = scores_from_action(action, self.candidates, self.setup.catalog.item_index)
            shown = [self.candidates[i] for i in tie_broken_order(scores, self._rng)[: self.setup.top_k]]
        known = [i for i in shown if i in self.setup.items_by_id]
        return Curation(response=action.question, shown=shown, add=known[: self.setup.ranking_adds],
                        metadata=action.metadata)
