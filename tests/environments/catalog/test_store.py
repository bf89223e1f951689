import json

import pytest

from environments.catalog import Catalog
from environments.errors import CatalogError


def test_round_trip_keeps_everything(tiny_catalog, tmp_path):
    loaded = Catalog.load(tiny_catalog.save(tmp_path / "c"))
    assert loaded.item_ids == tiny_catalog.item_ids
    assert [r.model_dump() for r in loaded.reviews] == [r.model_dump() for r in tiny_catalog.reviews]
    assert loaded.fingerprint == tiny_catalog.fingerprint
    manifest = json.loads((tmp_path / "c" / "catalog.json").read_text())
    assert manifest["counts"] == {"items": 24, "reviews": len(tiny_catalog.reviews), "users": 7}


def _break_line(path, line_no, mutate):
    lines = path.read_text().splitlines()
    lines[line_no - 1] = mutate(lines[line_no - 1])
    path.write_text("\n".join(lines) + "\n")


def test_missing_field_names_file_line_and_field(tiny_catalog_dir):
    path = tiny_catalog_dir / "items.jsonl"
    _break_line(path, 3, lambda s: json.dumps({k: v for k, v in json.loads(s).items() if k != "title"}))
    with pytest.raises(CatalogError) as err:
        Catalog.load(tiny_catalog_dir)
    assert err.value.line == 3 and err.value.field == "title"
    assert "items.jsonl, line 3, field 'title'" in str(err.value)


def test_wrong_type_and_bad_json_are_located(tiny_catalog_dir):
    path = tiny_catalog_dir / "reviews.jsonl"
    _break_line(path, 2, lambda s: json.dumps({**json.loads(s), "rating": "five"}))
    with pytest.raises(CatalogError, match=r"reviews.jsonl, line 2, field 'rating'"):
        Catalog.load(tiny_catalog_dir)
    _break_line(path, 2, lambda s: s[: len(s) // 2])
    with pytest.raises(CatalogError, match=r"reviews.jsonl, line 2: invalid JSON"):
        Catalog.load(tiny_catalog_dir)


def test_unknown_item_reference_and_schema_version(tiny_catalog_dir):
    path = tiny_catalog_dir / "reviews.jsonl"
    _break_line(path, 4, lambda s: json.dumps({**json.loads(s), "item_id": "nope"}))
    with pytest.raises(CatalogError, match=r"line 4, field 'item_id': unknown item id 'nope'"):
        Catalog.load(tiny_catalog_dir)
    manifest = tiny_catalog_dir / "catalog.json"
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "schema_version": 99}))
    with pytest.raises(CatalogError, match="schema version 99 is not supported"):
        Catalog.load(tiny_catalog_dir)


def test_view_withholds_reviews_and_changes_fingerprint(tiny_catalog):
    withheld = tiny_catalog.reviews[0].id
    view = tiny_catalog.without_reviews([withheld])
    assert withheld not in view.review_by_id and withheld in tiny_catalog.review_by_id
    assert view.items is not tiny_catalog.items or view.item_ids == tiny_catalog.item_ids
    assert view.fingerprint != tiny_catalog.fingerprint
    assert view.without_reviews([]).fingerprint == view.fingerprint
