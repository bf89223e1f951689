"""Products as the shopping protocol sees them: features, categories, and the rule-based search.

A catalog row may come from a synthetic world or any `products` import, so features are
read defensively: an empty string, an empty list or a missing aspect all mean "the
product does not have this aspect" (the paper: missing aspects are treated as empty).
Aspects people cannot be asked about (ids, dates, discontinued flags) are dropped.
`ShoppingCatalog` holds what every episode shares: the products that can be sampled
(two features or more, price and customer review not counted), the values each aspect
takes within each category (where unwanted values and hints come from) and the search:
products of the category that hold every revealed wanted value and no unwanted one,
via `AttributeFilter` over a per-category sub-catalog.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property

import numpy as np

from environments.catalog import Catalog
from environments.models import Item
from environments.search.filters import AttributeFilter

NON_INTUITIVE = frozenset({"asin", "date_first_available", "is_discontinued_by_manufacturer", "item_model_number",
                           "upc", "product_id", "id"})
UNCOUNTED = frozenset({"price", "customer_review"})
DEFAULT_CATEGORY = "products"

Features = dict[str, tuple[str, ...]]


def _key(aspect: str) -> str:
    return aspect.strip().lower().replace(" ", "_")


def features(item: Item) -> Features:
    """Aspect -> non-empty values (lower-cased, stripped); empty or unaskable aspects left out."""
    out: Features = {}
    for aspect, value in item.attributes.items():
        key = _key(aspect)
        if key in NON_INTUITIVE:
            continue
        values = [value] if isinstance(value, str) else list(value)
        cleaned = tuple(sorted({str(v).strip().lower() for v in values if str(v).strip()}))
        if cleaned:
            out[key] = cleaned
    return out


def count_features(item: Item) -> int:
    return sum(1 for aspect in features(item) if aspect not in UNCOUNTED)


def category_of(item: Item) -> str:
    return item.category.strip().lower() or DEFAULT_CATEGORY


class ShoppingCatalog:
    """The catalog prepared for shopping episodes (shared, read-only)."""

    def __init__(self, catalog: Catalog, min_features: int = 2):
        self.catalog = catalog
        self.features: list[Features] = [features(item) for item in catalog.items]
        self.categories = [category_of(item) for item in catalog.items]
        self.pool = [i for i, item in enumerate(catalog.items) if count_features(item) >= min_features]
        by_category: dict[str, list[int]] = {}
        for i in self.pool:  # thin products are dropped from the search too, as from sampling
            by_category.setdefault(self.categories[i], []).append(i)
        self.by_category = {c: np.array(rows, dtype=np.int64) for c, rows in by_category.items()}

    @cached_property
    def _sub_catalogs(self) -> dict[str, Catalog]:
        """One catalog per category whose items carry the normalised features, for `AttributeFilter`."""
        out = {}
        for category, rows in self.by_category.items():
            items = [Item(id=self.catalog.items[i].id, title="", attributes={a: list(v) for a, v in
                                                                                self.features[i].items()})
                     for i in rows]
            out[category] = Catalog(self.catalog.manifest.model_copy(update={"name": f"{category}"}), items)
        return out

    def category_values(self, category: str, aspect: str) -> list[str]:
        """Every value `aspect` takes among the category's products (sorted), else in the catalog."""
        rows = self.by_category.get(category, np.array([], dtype=np.int64))
        found = sorted({v for i in rows for v in self.features[i].get(aspect, ())})
        if found:
            return found
        return sorted({v for f in self.features for v in f.get(aspect, ())})

    def search(self, category: str, wanted: Mapping[str, str], unwanted: Mapping[str, str]) -> np.ndarray:
        """Catalog rows of `category` holding every wanted value and none of the unwanted ones."""
        rows = self.by_category.get(category)
        if rows is None:
            return np.array([], dtype=np.int64)
        flt = AttributeFilter({a: [v] for a, v in wanted.items()}, excluded={a: [v] for a, v in unwanted.items()})
        if not flt:
            return rows.copy()
        return rows[flt.mask(self._sub_catalogs[category])]

    def satisfies(self, row: int, wanted: Mapping[str, str], unwanted: Mapping[str, str]) -> bool:
        """Whether one product holds every wanted value and no unwanted one."""
        have = self.features[row]
        return all(v in have.get(a, ()) for a, v in wanted.items()) and \
            not any(v in have.get(a, ()) for a, v in unwanted.items())
