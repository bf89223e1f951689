"""Catalog storage: the on-disk JSONL format and the in-memory `Catalog`."""

from environments.catalog.store import Catalog

__all__ = ["Catalog"]
