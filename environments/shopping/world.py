"""Generate a synthetic shopping catalog for one domain (electronics, home & kitchen, beauty).

Each product gets a category (weighted), a brand, a price bucket, a review bucket and
most of its category's own aspects; each aspect is missing with some probability, as
in real catalogs where sellers leave fields empty. Values are drawn with weights that
fall along each value list (Zipf-like), so some values are common and some rare. As the
paper does with its catalog, products with fewer than two features (price and customer
review not counted) are dropped. Titles name the brand, one or two distinctive values
and the category noun, the way marketplace titles do. Everything is seeded; generating
3,000 products takes well under a second, so worlds are not cached on disk.
"""

from __future__ import annotations

import numpy as np

from environments.catalog import Catalog
from environments.errors import CrsimError
from environments.models import CatalogManifest, Item
from environments.shopping.domains import BRAND, DOMAINS, PRICE, REVIEW, CategorySpec, ShoppingDomain
from environments.shopping.products import count_features

TITLE_ASPECTS = ("color", "form_factor", "material", "capacity", "connectivity", "finish_type", "size", "scent",
                 "brew_type", "number_of_pieces", "wattage", "scent_family", "volume")


def _weights(n: int, skew: float) -> np.ndarray:
    w = 1.0 / np.arange(1, n + 1) ** skew
    return w / w.sum()


def _product(index: int, spec: CategorySpec, rng: np.random.Generator, missing_rate: float,
             skew: float) -> Item:
    attributes: dict[str, str] = {}
    for aspect, values in spec.all_aspects().items():
        required = aspect in (BRAND, PRICE)
        if not required and rng.random() < missing_rate:
            continue
        attributes[aspect] = values[int(rng.choice(len(values), p=_weights(len(values), skew)))]
    words = [attributes[BRAND]]
    shown = [a for a in TITLE_ASPECTS if a in attributes]
    for aspect in shown[: 1 + int(rng.random() < 0.5)]:
        words.append(attributes[aspect])
    title = " ".join(words + [spec.noun]).replace("  ", " ")
    title = " ".join(w if w.isupper() else w[:1].upper() + w[1:] for w in title.split(" "))
    return Item(id=f"{spec.name[:3].replace(' ', '')}-{index:05d}", title=title, category=spec.name,
                attributes=attributes)


def generate_shopping_world(domain: str | ShoppingDomain, n_products: int = 3000, seed: int = 0,
                            missing_rate: float = 0.2, skew: float = 0.8) -> Catalog:
    """A catalog of about `n_products` products (fewer: those with < 2 features are dropped)."""
    spec = DOMAINS.get(domain) if isinstance(domain, str) else domain
    if spec is None:
        raise CrsimError(f"unknown shopping domain '{domain}' (known: {', '.join(DOMAINS)})")
    if n_products < 1 or not 0 <= missing_rate < 1:
        raise CrsimError(f"shopping world: n_products must be >= 1 (got {n_products}) and missing_rate in [0, 1) "
                         f"(got {missing_rate})")
    rng = np.random.default_rng([seed, len(spec.name), *map(ord, spec.name)])
    weights = np.array([c.weight for c in spec.categories], dtype=float)
    items = []
    for index in range(n_products):
        category = spec.categories[int(rng.choice(len(weights), p=weights / weights.sum()))]
        item = _product(index, category, rng, missing_rate, skew)
        if count_features(item) >= 2:
            items.append(item)
    manifest = CatalogManifest(name=f"shopping-{spec.name}", domain=spec.name, item_noun="products",
                               source="crsim.shopping", counts={"items": len(items)},
                               extra={"n_products": n_products, "seed": seed, "missing_rate": missing_rate,
                                      "skew": skew, "title": spec.title, "dropped": n_products - len(items),
                                      "review": REVIEW})
    return Catalog(manifest, items)
