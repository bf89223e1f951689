"""Reactions: shown what the real seeker was shown, does the simulated seeker react as they did?

Each grounded conversation (`environments.single_target.grounded`) is replayed with the
real recommender's moves held fixed: after the person's opening, every real recommender
turn — its words and the items it named, nothing else on screen — goes to the simulated
seeker, whose reply is applied as in any episode; the real conversation's later seeker
turns are never shown. The simulated reaction to an item is its feedback (like / dislike),
an accept counting as a like of the items on screen, else `none`. It is compared with the
real person's reaction to the same item (the corpus's feedback: ReDial's questionnaire,
INSPIRED's final trailer, DuRecDial's accepted/rejected), where there is one: accuracy and
Cohen's κ (agreement beyond chance, 0 for a seeker that never reacts), each with a
bootstrap CI over conversations.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
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


@dataclass(frozen=True, slots=True)
class Reaction:
    conversation: str
    item: str
    real: str
    simulated: str


def real_reactions(episode: Episode) -> dict[str, str]:
    """Item -> the person's like/dislike (the latest one), and like for an accepted target."""
    found: dict[str, str] = {}
    for turn in episode.turns:
        if turn.role == Role.seeker:
            found.update({i: k for i, k in turn.feedback.items() if k in ("like", "dislike")})
    if episode.termination == TerminationReason.accepted:
        found.update({t: "like" for t in episode.targets})
    return found


async def replay_with_fixed_recommender(setup: GroundedSetup, episode: Episode, seeker: Any,
                                        seed: int = 0) -> dict[str, str]:
    """Item -> the simulated seeker's reaction, over the real recommender's turns of `episode`."""
    env = setup.new_episode()
    observation = env.reset(seed=seed, options={"conversation": episode.id})[Role.seeker]
    state = seeker.init_state(observation)
    first = next(i for i, t in enumerate(episode.turns) if t.role == Role.seeker and t.text.strip())
    reactions: dict[str, str] = {}
    known = setup.items_by_id
    for turn in episode.turns[first + 1:]:
        if turn.role != Role.recommender or not turn.text.strip():
            continue
        shown = [i for i in turn.items_shown if i in known]
        env.items.present(shown)  # exactly the real recommender's items: the move is held fixed
        env.dialogue.append(Role.recommender, turn.text, items_shown=shown)
        action, state = await seeker.respond(env.observe(Role.seeker), state)
        env.step(Role.seeker, action)
        reactions.update({i: k for i, k in action.feedback.items() if k in ("like", "dislike")})
        if action.accept:
            reactions.update({i: "like" for i in shown if i not in action.feedback})
        if action.accept or action.quit:
            break
    return reactions


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
            simulated = await replay_with_fixed_recommender(setup, episode, seeker, seed + index)
            pairs.extend(Reaction(episode.id, item, label, simulated.get(item, "none")) for item, label in real.items())

    asyncio.run(run())
    return pairs


@dataclass(frozen=True, slots=True)
class ReactionFigures:
    accuracy: tuple[float, float, float]
    kappa: tuple[float, float, float]
    pairs: int
    conversations: int
    simulated_share: dict[str, float]  # like / dislike / none among the simulated reactions


def reaction_figures(pairs: Sequence[Reaction], *, seed: int = 0, n_resamples: int = N_RESAMPLES) -> ReactionFigures:
    from sklearn.metrics import cohen_kappa_score

    conversations = sorted({p.conversation for p in pairs})
    by = {c: [p for p in pairs if p.conversation == c] for c in conversations}
    value, low, high, _ = ratio_ci([sum(p.real == p.simulated for p in by[c]) for c in conversations],
                                   [len(by[c]) for c in conversations], seed=seed, n_resamples=n_resamples)

    def kappa(chosen: Sequence[str]) -> float:
        rows = [p for c in chosen for p in by[c]]
        real, simulated = [p.real for p in rows], [p.simulated for p in rows]
        if len(set(real) | set(simulated)) < 2:
            return 0.0
        score = cohen_kappa_score(real, simulated, labels=list(LABELS))
        return float(score) if np.isfinite(score) else 0.0

    k = kappa(conversations)
    draws = cluster_bootstrap(lambda index: kappa([conversations[i] for i in index]), len(conversations),
                              n_resamples=min(n_resamples, KAPPA_RESAMPLES), seed=seed)
    k_low, k_high = percentile_interval(draws, point=k)
    shares = {label: sum(p.simulated == label for p in pairs) / len(pairs) if pairs else float("nan")
              for label in LABELS}
    return ReactionFigures((value, low, high), (k, k_low, k_high), len(pairs), len(conversations), shares)
