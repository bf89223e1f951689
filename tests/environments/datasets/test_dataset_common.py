"""Shared adapter machinery: atomic catalog writing, the users' spill, readers, normalisation, the registry."""

from __future__ import annotations

import gzip

import pytest

from environments.datasets import FORMATS, get_format
from environments.datasets.base import RowErrors
from environments.datasets.normalize import aspect_key, clean_value, normalize_title, split_feature
from environments.datasets.readers import iter_csv_rows, iter_json_objects
from environments.datasets.seen import SeenSpill
from environments.datasets.writer import CatalogWriter
from environments.errors import CatalogError, CrsimError
from environments.models import CatalogManifest


def test_every_format_is_registered_and_independent_of_agents():
    import subprocess
    import sys

    for name in FORMATS:
        spec = get_format(name)
        assert spec.name == name and spec.paths and spec.options().skip_bad is False
    code = ("import sys; from environments.datasets import FORMATS, get_format; [get_format(f) for f in FORMATS]; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('agents', 'simulators', 'torch')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    with pytest.raises(CrsimError, match="unknown dataset format 'nope'"):
        get_format("nope")


def test_writer_moves_into_place_only_on_commit(tmp_path):
    out = tmp_path / "cat"
    with pytest.raises(RuntimeError):
        with CatalogWriter(out) as writer:
            writer.sink("items.jsonl").write({"id": "a", "title": "A"})
            raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []
    with CatalogWriter(out) as writer:
        writer.sink("items.jsonl").write({"id": "a", "title": "A"})
        manifest = writer.commit(CatalogManifest(name="x"))
    assert manifest.counts == {"items": 1, "reviews": 0, "users": 0}
    assert sorted(p.name for p in out.iterdir()) == ["catalog.json", "items.jsonl", "reviews.jsonl", "users.jsonl"]
    (tmp_path / "empty").mkdir()
    CatalogWriter(tmp_path / "empty").abort()  # an existing empty directory is fine to write into


def test_spill_groups_users_in_bounded_batches(tmp_path, monkeypatch):
    import environments.datasets.seen as seen

    monkeypatch.setattr(seen, "BATCH", 7)
    spill = SeenSpill(tmp_path)
    for i in range(100):
        spill.add(f"u{i % 9}", f"i{i}", float(i % 5), f"r{i}")
    spill.add("u0", "i0", 0.0, "r0")  # the same review twice is listed once
    rows = list(spill.user_rows(seen.likes_and_dislikes(4.0, 1.0)))
    spill.close()
    assert [r["user_id"] for r in rows] == [f"u{i}" for i in range(9)]
    assert [s["item_id"] for s in rows[0]["seen"]] == [f"i{i}" for i in range(0, 100, 9)]
    assert rows[0]["preferences"]["likes"] == ["i9", "i54", "i99"]
    assert not list(tmp_path.iterdir())


def test_readers_gzip_blank_lines_and_multiline_csv(tmp_path):
    path = tmp_path / "rows.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"a": 1}\n\n  \n{"a": 2}\n'))
    assert [(n, row["a"]) for n, row in iter_json_objects(path, RowErrors(False))] == [(1, 1), (4, 2)]
    csv_path = tmp_path / "rows.csv"
    csv_path.write_text('\ufeffid,text\n1,"two\nlines"\n\n2,plain\n')
    assert list(iter_csv_rows(csv_path, RowErrors(False))) == [(2, {"id": "1", "text": "two\nlines"}),
                                                               (5, {"id": "2", "text": "plain"})]
    truncated = tmp_path / "cut.jsonl.gz"
    truncated.write_bytes(gzip.compress(b'{"a": 1}\n' * 1000)[:-30])
    with pytest.raises(CatalogError, match="cannot read the file"):
        list(iter_json_objects(truncated, RowErrors(False)))
    with pytest.raises(CatalogError, match="file not found"):
        list(iter_json_objects(tmp_path / "missing.jsonl", RowErrors(False)))


@pytest.mark.parametrize("title, key", [
    ("Matrix, The (1999)", "the matrix (1999)"), ("The Matrix  (1999)", "the matrix (1999)"),
    ("City of Lost Children, The (Cité des enfants perdus, La) (1995)", "the city of lost children (1995)"),
    ("Seven (a.k.a. Se7en) (1995)", "seven (1995)"), ("Amélie (2001)", "amelie (2001)"),
    ("Fast & Furious (2009)", "fast and furious (2009)"), ("Star Wars: Episode IV - A New Hope (1977)",
                                                           "star wars episode iv a new hope (1977)"),
    ("No Year", "no year"),
])
def test_movie_titles_normalise_across_sources(title, key):
    assert normalize_title(title) == key


def test_aspect_keys_and_values():
    assert aspect_key("RestaurantsPriceRange2") == "restaurants_price_range2"
    assert aspect_key("HasTV") == "has_tv" and aspect_key("Item Weight:") == "item_weight"
    assert clean_value(True) == "yes" and clean_value(2.0) == "2" and clean_value("<b>Red</b>") == "Red"
    assert clean_value(["a", "", "a", 3]) == ["a", "3"] and clean_value("x" * 200) is None
    assert split_feature("Material: 100% cotton") == ("material", "100% cotton")
    assert split_feature("Soft and comfortable for all-day wear") is None
