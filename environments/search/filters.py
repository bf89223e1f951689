"""Hard attribute constraints as boolean masks over a catalog's items.

Indexes take a mask rather than a filter so that any constraint (attributes, items
already shown, a candidate pool) combines with `&` and costs nothing per item at
query time. An agent re-applies the same constraints every turn, so each filter keeps
the masks it computed, keyed by catalog fingerprint.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from environments.catalog.store import Catalog

_MAX_CACHED_MASKS = 8


def _norm(value: object) -> str:
    return str(value).strip().casefold()


class AttributeFilter:
    """Items pass if, for every constrained aspect, their value is an allowed one.

    Comparison ignores case and surrounding spaces. For list-valued attributes one
    allowed value among the item's values suffices. An item without the aspect fails.
    An aspect given an empty list of allowed values constrains nothing (an empty
    preference is "no preference", not "exclude everything").
    """

    def __init__(self, required: Mapping[str, Sequence[str] | str]):
        allowed: dict[str, frozenset[str]] = {}
        for aspect, values in required.items():
            values = [values] if isinstance(values, str) else list(values)
            if values:
                allowed[aspect] = frozenset(_norm(value) for value in values)
        self.allowed = allowed
        self._masks: dict[str, np.ndarray] = {}

    def accepts(self, attributes: Mapping[str, object]) -> bool:
        """Whether one item's attributes satisfy every constraint."""
        for aspect, allowed in self.allowed.items():
            value = attributes.get(aspect)
            if value is None:
                return False
            values = [value] if isinstance(value, str) else value
            if not any(_norm(part) in allowed for part in values):  # type: ignore[union-attr]
                return False
        return True

    def mask(self, catalog: Catalog) -> np.ndarray:
        """Boolean array over `catalog.items` (catalog order); a fresh copy each call."""
        key = catalog.fingerprint
        cached = self._masks.get(key)
        if cached is None:
            if self.allowed:
                cached = np.fromiter((self.accepts(item.attributes) for item in catalog.items),
                                     dtype=bool, count=len(catalog.items))
            else:
                cached = np.ones(len(catalog.items), dtype=bool)
            if len(self._masks) >= _MAX_CACHED_MASKS:
                self._masks.pop(next(iter(self._masks)))
            self._masks[key] = cached
        return cached.copy()

    def __bool__(self) -> bool:
        """False when the filter constrains nothing (callers can skip masking)."""
        return bool(self.allowed)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AttributeFilter) and self.allowed == other.allowed

    def __hash__(self) -> int:
        return hash(frozenset(self.allowed.items()))

    def __repr__(self) -> str:
        shown = {aspect: sorted(values) for aspect, values in self.allowed.items()}
        return f"AttributeFilter({shown})"
