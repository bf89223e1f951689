"""What the shopping roles see and do: observations and actions of the TRACER protocol.

The seller sees the transcript, the aspects the plan wants discussed with their hints
(never the customer's values), how many products match so far and, once the results
have converged, the candidates to recommend from. The customer sees the transcript, its
own preference, the aspects the seller's last move asked about and the recommended
product. Plain frozen dataclasses: built every turn, never saved (turns are).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from environments.base import ItemCard
from environments.models import Turn
from environments.shopping.preference import Preference


@dataclass(frozen=True, slots=True)
class AspectHint:
    """A planned aspect as the seller sees it: its name and up to three typical values."""

    aspect: str
    hints: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SellerView:
    turn: int
    dialogue: tuple[Turn, ...]
    category: str
    pending: tuple[AspectHint, ...]        # planned, not yet answered; may be reordered
    discussed: tuple[str, ...]             # aspects the customer has answered
    results: int                           # products matching what the customer revealed
    converged: bool                        # every result fits: time to recommend
    candidates: tuple[ItemCard, ...]       # the converged results (capped), to recommend from
    recommended: str | None                # product recommended so far, if any
    accepted: bool                         # the customer accepted the recommendation
    glosses: Mapping[str, str]             # what aspects mean (seller's product knowledge)
    episode_seed: int


@dataclass(frozen=True, slots=True)
class CustomerView:
    turn: int
    dialogue: tuple[Turn, ...]
    preference: Preference
    asked: tuple[str, ...]                 # aspects the seller's last move asked about
    recommended: ItemCard | None           # the product on screen, once recommended
    episode_seed: int


@dataclass(frozen=True, slots=True)
class SellerMove:
    """A seller utterance: the aspects it asks about, a product it recommends, or the goodbye."""

    text: str
    asked: tuple[str, ...] = ()
    recommend: str | None = None
    close: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CustomerMove:
    """A customer utterance; `expressed` names the aspects whose stance it states (the
    customer's state tracker), `question` an aspect it asked the meaning of."""

    text: str
    expressed: tuple[str, ...] = ()
    question: str | None = None
    accept: bool = False
    metadata: dict[str, Any] = field(default_factory=dict)
