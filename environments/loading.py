"""The catalog an environment config names: a directory (`catalog:`) or a synthetic world.

Every environment family's Hydra factory takes `catalog` and/or `world` keys; this is the
one place that turns them into a `Catalog`, with the error a user sees when the directory
is not there (`environments.catalog.loading.load_catalog_dir`). It sits above both the
catalog and the worlds, so that the catalog package never imports a world.
"""

from __future__ import annotations

from typing import Any

from environments.catalog.loading import load_catalog_dir
from environments.catalog.store import Catalog


def load_catalog(catalog: str | None, world: dict[str, Any] | None) -> Catalog:
    """The catalog directory if given, else the synthetic world it describes (cached)."""
    if catalog:
        return load_catalog_dir(catalog)
    from environments.worlds import load_world

    return load_world(**(world or {}))
