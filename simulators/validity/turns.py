"""Seeker turns as the validity figures see them, read the same way from a run's episodes
and from an imported corpus's `dialogues.jsonl` (both are `Episode`s).

A turn the environment put in the transcript (`metadata["opening"]`: a grounded episode's
real opening, a playlist request) is not the simulated seeker's and is left out.
Only what the figures use is kept: the text, whether the recommender's turn before it asked
something, whether the turn reacted to a shown item (feedback or the accepting move), and,
per dialogue, the targets, what was shown before each seeker turn and the first ranks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from environments.catalog.store import DIALOGUES
from environments.errors import CrsimError
from environments.models import Episode, Role, TerminationReason

if TYPE_CHECKING:
    from environments.catalog import Catalog

SEEKER, RECOMMENDER = Role.seeker.value, Role.recommender.value


@dataclass(frozen=True, slots=True)
class SeekerTurn:
    text: str
    after_question: bool  # the recommender's turn just before asked something ("?")
    reacted: bool  # liked/disliked a shown item, or accepted one
    shown_before: frozenset[str]  # items the recommender had shown before this turn


@dataclass(frozen=True, slots=True)
class SeekerDialogue:
    id: str
    turns: tuple[SeekerTurn, ...]
    targets: tuple[str, ...]
    first_ranks: tuple[int, ...]  # the targets' ranks at the first evaluated turn (runs only)
    person: str | None = None  # who the seeker was, where the corpus says (ReDial's worker id): one person, many dialogues


# Profile keys that name the person a corpus's seeker was (imports keep the source's ids).
PERSON_KEYS = ("seeker_worker_id", "user_id", "worker_id")


def seeker_dialogues(episodes: Iterable[Episode]) -> list[SeekerDialogue]:
    """One `SeekerDialogue` per episode with at least one seeker turn that has text."""
    dialogues = []
    for episode in episodes:
        turns, asked, shown = [], False, set()
        seeker_indices = [i for i, t in enumerate(episode.turns) if t.role == SEEKER]
        last_seeker = seeker_indices[-1] if seeker_indices else -1
        for index, turn in enumerate(episode.turns):
            if turn.role == SEEKER:
                accepted = index == last_seeker and episode.termination == TerminationReason.accepted
                if turn.text.strip() and not turn.metadata.get("opening"):  # an opening is the environment's
                    turns.append(SeekerTurn(turn.text, asked, bool(turn.feedback) or accepted, frozenset(shown)))
                asked = False
            else:
                asked = "?" in turn.text
                shown.update(turn.items_shown)
        if turns:
            first = episode.evaluations[0].ranks if episode.evaluations else []
            person = next((str(episode.profile[k]) for k in PERSON_KEYS if episode.profile.get(k)), None)
            dialogues.append(SeekerDialogue(episode.id, tuple(turns), tuple(episode.targets),
                                            tuple(r.rank for r in first), person))
    return dialogues


def corpus_catalog(directory: Path | str) -> Catalog | None:
    """The items of an imported corpus, for the item-name figures; None for a corpus that
    names none in a structured way (MG-ShopDial): those figures then read no titles."""
    from environments.catalog import load_catalog_dir
    from environments.catalog.store import ITEMS

    items = Path(directory).expanduser() / ITEMS
    if items.is_file() and items.stat().st_size == 0:  # the importer wrote no item
        return None
    return load_catalog_dir(directory)


def corpus_episodes(directory: Path | str, split: str | None = None) -> list[Episode]:
    """The conversations of an imported corpus (`crsim data import redial|inspired|...`),
    only those of `split` (e.g. `test`, from `profile.split`) when given."""
    from simulators.engine.logs import read_episodes

    path = Path(directory).expanduser() / DIALOGUES
    if not path.is_file():
        raise CrsimError(f"{directory}: no {DIALOGUES} (import a dialogue corpus with `crsim data import`)")
    episodes, _problems = read_episodes(path)
    if split is not None:
        episodes = [e for e in episodes if e.profile.get("split") == split]
        if not episodes:
            raise CrsimError(f"{path}: no conversation of split '{split}'")
    return episodes
