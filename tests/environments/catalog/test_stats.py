"""Catalog shape statistics, on a catalog built by hand and through `crsim data info --stats`."""

from __future__ import annotations

from environments.catalog import Catalog
from environments.catalog.stats import catalog_statistics
from environments.models import CatalogManifest, Item, Review
from simulators.cli.data import summarise


def _catalog() -> Catalog:
    items = [Item(id="a", title="A", attributes={"color": "red", "size": "s"}),
             Item(id="b", title="B", attributes={"color": "red", "size": "s"}),
             Item(id="c", title="C", attributes={"color": "blue"})]
    reviews = [Review(id="r1", item_id="a", user_id="u1", rating=5, text="The color is bright. Size fits well."),
               Review(id="r2", item_id="a", user_id="u2", rating=4, text="Lovely color."),
               Review(id="r3", item_id="c", user_id="u1", rating=2, text="Too small. The size runs small. Meh.")]
    return Catalog(CatalogManifest(name="t"), items, reviews, [])


def test_statistics_count_what_they_say() -> None:
    stats = catalog_statistics(_catalog(), {"color": "color", "size": "size"})
    assert (stats.items, stats.reviews) == (3, 3)
    assert stats.reviews_per_item.mean == 1.0 and stats.reviews_per_item.median == 1.0
    assert stats.sentences_per_review.mean == 2.0 and stats.words_per_review.mean == round(16 / 3, 3)
    assert stats.aspects_per_review is not None and stats.aspects_per_review.mean == round(4 / 3, 3)  # 2, 1, 1 aspects
    assert stats.attributes_per_item.mean == round(5 / 3, 3)
    assert stats.unique_attribute_combinations == round(1 / 3, 4)  # a and b share everything
    assert catalog_statistics(_catalog()).aspects_per_review is None


def test_data_info_stats_on_a_catalog_directory(tmp_path) -> None:
    directory = _catalog().save(tmp_path / "c")
    summary = summarise(directory, stats=True)
    assert summary["stats"]["reviews"] == 3 and summary["stats"]["aspects_per_review"] is not None
