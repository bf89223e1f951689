"""Item cards for the episode browser: title and a few attributes per item id.

An episode log holds item ids only; the titles live in the catalog, which the report
finds either from `--catalog DIR` or by building the environment the run's `config.yaml`
names (a synthetic world comes from the cache, so that takes about a second). Cards are
a nicety: when no catalog can be had the browser shows ids, and the report never fails
for it. Only items that appear in the episodes are kept, so the HTML stays small.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from environments.catalog.store import Catalog
from environments.errors import CrsimError
from environments.models import Episode, Item
from simulators.results.runlog import LoggedRun

MAX_ATTRIBUTES = 4
MAX_DESCRIPTION = 160

Card = dict[str, Any]


@dataclass
class CardSet:
    """Cards of several catalogs: `cards[key][item_id]`, and which key each run uses."""

    cards: dict[str, dict[str, Card]] = field(default_factory=dict)
    run_catalog: dict[str, str | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def item_card(item: Item) -> Card:
    """The few fields a card shows: title, category, first attributes, a short description."""
    attributes = []
    for name, value in list(item.attributes.items())[:MAX_ATTRIBUTES]:
        text = ", ".join(value) if isinstance(value, list) else str(value)
        attributes.append([name.replace("_", " "), text])
    description = item.description
    if len(description) > MAX_DESCRIPTION:
        description = description[: MAX_DESCRIPTION - 1].rstrip() + "…"
    return {"title": item.title, "category": item.category, "attributes": attributes,
            "description": description}


def episode_item_ids(episodes: Iterable[Episode]) -> set[str]:
    """Every item id an episode mentions: shown items, feedback keys, set moves and targets."""
    ids: set[str] = set()
    for episode in episodes:
        ids.update(episode.targets)
        for turn in episode.turns:
            ids.update(turn.items_shown)
            ids.update(turn.feedback)
            ids.update(turn.added)
    return ids


def load_catalog_dir(directory: Path | str) -> Catalog:
    """`--catalog DIR`: the user named it, so a bad directory is an error, not a silent id-only report."""
    return Catalog.load(Path(directory).expanduser())


def catalog_from_config(config: dict[str, Any]) -> Catalog:
    """Build the run's environment from its resolved config and take its catalog."""
    environment = config.get("environment")
    if not isinstance(environment, dict) or "_target_" not in environment:
        raise CrsimError("the run's config.yaml names no environment")
    from simulators.engine.build import build_setup

    setup = build_setup(environment)
    catalog = getattr(setup, "catalog", None)
    if not isinstance(catalog, Catalog):
        raise CrsimError(f"environment {environment['_target_']} has no catalog")
    return catalog


def collect_cards(runs: Sequence[LoggedRun], catalog_dir: Path | str | None = None) -> CardSet:
    """Cards for every item the runs' episodes mention, from `catalog_dir` or each run's config.

    Runs whose environments are configured identically share one catalog (loaded once)
    and one card table, named `c0`, `c1`, ... in the page.
    """
    result = CardSet()
    loaded: dict[str, tuple[str, Catalog | None]] = {}  # config key -> (short name, catalog)
    if catalog_dir is not None:
        loaded["--catalog"] = ("c0", load_catalog_dir(catalog_dir))
    for run in runs:
        key = "--catalog" if catalog_dir is not None else _config_key(run)
        if key is None:
            result.notes.append(f"{run.label}: no config.yaml with an environment; item cards show ids only")
            result.run_catalog[run.label] = None
            continue
        if key not in loaded:
            loaded[key] = (f"c{len(loaded)}", try_config_catalog(run, result.notes))
        name, catalog = loaded[key]
        result.run_catalog[run.label] = name if catalog is not None else None
    for name, catalog in loaded.values():
        if catalog is None:
            continue
        wanted = episode_item_ids(e for r in runs if result.run_catalog.get(r.label) == name for e in r.episodes)
        by_id = {item.id: item for item in catalog.items}
        result.cards[name] = {i: item_card(by_id[i]) for i in sorted(wanted) if i in by_id}
    return result


def _config_key(run: LoggedRun) -> str | None:
    environment = (run.config or {}).get("environment")
    if not isinstance(environment, dict):
        return None
    return json.dumps(environment, sort_keys=True, default=str)


def try_config_catalog(run: LoggedRun, notes: list[str]) -> Catalog | None:
    """The run's catalog, or None with a note saying why (titles are a nicety, never fatal)."""
    try:
        return catalog_from_config(run.config or {})
    except Exception as exc:  # noqa: BLE001 - any failure only costs the cards, never the report
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        notes.append(f"{run.label}: could not load the catalog for item cards ({first}); cards show ids only")
        return None
