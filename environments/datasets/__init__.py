"""Dataset adapters: public formats as distributed -> crsim catalog directories.

Each format lives in its own module with an `import_<format>(...)` function (for
Python callers: later method issues reuse them unchanged) and a `FORMAT` spec (for the
`crsim data import` CLI). Adapters depend only on the data model and catalog storage,
never on agents. See docs/datasets.md for the formats, fields and mapping.

Modules are imported on demand, so listing the formats costs nothing.
"""

from __future__ import annotations

import importlib

from environments.datasets.base import DatasetFormat, ImportOptions, ImportReport
from environments.errors import CrsimError

#: format name -> module defining `FORMAT`.
FORMATS: dict[str, str] = {
    "yelp": "environments.datasets.yelp",
    "amazon2018": "environments.datasets.amazon2018",
    "amazon2023": "environments.datasets.amazon2023",
    "redial": "environments.datasets.redial",
    "inspired": "environments.datasets.inspired",
    "durecdial": "environments.datasets.durecdial",
    "crsarena": "environments.datasets.crsarena",
    "mgshopdial": "environments.datasets.mgshopdial",
    "movielens": "environments.datasets.movielens",
    "imdb-reviews": "environments.datasets.imdb_reviews",
    "cpcd": "environments.datasets.cpcd",
    "products": "environments.datasets.products",
}


def get_format(name: str) -> DatasetFormat:
    """The adapter spec for a format name; an unknown name is a `CrsimError` listing the known ones."""
    if name not in FORMATS:
        raise CrsimError(f"unknown dataset format '{name}' (known: {', '.join(FORMATS)})")
    return importlib.import_module(FORMATS[name]).FORMAT


__all__ = ["FORMATS", "DatasetFormat", "ImportOptions", "ImportReport", "get_format"]
