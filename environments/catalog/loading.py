"""A catalog directory an environment config names (`catalog:`), with the error a user sees
when it is not there. Choosing between that directory and a synthetic world
(`load_catalog`) moved up to `environments.loading`, above both."""

from __future__ import annotations

from pathlib import Path

from environments.catalog.store import Catalog
from environments.errors import CrsimError
from environments.moved import moved_names


def load_catalog_dir(catalog: str | Path) -> Catalog:
    """`Catalog.load` for an environment's `catalog:` key, which must name a directory."""
    path = Path(catalog).expanduser()
    if not path.is_dir():
        problem = "is a file, not a directory" if path.exists() else "no such directory"
        raise CrsimError(f"environment.catalog={catalog}: {problem}; give a catalog directory (one holding "
                         "items.jsonl; `crsim data import` makes one) or environment.catalog=null for the "
                         "synthetic world")
    return Catalog.load(path)


# `environments.catalog.loading.load_catalog` still resolves, with a warning, until 0.3.
__getattr__ = moved_names(__name__, "environments.loading", globals())
