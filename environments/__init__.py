"""crsim environments: catalogs, item and dialogue interfaces, worlds, dataset adapters."""
