"""Replies in context: the real recommender's turns held fixed, the simulated seeker's words
beside the person's words to the same turns.

`crsim validate RUN --against DIR` compares a run's seeker turns with a corpus's people, but
the two answered different recommenders: crsim's offline recommenders ask a question every
turn ("Which stars would suit you best?"), ReDial's people mostly talked with a person who did
not. Preference share, cooperativeness, small talk and the classifier's AUC then differ
partly because the contexts differ. Here each grounded conversation is replayed as
`simulators.validity.reactions` replays it: after the person's opening, each real recommender
turn (consecutive messages of it joined into one) goes to the simulated seeker, whose reply is
applied as in any episode, to the conversation's end (as the person went on after they had
chosen; so does the seeker after an accept). The people's side is the same conversation, the
person's own turns after each recommender turn. Both sides answered the same recommender words,
so every `crsim validate` figure compares like with like. The opening is the person's on both
sides and is left out of both.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from environments.models import Episode, Role, TerminationReason, Turn
from environments.single_target.grounded import GroundedSetup
from simulators.validity.reactions import FixedRecommenderReplay


def recommender_groups(episode: Episode, start: int) -> list[tuple[list[Turn], list[Turn]]]:
    """From `start`, (consecutive recommender turns, the seeker turns after them) in order."""
    groups: list[tuple[list[Turn], list[Turn]]] = []
    for turn in episode.turns[start:]:
        if turn.role == Role.seeker:
            if groups:
                groups[-1][1].append(turn)
            continue
        if not groups or groups[-1][1]:
            groups.append(([], []))
        groups[-1][0].append(turn)
    return groups


async def replay_replies(setup: GroundedSetup, episode: Episode, seeker: Any, seed: int = 0) -> tuple[Episode, Episode]:
    """(people, simulated) for one conversation (see the module docstring)."""
    replay = FixedRecommenderReplay(setup, episode, seeker, seed)
    first = replay.opening
    opening = [t.model_copy(update={"metadata": {**t.metadata, "opening": True}}) for t in episode.turns[:first + 1]]
    people: list[Turn] = list(opening)
    simulated: list[Turn] = list(opening)
    accepted = False
    for recommender, replies in recommender_groups(episode, first + 1):
        people += [*recommender, *replies]
        text = " ".join(t.text.strip() for t in recommender if t.text.strip())
        if not text:
            continue
        shown, action = await replay.say(text, list(dict.fromkeys(i for t in recommender for i in t.items_shown)))
        said = Turn(index=0, role=Role.recommender, text=text, items_shown=shown)
        feedback = dict(action.feedback) or ({i: "like" for i in shown} if action.accept else {})  # as reactions count it
        simulated += [said, Turn(index=0, role=Role.seeker, text=action.text, feedback=feedback)]
        accepted = bool(action.accept)
    ended = TerminationReason.accepted if accepted else TerminationReason.max_turns  # its last reply accepted
    return _episode(episode, people, episode.termination), _episode(episode, simulated, ended, prefix="replay-")


def _episode(source: Episode, turns: Sequence[Turn], ended: TerminationReason, prefix: str = "") -> Episode:
    numbered = [t.model_copy(update={"index": n}) for n, t in enumerate(turns)]
    return source.model_copy(update={"id": prefix + source.id, "turns": numbered, "termination": ended,
                                     "evaluations": []})


def replay_all(setup: GroundedSetup, episodes: Sequence[Episode], seeker: Any,
               seed: int = 0) -> tuple[list[Episode], list[Episode]]:
    """(people, simulated) over every conversation of `episodes` the setup grounds."""
    grounded = {c.conversation_id for c in setup.conversations}
    people: list[Episode] = []
    simulated: list[Episode] = []

    async def run() -> None:
        for index, episode in enumerate(e for e in episodes if e.id in grounded):
            real, replayed = await replay_replies(setup, episode, seeker, seed + index)
            people.append(real)
            simulated.append(replayed)

    asyncio.run(run())
    return people, simulated
