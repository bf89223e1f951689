"""The built-in domains by name, and the one place that rejects an unknown name."""

from __future__ import annotations

from environments.worlds.domain import DomainSpec
from environments.worlds.movie import MOVIE
from environments.worlds.restaurant import RESTAURANT

DOMAINS: dict[str, DomainSpec] = {spec.name: spec for spec in (RESTAURANT, MOVIE)}


def get_domain(name: str) -> DomainSpec:
    """The spec for `name`; a `ValueError` naming the known domains otherwise."""
    try:
        return DOMAINS[name]
    except KeyError:
        raise ValueError(f"unknown world domain {name!r}; known domains: {', '.join(sorted(DOMAINS))}") from None
