"""What the playlist protocol's roles see and do: the curator's move (`Curation`) and both
roles' observations with the playlist as it stands."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from environments.base import ItemCard, RecommenderObservation, SeekerObservation


@dataclass(frozen=True, slots=True)
class Curation:
    """A curator's move in a set protocol (playlist curation): the items it shows this turn
    (Y_t, best first), which of those to put into the set, and what it says.

    Unlike a `Recommendation` it ranks nothing: a curator's retrieval is the list it shows,
    and the set is built by its `add` and the seeker's `remove` (see `ItemInterface`)."""

    response: str
    shown: Sequence[str] = ()
    add: Sequence[str] = ()
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CuratorObservation(RecommenderObservation):
    """A recommender's observation plus the playlist as it stands (cards, in the order added)."""

    item_set: tuple[ItemCard, ...] = ()


@dataclass(frozen=True, slots=True)
class PlaylistSeekerObservation(SeekerObservation):
    """A seeker's observation (its `profile` is a `ThemeBrief`) plus the playlist as it stands."""

    item_set: tuple[ItemCard, ...] = ()
