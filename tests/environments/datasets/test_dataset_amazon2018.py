"""Amazon 2018 adapter: metadata mapping, selection, the counting pass, bad rows."""

from __future__ import annotations

import pytest

from environments.catalog import Catalog
from environments.datasets.amazon import AmazonOptions
from environments.datasets.amazon2018 import import_amazon2018
from environments.errors import CatalogError, CrsimError


def meta(asin, title, category=("Clothing, Shoes & Jewelry", "Women", "Shoes"), **more):
    row = {"asin": asin, "title": title, "brand": "Acme", "category": list(category),
           "main_cat": "Clothing, Shoes & Jewelry", "description": ["Comfortable shoe.", "<b>Light</b> sole."],
           "feature": ["Material: Leather", "Rubber sole", "Closure: Lace-up"],
           "details": {"Item Weight:": "12 ounces", "Department:": "Womens", "ASIN:": asin},
           "price": "$49.99", "also_buy": ["B0X"], "imageURL": [], "rank": "12 in Shoes"}
    row.update(more)
    return row


def rev(user, asin, overall=5.0, time=1500000000, **more):
    row = {"overall": overall, "verified": True, "reviewTime": "07 14, 2017", "reviewerID": user, "asin": asin,
           "style": {"Size:": " 8"}, "reviewerName": "A", "reviewText": "Fits well and looks good.",
           "summary": "Love them", "unixReviewTime": time}
    row.update(more)
    return row


@pytest.fixture
def files(tmp_path, jsonl):
    metas = [meta("B001", "Trail Shoe"), meta("B002", "City Sandal"),
             meta("B003", "Phone Case", category=["Cell Phones & Accessories", "Cases"],
                  main_cat='<img src="x.png" alt="AMAZON FASHION"/>'),
             meta("B004", "Never Reviewed")]
    reviews = [rev("U1", "B001", vote="1,234"), rev("U2", "B001", 4.0, verified=False), rev("U1", "B002", 2.0),
               rev("U3", "B003"), rev("U3", "B999"), rev("U2", "B001", 3.0, time=1500000001, reviewText=None)]
    return jsonl(tmp_path / "Clothing.json", reviews), jsonl(tmp_path / "meta_Clothing.json", metas)


def test_reviews_with_metadata(files, tmp_path):
    reviews, metas = files
    report = import_amazon2018(reviews, tmp_path / "cat", AmazonOptions(meta=metas))
    assert report.counts == {"items": 3, "reviews": 5, "users": 3}
    assert report.filtered == {"reviews of products without (selected) metadata": 1,
                               "products without kept reviews": 1}
    catalog = Catalog.load(tmp_path / "cat")
    shoe = catalog.item("B001")
    assert shoe.title == "Trail Shoe" and shoe.category == "Clothing, Shoes & Jewelry"
    assert shoe.attributes == {"brand": "Acme", "categories": ["Women", "Shoes"], "department": "Womens",
                               "material": "Leather", "closure": "Lace-up"}
    assert shoe.description == "Comfortable shoe. Light sole. Rubber sole"
    assert shoe.extra == {"price": "$49.99", "main_cat": "Clothing, Shoes & Jewelry", "rank": "12 in Shoes",
                          "also_buy": ["B0X"]}
    assert catalog.item("B003").category == "Cell Phones & Accessories"  # the <img> main_cat is skipped
    first = catalog.review_by_id["U1_B001_1500000000"]
    assert (first.text, first.helpful_votes, first.timestamp) == (
        "Love them. Fits well and looks good.", 1234, 1500000000)
    assert catalog.review_by_id["U2_B001_1500000001"].text == "Love them"
    manifest = catalog.manifest
    assert (manifest.domain, manifest.item_noun, manifest.source) == ("product", "products", "amazon2018")


def test_selection_options(files, tmp_path):
    reviews, metas = files
    report = import_amazon2018(reviews, tmp_path / "a", AmazonOptions(
        meta=metas, categories=["shoes"], min_reviews=2, verified_only=True))
    # B001 has two verified reviews; B002 one; B003 is outside the categories
    assert report.counts["items"] == 1 and report.counts["reviews"] == 2
    assert report.filtered["unverified reviews"] == 1
    assert report.filtered["products outside the categories"] == 1
    report = import_amazon2018(reviews, tmp_path / "b", AmazonOptions(meta=metas, keep_unreviewed=True))
    assert report.counts["items"] == 4
    with pytest.raises(CrsimError, match="--categories needs --meta"):
        import_amazon2018(reviews, tmp_path / "c", AmazonOptions(categories=["shoes"]))


def test_without_metadata_items_are_the_reviewed_ids(files, tmp_path):
    reviews, _ = files
    report = import_amazon2018(reviews, tmp_path / "cat")
    catalog = Catalog.load(tmp_path / "cat")
    assert report.counts["items"] == 4 and catalog.item("B999").title == "B999"
    assert catalog.item("B999").extra == {"metadata": False}


def test_bad_rows(files, tmp_path, jsonl):
    reviews, metas = files
    jsonl(reviews, [rev("U1", "B001"), rev("U1", "B002", overall=7.0)])
    with pytest.raises(CatalogError, match=r"Clothing.json, line 2, field 'overall': 7.0 is outside \[1, 5\]"):
        import_amazon2018(reviews, tmp_path / "cat", AmazonOptions(meta=metas))
    jsonl(reviews, [rev("U1", "B001", vote="many"), {"overall": 5.0, "reviewerID": "U9"}, rev("U1", "B002")])
    jsonl(metas, [meta("B001", "Shoe"), {"title": "no asin"}, meta("B002", "Sandal", brand=["x"])])
    report = import_amazon2018(reviews, tmp_path / "cat", AmazonOptions(meta=metas, skip_bad=True))
    assert report.skipped == 4 and report.counts == {"items": 0, "reviews": 0, "users": 0}
    assert report.problems == [
        "meta_Clothing.json:2 field 'asin': missing",
        "meta_Clothing.json:3 field 'brand': expected a string, got list",
        "Clothing.json:1 field 'vote': expected an integer, got 'many'",
        "Clothing.json:2 field 'asin': missing",
    ]
