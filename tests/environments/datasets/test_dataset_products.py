"""Generic product catalog adapter: CSV and JSON lines, configurable columns, bad rows."""

from __future__ import annotations

import pytest

from environments.catalog import Catalog
from environments.datasets.products import ProductsOptions, import_products
from environments.errors import CatalogError

CSV = """id,title,category,description,features,brand,color
p1,Trail Runner,shoes,Light and grippy.,material: mesh; drop: 6 mm,Northpeak,black|red
p2,Rain Shell,jackets,,,Riverstone,
"""


def test_csv_columns_become_aspects(tmp_path):
    path = tmp_path / "products.csv"
    path.write_text(CSV)
    report = import_products([path], tmp_path / "cat")
    assert report.counts == {"items": 2, "reviews": 0, "users": 0}
    catalog = Catalog.load(tmp_path / "cat")
    runner = catalog.item("p1")
    assert runner.attributes == {"material": "mesh", "drop": "6 mm", "brand": "Northpeak", "color": ["black", "red"]}
    assert (runner.category, runner.description) == ("shoes", "Light and grippy.")
    assert catalog.item("p2").attributes == {"brand": "Riverstone"}
    assert catalog.manifest.domain == "product" and catalog.manifest.item_noun == "products"


def test_esci_style_columns_and_json_lines(tmp_path, jsonl):
    esci = tmp_path / "products.tsv"
    esci.write_text("product_id\tproduct_title\tproduct_brand\tproduct_locale\nB01\tUSB-C cable\tAnker\tus\n")
    import_products([esci], tmp_path / "a", ProductsOptions(id_field="product_id", title_field="product_title",
                                                            attributes=["product_brand"]))
    item = Catalog.load(tmp_path / "a").item("B01")
    assert item.attributes == {"product_brand": "Anker"} and item.extra == {"product_locale": "us"}
    path = jsonl(tmp_path / "products.jsonl", [
        {"id": "j1", "title": "Desk Lamp", "category": "lighting", "features": {"Color": "white", "Bulb Type": ["LED"],
                                                                              "Dimmable": True}, "price": 30},
    ])
    import_products([path], tmp_path / "b", ProductsOptions(domain="office", item_noun="office products"))
    catalog = Catalog.load(tmp_path / "b")
    lamp = catalog.item("j1")
    assert lamp.attributes == {"color": "white", "bulb_type": ["LED"], "dimmable": "yes"}
    assert lamp.extra == {"price": 30} and catalog.manifest.item_noun == "office products"


def test_bad_rows(tmp_path):
    path = tmp_path / "products.csv"
    path.write_text(CSV + "p1,Duplicate,shoes,,,,\np3,,shoes,,,,\np4,Bad features,x,,no colon here,,\n")
    with pytest.raises(CatalogError, match=r"products.csv, line 4, field 'id': duplicate product id 'p1'"):
        import_products([path], tmp_path / "cat")
    report = import_products([path], tmp_path / "cat", ProductsOptions(skip_bad=True))
    assert report.counts["items"] == 2 and report.skipped == 3
    assert report.problems[1:] == ["products.csv:5 field 'title': missing",
                                   "products.csv:6 field 'features': expected 'key: value; key: value', "
                                   "got 'no colon here'"]
