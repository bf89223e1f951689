"""Reactions: shown what the real seeker was shown, does the simulated seeker react as they did?

Each grounded conversation (`environments.single_target.grounded`) is replayed with the
real recommender's moves held fixed: after the person's opening, every real recommender
turn — its words and the items it named, nothing else on screen — goes to the simulated
seeker, whose reply is applied as in any episode; the real conversation's later seeker
turns are never shown. The simulated reaction to an item is the seeker's decision on it
(`decided`: like / dislike, whether or not it said so, as a questionnaire records the
person's on every film mentioned), an accept counting as a like of the items on screen,
else `none`. The replay goes on to the real conversation's end even after the simulated
seeker accepted or left, as the person went on (and recorded a view of every film). It is compared with the
real person's reaction to the same item (the corpus's feedback: ReDial's questionnaire,
INSPIRED's final trailer, DuRecDial's accepted/rejected), where there is one: accuracy and
Cohen's κ (agreement beyond chance, 0 for a seeker that never reacts), each with a
bootstrap CI over conversations. Two more κ: without each conversation's target (a
target-biased seeker knows its target is liked: the corpus's target *is* the first
suggested item the person liked, so that agreement is built in), and on whether the person
had seen the item (ReDial's questionnaire records it; the simulated seeker says it with its
decision).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from environments.models import Episode, Role, TerminationReason
from environments.single_target.grounded import GroundedSetup
from simulators.results.stats import cluster_bootstrap, percentile_interval
from simulators.validity.figures import ratio_ci

LABELS = ("like", "dislike", "none")
N_RESAMPLES = 1000
KAPPA_RESAMPLES = 300  # at most: each resample recomputes kappa with scikit-learn, which is slow


SEEN_LABELS = ("seen", "unseen", "none")


@dataclass(frozen=True, slots=True)
class Reaction:
    conversation: str
    item: str
    real: str
    simulated: str
    target: bool = False
    real_seen: str = "none"       # seen / unseen: the person's record; none: not recorded
    simulated_seen: str = "none"  # what the seeker said, none: nothing


def real_seen(episode: Episode) -> dict[str, str]:
    """Item -> seen / unseen, as the person recorded it (ReDial's questionnaire), where they did."""
    return {**{i: "unseen" for i in episode.profile.get("unseen", [])},
            **{i: "seen" for i in episode.profile.get("seen", [])}}


def decided(action: Any) -> tuple[dict[str, str], dict[str, str]]:
    """Item -> like / dislike and item -> seen / unseen, as the seeker decided them this move.

    A questionnaire records the person's view of every film mentioned, said or not; the
    seeker's counterpart is its decision on every item shown (`metadata["decisions"]` of a
    policy-driven seeker, PEPPER's reflected `reactions`), else what it said: its feedback
    and the `seen` of its reaction."""
    metadata = action.metadata
    if metadata.get("decisions"):
        views = metadata["decisions"].items()
        return ({i: "like" if v["like"] else "dislike" for i, v in views},
                {i: "seen" if v["seen"] else "unseen" for i, v in views})
    if metadata.get("reactions"):
        views = [r for r in metadata["reactions"] if r.get("reaction") in ("like", "dislike")]
        return ({r["item_id"]: r["reaction"] for r in views},
                {r["item_id"]: "seen" if r.get("seen") else "unseen" for r in views})
    return ({i: k for i, k in action.feedback.items() if k in ("like", "dislike")},
            {i: "seen" if seen else "unseen" for i, seen in (metadata.get("seen") or {}).items()})


def real_reactions(episode: Episode) -> dict[str, str]:
    """Item -> the person's like/dislike (the latest one), and like for an accepted target."""
    found: dict[str, str] = {}
    for turn in episode.turns:
        if turn.role == Role.seeker:
            found.update({i: k for i, k in turn.feedback.items() if k in ("like", "dislike")})
    if episode.termination == TerminationReason.accepted:
        found.update({t: "like" for t in episode.targets})
    return found


class FixedRecommenderReplay:
    """One grounded conversation with its real recommender held fixed: reset on the
    conversation (the person's opening said), then each `say` puts a recommender turn on the
    transcript with exactly its items the catalog has on screen, and applies the simulated
    seeker's answer. `validate reactions` and `validate replies` both replay this way."""

    def __init__(self, setup: GroundedSetup, episode: Episode, seeker: Any, seed: int = 0):
        self.env = setup.new_episode()
        self.seeker = seeker
        self.state = seeker.init_state(self.env.reset(seed=seed, options={"conversation": episode.id})[Role.seeker])
        self.known = setup.items_by_id
        self.opening = next(i for i, t in enumerate(episode.turns) if t.role == Role.seeker and t.text.strip())

    async def say(self, text: str, items: Sequence[str]) -> tuple[list[str], Any]:
        """(the items put on screen, the seeker's action) for one recommender turn."""
        shown = [i for i in items if i in self.known]
        self.env.items.present(shown)  # exactly the real recommender's items: the move is held fixed
        self.env.dialogue.append(Role.recommender, text, items_shown=shown)
        action, self.state = await self.seeker.respond(self.env.observe(Role.seeker), self.state)
        self.env.step(Role.seeker, action)
        return shown, action


async def replay_with_fixed_recommender(setup: GroundedSetup, episode: Episode, seeker: Any,
                                        seed: int = 0) -> tuple[dict[str, str], dict[str, str]]:
    """Item -> the simulated seeker's reaction, and item -> seen / unseen as it said, over the
    real recommender's turns of `episode`."""
    replay = FixedRecommenderReplay(setup, episode, seeker, seed)
    reactions: dict[str, str] = {}
    seen: dict[str, str] = {}
    for turn in episode.turns[replay.opening + 1:]:
        if turn.role != Role.recommender or not turn.text.strip():
            continue
        shown, action = await replay.say(turn.text, turn.items_shown)
        views, seen_now = decided(action)
        reactions.update(views)
        seen.update(seen_now)
        if action.accept:
            reactions.update({i: "like" for i in shown if i not in action.feedback})
    return reactions, seen


def compare_reactions(setup: GroundedSetup, episodes: Sequence[Episode], seeker: Any,
                      seed: int = 0) -> list[Reaction]:
    """Every (conversation, item) the person reacted to, with the simulated seeker's reaction."""
    grounded = {c.conversation_id for c in setup.conversations}
    pairs: list[Reaction] = []

    async def run() -> None:
        for index, episode in enumerate(e for e in episodes if e.id in grounded):
            real = real_reactions(episode)
            if not real:
                continue
            simulated, seen = await replay_with_fixed_recommender(setup, episode, seeker, seed + index)
            recorded = real_seen(episode)
            pairs.extend(Reaction(episode.id, item, label, simulated.get(item, "none"), item in episode.targets,
                                  recorded.get(item, "none"), seen.get(item, "none"))
                         for item, label in real.items())

    asyncio.run(run())
    return pairs


Interval = tuple[float, float, float]  # value, low, high


@dataclass(frozen=True, slots=True)
class ReactionFigures:
    accuracy: Interval
    kappa: Interval
    pairs: int
    conversations: int
    simulated_share: dict[str, float]  # like / dislike / none among the simulated reactions
    kappa_without_targets: Interval = (float("nan"),) * 3
    seen_kappa: Interval = (float("nan"),) * 3
    seen_pairs: int = 0


def reaction_figures(pairs: Sequence[Reaction], *, seed: int = 0, n_resamples: int = N_RESAMPLES) -> ReactionFigures:
    conversations = sorted({p.conversation for p in pairs})
    by = {c: [p for p in pairs if p.conversation == c] for c in conversations}
    value, low, high, _ = ratio_ci([sum(p.real == p.simulated for p in by[c]) for c in conversations],
                                   [len(by[c]) for c in conversations], seed=seed, n_resamples=n_resamples)
    resamples = min(n_resamples, KAPPA_RESAMPLES)
    like = kappa_interval(pairs, lambda p: (p.real, p.simulated), LABELS, seed=seed, n_resamples=resamples)
    others = kappa_interval([p for p in pairs if not p.target], lambda p: (p.real, p.simulated), LABELS, seed=seed,
                            n_resamples=resamples)
    recorded = [p for p in pairs if p.real_seen != "none"]
    seen = kappa_interval(recorded, lambda p: (p.real_seen, p.simulated_seen), SEEN_LABELS, seed=seed,
                          n_resamples=resamples)
    shares = {label: sum(p.simulated == label for p in pairs) / len(pairs) if pairs else float("nan")
              for label in LABELS}
    return ReactionFigures((value, low, high), like, len(pairs), len(conversations), shares, others, seen,
                           len(recorded))


def kappa_interval(pairs: Sequence[Reaction], labels_of: Callable[[Reaction], tuple[str, str]],
                   labels: Sequence[str], *, seed: int, n_resamples: int) -> Interval:
    """Cohen's κ of (real, simulated) labels over `pairs`, with a bootstrap CI over conversations."""
    from sklearn.metrics import cohen_kappa_score

    if not pairs:
        return (float("nan"),) * 3
    conversations = sorted({p.conversation for p in pairs})
    by = {c: [labels_of(p) for p in pairs if p.conversation == c] for c in conversations}

    def kappa(chosen: Sequence[str]) -> float:
        rows = [row for c in chosen for row in by[c]]
        real, simulated = [r for r, _ in rows], [s for _, s in rows]
        if len(set(real) | set(simulated)) < 2:
            return 0.0
        score = cohen_kappa_score(real, simulated, labels=list(labels))
        return float(score) if np.isfinite(score) else 0.0

    k = kappa(conversations)
    draws = cluster_bootstrap(lambda index: kappa([conversations[i] for i in index]), len(conversations),
                              n_resamples=n_resamples, seed=seed)
    return (k, *percentile_interval(draws, point=k))
