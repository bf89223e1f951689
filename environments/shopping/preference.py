"""A customer's preference, sampled from one product as TRACER does (§3.1).

Pick a product p; give each of its aspects an interest at random: *wanted* (the value is
p's), *unwanted* (p's value is replaced by another value the aspect takes in the catalog,
so the customer rules out something p does not have) or *optional* (no value: the
customer does not care). An aspect that has no other value anywhere cannot be unwanted
and becomes optional. Aspects p lacks are not in the preference; when a seller asks
about one, the customer treats it as optional.
"""

from __future__ import annotations

from enum import Enum

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from environments.shopping.products import ShoppingCatalog


class Interest(str, Enum):
    wanted = "wanted"
    unwanted = "unwanted"
    optional = "optional"


class Feature(BaseModel):
    """One aspect with the customer's interest; `value` is empty for optional aspects."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    aspect: str = Field(description="Aspect key, e.g. 'color'.")
    value: str = Field(default="", description="Wanted or unwanted value; empty when optional.")
    interest: Interest = Field(description="wanted / unwanted / optional.")


class Preference(BaseModel):
    """[PC, (A1, V1, I1), ..., (Am, Vm, Im)]: the customer's category and features."""

    model_config = ConfigDict(extra="forbid")

    category: str = Field(description="Product category the customer asks for.")
    product_id: str = Field(description="The product the preference was sampled from.")
    features: list[Feature] = Field(default_factory=list, description="One entry per aspect of the product.")

    def feature(self, aspect: str) -> Feature:
        """The customer's stance on `aspect` (optional when the product lacks it)."""
        return next((f for f in self.features if f.aspect == aspect), Feature(aspect=aspect, interest=Interest.optional))

    def of(self, interest: Interest) -> dict[str, str]:
        return {f.aspect: f.value for f in self.features if f.interest is interest}

    @property
    def wanted(self) -> dict[str, str]:
        return self.of(Interest.wanted)

    @property
    def unwanted(self) -> dict[str, str]:
        return self.of(Interest.unwanted)


DEFAULT_WEIGHTS = {"wanted": 0.4, "unwanted": 0.2, "optional": 0.4}


def sample_preference(shop: ShoppingCatalog, row: int, rng: np.random.Generator,
                      weights: dict[str, float] | None = None) -> Preference:
    """The preference of a customer shopping for (something like) catalog row `row`."""
    weights = {**DEFAULT_WEIGHTS, **(weights or {})}
    kinds = [Interest(k) for k in ("wanted", "unwanted", "optional")]
    p = np.array([weights[k.value] for k in kinds], dtype=float)
    p = p / p.sum()
    category = shop.categories[row]
    features = []
    for aspect, values in sorted(shop.features[row].items()):
        interest = kinds[int(rng.choice(3, p=p))]
        value = values[int(rng.integers(len(values)))]
        if interest is Interest.unwanted:
            others = [v for v in shop.category_values(category, aspect) if v not in values]
            if others:
                value = others[int(rng.integers(len(others)))]
            else:
                interest = Interest.optional
        features.append(Feature(aspect=aspect, value="" if interest is Interest.optional else value,
                                interest=interest))
    return Preference(category=category, product_id=shop.catalog.items[row].id, features=features)
