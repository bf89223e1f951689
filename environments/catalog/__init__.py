"""Catalog storage: the on-disk JSONL format, the in-memory `Catalog`, and loading the
catalog an environment config names."""

from environments.catalog.loading import load_catalog, load_catalog_dir
from environments.catalog.store import Catalog

__all__ = ["Catalog", "load_catalog", "load_catalog_dir"]
