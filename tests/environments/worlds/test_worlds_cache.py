"""The world cache: generate once, load afterwards, never expose half a world."""

from __future__ import annotations

from pathlib import Path

from types import SimpleNamespace

import pytest

import environments.worlds.cache as world_cache
from environments.worlds import GENERATOR_VERSION, load_truth, load_world, world_dir

ARGS = dict(n_items=50, n_users=30, min_reviews_per_item=5, seed=3)


def test_load_world_caches_and_round_trips(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = load_world("restaurant", cache_dir=tmp_path, **ARGS)
    expected = world_dir("restaurant", cache_dir=tmp_path, **ARGS)
    assert first.path == expected and expected.parent == tmp_path / "worlds"
    assert expected.name == f"restaurant-i50-u30-r5-s3-partial-v{GENERATOR_VERSION}"
    assert [p.name for p in expected.parent.iterdir()] == [expected.name]  # no temp dirs left

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("must not regenerate a cached world")

    _generator_is(monkeypatch, fail)
    second = load_world("restaurant", cache_dir=tmp_path, **ARGS)
    assert second.fingerprint == first.fingerprint
    assert [i.model_dump() for i in second.items] == [i.model_dump() for i in first.items]
    assert [u.model_dump() for u in second.users] == [u.model_dump() for u in first.users]
    assert second.manifest == first.manifest and second.manifest.counts["items"] == 50

    users, reviews = load_truth(second.path)
    assert len(users) == 30 and [t.review_id for t in reviews] == [r.id for r in second.reviews]


def test_arguments_key_the_cache(tmp_path: Path) -> None:
    a = load_world("movie", cache_dir=tmp_path, **ARGS)
    b = load_world("movie", cache_dir=tmp_path, **{**ARGS, "seed": 4})
    assert a.path != b.path and a.fingerprint != b.fingerprint


def test_default_cache_dir_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRSIM_CACHE_DIR", str(tmp_path / "env-cache"))
    catalog = load_world("movie", **ARGS)
    assert catalog.path is not None and catalog.path.parent == tmp_path / "env-cache" / "worlds"


def test_failed_generation_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("interrupted")

    _generator_is(monkeypatch, boom)
    with pytest.raises(RuntimeError, match="interrupted"):
        load_world("restaurant", cache_dir=tmp_path, **ARGS)
    assert list((tmp_path / "worlds").iterdir()) == []


def _generator_is(monkeypatch: pytest.MonkeyPatch, generate: object) -> None:
    """Make every world's generating module's `generate` be `generate` (versions unchanged)."""
    monkeypatch.setattr(world_cache, "generator_module",
                        lambda name: SimpleNamespace(GENERATOR_VERSION=GENERATOR_VERSION, generate=generate))
