"""Yelp Open Dataset adapter: selection, attribute decoding, bad rows, atomic output."""

from __future__ import annotations

import gzip
import json
from datetime import datetime, timezone

import pytest

from environments.catalog import Catalog
from environments.datasets.yelp import YelpOptions, attribute_value, import_yelp
from environments.errors import CatalogError, CrsimError


def business(bid, name, city="Philadelphia", categories="Mexican, Restaurants, Food", review_count=12, **attributes):
    return {"business_id": bid, "name": name, "address": "1 Main St", "city": city, "state": "PA",
            "postal_code": "19107", "latitude": 39.9, "longitude": -75.1, "stars": 4.0,
            "review_count": review_count, "is_open": 1, "attributes": attributes or None,
            "categories": categories, "hours": None}


def review(rid, bid, user, stars=5, text="Lovely tacos.", date="2018-07-07 22:09:11"):
    return {"review_id": rid, "user_id": user, "business_id": bid, "stars": stars, "useful": 2, "funny": 0,
            "cool": 1, "text": text, "date": date}


@pytest.fixture
def yelp_files(tmp_path, jsonl):
    businesses = [
        business("b-taco", "Taco Town", RestaurantsPriceRange2="2", WiFi="u'free'", NoiseLevel="u'very_loud'",
                 Ambience="{'romantic': False, 'casual': True, 'trendy': True}", Alcohol="'beer_and_wine'",
                 HasTV="True", OutdoorSeating="False", Smoking="None", BusinessParking="None"),
        business("b-pho", "Pho Real", categories="Vietnamese, Food"),
        business("b-far", "Far Away Diner", city="Tucson"),
        business("b-spa", "Nail Spa", categories="Beauty & Spas, Nail Salons"),
        business("b-new", "New Bakery", categories="Bakeries, Food", review_count=3),
    ]
    reviews = [review("r1", "b-taco", "u1"), review("r2", "b-taco", "u2", 4), review("r3", "b-pho", "u1", 2),
               review("r4", "b-far", "u3"), review("r5", "b-spa", "u1"), review("r6", "b-taco", "u1", 3)]
    return jsonl(tmp_path / "business.json", businesses), jsonl(tmp_path / "review.json", reviews)


def test_snipRec_selection_and_mapping(yelp_files, tmp_path):
    report = import_yelp(*yelp_files, tmp_path / "cat", YelpOptions(city="philadelphia"))
    assert report.counts == {"items": 2, "reviews": 4, "users": 2}
    assert report.filtered == {"businesses outside the city": 1, "businesses outside the categories": 1,
                               "businesses with too few reviews": 1,
                               "reviews of businesses outside the selection": 2}
    catalog = Catalog.load(tmp_path / "cat")  # every line validates as Item / Review / UserProfile
    assert catalog.item_ids == ["b-taco", "b-pho"]
    taco = catalog.item("b-taco")
    assert taco.title == "Taco Town" and taco.category == "restaurant"
    assert taco.attributes == {
        "categories": ["Mexican", "Restaurants", "Food"], "price_range": "moderate", "wifi": "free",
        "noise_level": "very loud", "ambience": ["casual", "trendy"], "alcohol": "beer and wine", "tv": "yes",
        "outdoor_seating": "no"}
    assert taco.extra["city"] == "Philadelphia" and taco.extra["review_count"] == 12
    assert catalog.item("b-pho").category == "vietnamese"
    first = catalog.review_by_id["r1"]
    assert (first.item_id, first.user_id, first.rating, first.helpful_votes) == ("b-taco", "u1", 5.0, 2)
    assert first.timestamp == int(datetime(2018, 7, 7, 22, 9, 11, tzinfo=timezone.utc).timestamp())
    users = {u.user_id: u for u in catalog.users}
    assert [(s.item_id, s.rating, s.review_id) for s in users["u1"].seen] == [
        ("b-taco", 5.0, "r1"), ("b-pho", 2.0, "r3"), ("b-taco", 3.0, "r6")]
    manifest = json.loads((tmp_path / "cat" / "catalog.json").read_text())
    assert manifest["domain"] == "restaurant" and manifest["item_noun"] == "restaurants"
    assert manifest["counts"] == report.counts
    assert manifest["extra"]["import"]["options"]["city"] == "philadelphia"


def test_no_category_filter_and_gzipped_input(yelp_files, tmp_path):
    business_path, review_path = yelp_files
    gz = tmp_path / "review.json.gz"
    gz.write_bytes(gzip.compress(review_path.read_bytes()))
    report = import_yelp(business_path, gz, tmp_path / "cat", YelpOptions(categories=[], min_reviews=0))
    assert report.counts["items"] == 5 and report.counts["reviews"] == 6


@pytest.mark.parametrize("raw, expected", [
    ("True", "yes"), ("False", "no"), ("None", None), ("u'free'", "free"), ("'no'", "no"), ("u'None'", None),
    ("{'garage': False, 'street': True, 'lot': True}", ["street", "lot"]), ("{'a': False}", None),
    ("{broken", None), ("2", "2"), (True, "yes"), ({"dinner": True}, ["dinner"]),
])
def test_attribute_values_are_decoded(raw, expected):
    assert attribute_value(raw) == expected


def test_bad_rows_name_file_line_and_field(yelp_files, tmp_path, jsonl):
    business_path, review_path = yelp_files
    rows = review_path.read_text().splitlines()
    bad = json.loads(rows[2])
    bad["stars"] = "five"
    rows[2] = json.dumps(bad)
    review_path.write_text("\n".join(rows) + "\n")
    with pytest.raises(CatalogError) as err:
        import_yelp(business_path, review_path, tmp_path / "cat", YelpOptions())
    assert (err.value.path.name, err.value.line, err.value.field) == ("review.json", 3, "stars")
    assert not (tmp_path / "cat").exists()
    assert not list(tmp_path.glob(".cat.importing-*"))  # no staging directory left behind


def test_skip_bad_counts_and_reports(yelp_files, tmp_path):
    business_path, review_path = yelp_files
    with review_path.open("a") as handle:
        handle.write('{"review_id": "cut", "user_id": "u1", "busin\n')
        handle.write(json.dumps(review("r7", "b-ghost", "u1")) + "\n")
        handle.write(json.dumps({**review("r8", "b-taco", "u1"), "date": "yesterday"}) + "\n")
        handle.write("[1, 2]\n\n")
        handle.write(json.dumps({k: v for k, v in review("r9", "b-taco", "u2").items() if k != "user_id"}) + "\n")
    report = import_yelp(business_path, review_path, tmp_path / "cat", YelpOptions(skip_bad=True))
    assert report.skipped == 5 and report.counts["reviews"] == 5  # Tucson counts without --city
    assert report.problems[0].startswith("review.json:7: invalid JSON (")
    assert report.problems[1:] == [
        "review.json:8 field 'business_id': unknown business 'b-ghost' (not in business.json)",
        "review.json:9 field 'date': expected a date like 2018-07-07 22:09:11, got 'yesterday'",
        "review.json:10: expected a JSON object, got list",
        "review.json:12 field 'user_id': missing",
    ]
    Catalog.load(tmp_path / "cat")
    manifest = json.loads((tmp_path / "cat" / "catalog.json").read_text())
    assert manifest["extra"]["import"]["skipped_bad_rows"] == 5


def test_duplicate_business_and_existing_output(yelp_files, tmp_path, jsonl):
    business_path, review_path = yelp_files
    out = tmp_path / "cat"
    import_yelp(business_path, review_path, out, YelpOptions())
    with pytest.raises(CrsimError, match="already exists"):
        import_yelp(business_path, review_path, out, YelpOptions())
    jsonl(business_path, [business("b-taco", "A"), business("b-taco", "B")])
    with pytest.raises(CatalogError, match=r"business.json, line 2, field 'business_id': duplicate business id"):
        import_yelp(business_path, review_path, out, YelpOptions(force=True))
    assert Catalog.load(out).item_ids == ["b-taco", "b-pho", "b-far"]  # the failed re-import left the old catalog
    jsonl(review_path, [review("r1", "b-taco", "u1")])
    import_yelp(business_path, review_path, out, YelpOptions(force=True, skip_bad=True))
    assert Catalog.load(out).item("b-taco").title == "A"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["business.json", "cat", "review.json"]
