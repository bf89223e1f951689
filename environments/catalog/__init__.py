"""Catalog storage: the on-disk JSONL format, the in-memory `Catalog`, and loading a catalog
directory. The catalog is the bottom of the packages under `environments/`: it imports
none of `datasets`, `search`, `worlds` or a protocol; what needs them sits above it
(`environments.loading.load_catalog`, `environments.search.vocabulary`,
`environments.statistics`)."""

from environments.catalog.loading import load_catalog_dir
from environments.catalog.store import Catalog
from environments.moved import alias_moved_modules, moved_names

__all__ = ["Catalog", "load_catalog_dir"]

# Moved up out of the catalog in 0.2; the old paths import, with a warning, until 0.3.
alias_moved_modules({"environments.catalog.vocabulary": "environments.search.vocabulary"})
__getattr__ = moved_names(__name__, "environments.loading", globals())  # load_catalog
