"""Small shopping catalogs the tests write themselves."""

from __future__ import annotations

import pytest

from environments.catalog import Catalog
from environments.models import CatalogManifest, Item


def mugs_catalog() -> Catalog:
    """12 mugs: colour splits them evenly, material splits them further; `m11` lacks a material
    and `m10` has an empty size; `bad` has only one feature (not shoppable); two shirts."""
    colors, materials = ["red", "blue", "green"], ["glass", "steel"]
    items = []
    for i in range(12):
        attributes = {"color": colors[i % 3], "material": materials[(i // 3) % 2], "size": ["small", "large"][i % 2]}
        if i == 11:
            del attributes["material"]
        if i == 10:
            attributes["size"] = ""
        items.append(Item(id=f"m{i:02d}", title=f"Mug {i}", category="mugs", attributes=attributes))
    items.append(Item(id="bad", title="Plain mug", category="mugs", attributes={"color": "red", "size": []}))
    items.append(Item(id="s1", title="Shirt", category="shirts", attributes={"color": "red", "fit": "slim"}))
    items.append(Item(id="s2", title="Shirt 2", category="shirts", attributes={"color": "blue", "fit": "loose"}))
    return Catalog(CatalogManifest(name="mugs", domain="home", item_noun="products"), items)


@pytest.fixture
def mugs() -> Catalog:
    return mugs_catalog()
