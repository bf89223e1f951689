"""The catalog an environment config names: a directory (`catalog:`) or a synthetic world.

Every environment family's Hydra factory takes `catalog` and/or `world` keys; this is the
one place that turns them into a `Catalog`, with the error a user sees when the directory
is not there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from environments.catalog.store import Catalog
from environments.errors import CrsimError


def load_catalog(catalog: str | None, world: dict[str, Any] | None) -> Catalog:
    """The catalog directory if given, else the synthetic world it describes (cached)."""
    if catalog:
        return load_catalog_dir(catalog)
    from environments.worlds import load_world

    return load_world(**(world or {}))


def load_catalog_dir(catalog: str | Path) -> Catalog:
    """`Catalog.load` for an environment's `catalog:` key, which must name a directory."""
    path = Path(catalog).expanduser()
    if not path.is_dir():
        problem = "is a file, not a directory" if path.exists() else "no such directory"
        raise CrsimError(f"environment.catalog={catalog}: {problem}; give a catalog directory (one holding "
                         "items.jsonl; `crsim data import` makes one) or environment.catalog=null for the "
                         "synthetic world")
    return Catalog.load(path)
