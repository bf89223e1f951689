"""Synthetic worlds: the embedded default datasets (restaurants, movies, music).

`load_world("restaurant")` returns a cached `Catalog` generated from a seed; the latent
truth behind it (user likes/dislikes, labelled review sentences) is read with
`load_truth(catalog.path)`, each item's true attributes with `load_item_truth(catalog.path)`, a music
world's playlist themes and goal sets with `load_themes(catalog.path)`. See `generator.py`
(review worlds) and `music.py` for how the data are made.
"""

from environments.worlds.cache import load_item_truth, load_themes, load_truth, load_world, world_dir
from environments.worlds.generator import GENERATOR_VERSION, World, generate_world
from environments.worlds.registry import DOMAINS, get_domain, world_names

__all__ = ["DOMAINS", "GENERATOR_VERSION", "World", "generate_world", "get_domain", "load_item_truth", "load_themes",
           "load_truth", "load_world", "world_dir", "world_names"]
