"""Amazon Reviews 2023 adapter: parent_asin items, millisecond timestamps, bad rows."""

from __future__ import annotations

import gzip

import pytest

from environments.catalog import Catalog
from environments.datasets.amazon import AmazonOptions
from environments.datasets.amazon2023 import import_amazon2023
from environments.errors import CatalogError


def meta(parent, title, **more):
    row = {"main_category": "All Beauty", "title": title, "average_rating": 4.4, "rating_number": 12,
           "features": ["Scent: Lavender", "Gentle on skin and made with natural oils for daily use"],
           "description": ["A calming lotion."], "price": 12.5, "images": [], "videos": [], "store": "Calm Co",
           "categories": ["Skin Care", "Body"], "details": {"Item Form": "Lotion", "UPC": "0123",
                                                           "Best Sellers Rank": {"Beauty": 12}},
           "parent_asin": parent, "bought_together": None}
    row.update(more)
    return row


def rev(user, parent, rating=5.0, ms=1588687728923, **more):
    row = {"rating": rating, "title": "So soft!", "text": "My skin loves it.", "images": [], "asin": parent + "-v",
           "parent_asin": parent, "user_id": user, "timestamp": ms, "helpful_vote": 3, "verified_purchase": True}
    row.update(more)
    return row


def test_reviews_and_meta(tmp_path, jsonl):
    reviews = jsonl(tmp_path / "All_Beauty.jsonl", [rev("AE1", "P1"), rev("AE2", "P1", 2.0, 1600000000000),
                                                    rev("AE1", "P2", 4.0)])
    metas = tmp_path / "meta_All_Beauty.jsonl.gz"
    metas.write_bytes(gzip.compress(jsonl(tmp_path / "m.jsonl", [meta("P1", "Lavender Lotion"),
                                                                  meta("P2", "Rose Soap", store="")]).read_bytes()))
    report = import_amazon2023(reviews, tmp_path / "cat", AmazonOptions(meta=metas))
    assert report.counts == {"items": 2, "reviews": 3, "users": 2}
    catalog = Catalog.load(tmp_path / "cat")
    lotion = catalog.item("P1")
    assert lotion.category == "All Beauty"
    assert lotion.attributes == {"store": "Calm Co", "categories": ["Skin Care", "Body"], "item_form": "Lotion",
                                 "scent": "Lavender"}
    assert lotion.description == "A calming lotion. Gentle on skin and made with natural oils for daily use"
    assert lotion.extra == {"price": 12.5, "main_category": "All Beauty", "average_rating": 4.4, "rating_number": 12}
    review = catalog.review_by_id["AE1_P1_1588687728923"]
    assert (review.item_id, review.timestamp, review.helpful_votes, review.text) == (
        "P1", 1588687728, 3, "So soft! My skin loves it.")
    assert "store" not in catalog.item("P2").attributes


def test_bad_rows(tmp_path, jsonl):
    reviews = jsonl(tmp_path / "r.jsonl", [rev("AE1", "P1"), rev("AE1", "P1", rating="x"),
                                           rev("AE2", "P1", ms="2020-01-01"),
                                           rev("AE3", "P1", verified_purchase="yes")])
    with pytest.raises(CatalogError, match=r"r.jsonl, line 2, field 'rating': expected a number, got str"):
        import_amazon2023(reviews, tmp_path / "cat")
    report = import_amazon2023(reviews, tmp_path / "cat", AmazonOptions(skip_bad=True))
    assert report.skipped == 3 and report.counts["reviews"] == 1
    assert report.problems[1:] == ["r.jsonl:3 field 'timestamp': expected Unix milliseconds, got '2020-01-01'",
                                   "r.jsonl:4 field 'verified_purchase': expected true/false, got 'yes'"]
