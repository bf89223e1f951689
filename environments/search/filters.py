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


def _value_set(values: Sequence[str] | str, *, drop_empty: bool = False) -> frozenset[str]:
    values = [values] if isinstance(values, str) else list(values)
    return frozenset(_norm(value) for value in values if not drop_empty or _norm(value))


def _item_values(value: object) -> list[str]:
    if value is None:
        return []
    return [_norm(value)] if isinstance(value, str) else [_norm(part) for part in value]  # type: ignore[union-attr]


class AttributeFilter:
    """Items pass if, for every constrained aspect, their value is an allowed one, and
    none of their values is an excluded one.

    Comparison ignores case and surrounding spaces. For list-valued attributes one
    allowed value among the item's values suffices, and any excluded value among them
    rejects the item. An item without a required aspect fails; an item without an
    excluded aspect passes (it cannot hold the unwanted value). An aspect given an empty
    list of values constrains nothing (an empty preference is "no preference", not
    "exclude everything"); an empty excluded value excludes nothing.
    """

    def __init__(self, required: Mapping[str, Sequence[str] | str],
                 excluded: Mapping[str, Sequence[str] | str] | None = None):
        self.allowed = {aspect: vs for aspect, values in required.items() if (vs := _value_set(values))}
        self.excluded = {aspect: vs for aspect, values in (excluded or {}).items()
                         if (vs := _value_set(values, drop_empty=True))}
        self._masks: dict[str, np.ndarray] = {}

    def accepts(self, attributes: Mapping[str, object]) -> bool:
        """Whether one item's attributes satisfy every constraint."""
        for aspect, allowed in self.allowed.items():
            if not any(part in allowed for part in _item_values(attributes.get(aspect))):
                return False
        for aspect, excluded in self.excluded.items():
            if any(part in excluded for part in _item_values(attributes.get(aspect))):
                return False
        return True

    def mask(self, catalog: Catalog) -> np.ndarray:
        """Boolean array over `catalog.items` (catalog order); a fresh copy each call."""
        key = catalog.fingerprint
        cached = self._masks.get(key)
        if cached is None:
            if self:
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
        return bool(self.allowed or self.excluded)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AttributeFilter) and (self.allowed, self.excluded) == (other.allowed, other.excluded)

    def __hash__(self) -> int:
        return hash((frozenset(self.allowed.items()), frozenset(self.excluded.items())))

    def __repr__(self) -> str:
        shown = {aspect: sorted(values) for aspect, values in self.allowed.items()}
        if not self.excluded:
            return f"AttributeFilter({shown})"
        return f"AttributeFilter({shown}, excluded={ {a: sorted(v) for a, v in self.excluded.items()} })"
