"""Generate a world once, keep it on disk, and load it from there afterwards.

Generating the default world takes seconds and every run needs the same one, so it is
cached under `<cache_dir>/worlds/` keyed by all generator arguments and the generator
version (a new version never reuses old files). The directory is filled under a temporary
name and renamed into place, so concurrent or interrupted runs never see half a world.
"""

from __future__ import annotations

from pathlib import Path

from environments.catalog.jsonl import read_jsonl
from environments.catalog.store import Catalog
from environments.search.cache import cache_dir_for, write_dir_atomic
from environments.worlds.generator import TRUTH_DIR
from environments.worlds.registry import generator_module
from environments.worlds.truth import ItemTruth, ReviewTruth, ThemeTruth, UserTruth


def world_dir(
    domain: str, *, n_items: int = 3000, n_users: int = 1200, min_reviews_per_item: int = 10, seed: int = 0,
    attribute_visibility: str = "partial", cache_dir: Path | str | None = None,
) -> Path:
    """Where the world with these arguments is (or would be) cached."""
    version = generator_module(domain).GENERATOR_VERSION
    name = (f"{domain}-i{n_items}-u{n_users}-r{min_reviews_per_item}-s{seed}-{attribute_visibility}"
            f"-v{version}")
    return cache_dir_for("worlds", cache_dir) / name


def load_world(
    domain: str, *, n_items: int = 3000, n_users: int = 1200, min_reviews_per_item: int = 10, seed: int = 0,
    attribute_visibility: str = "partial", cache_dir: Path | str | None = None,
) -> Catalog:
    """The world's catalog, generated and cached on first use.

    `cache_dir` defaults to `$CRSIM_CACHE_DIR` or `~/.cache/crsim`. The returned catalog's
    `path` is the world directory; pass it to `load_truth` for the latent truth.
    """
    path = world_dir(domain, n_items=n_items, n_users=n_users, min_reviews_per_item=min_reviews_per_item,
                     seed=seed, attribute_visibility=attribute_visibility, cache_dir=cache_dir)
    if not path.is_dir():
        def write(tmp: Path) -> None:
            generator_module(domain).generate(
                domain, n_items=n_items, n_users=n_users, min_reviews_per_item=min_reviews_per_item, seed=seed,
                attribute_visibility=attribute_visibility).save(tmp)

        write_dir_atomic(path, write)
    return Catalog.load(path)


def load_truth(world_dir: Path | str) -> tuple[list[UserTruth], list[ReviewTruth]]:
    """Latent user preferences and labelled review sentences of a saved world."""
    truth = Path(world_dir).expanduser() / TRUTH_DIR
    return read_jsonl(truth / "users.jsonl", UserTruth), read_jsonl(truth / "reviews.jsonl", ReviewTruth)


def load_item_truth(world_dir: Path | str) -> dict[str, ItemTruth]:
    """Each item's true attributes, shown attributes, cluster and signatures, by item id;
    empty for a directory that is not a world (a real catalog has no truth)."""
    path = Path(world_dir).expanduser() / TRUTH_DIR / "items.jsonl"
    return {row.item_id: row for row in read_jsonl(path, ItemTruth)} if path.is_file() else {}


def load_themes(world_dir: Path | str) -> list[ThemeTruth]:
    """The playlist themes of a music world, with their goal sets; empty for any other catalog."""
    path = Path(world_dir).expanduser() / TRUTH_DIR / "themes.jsonl"
    return read_jsonl(path, ThemeTruth) if path.is_file() else []
