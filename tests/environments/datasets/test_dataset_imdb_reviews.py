"""IMDb-style review adapter: configurable columns, CSV with multi-line reviews, JSON lines, bad rows."""

from __future__ import annotations

import json

import pytest

from environments.catalog import Catalog
from environments.datasets.imdb_reviews import ImdbReviewsOptions, import_imdb_reviews
from environments.errors import CatalogError

CSV = '''user,movie,rating,review
ur001,tt0111161,10,"Hope is a good thing.
Maybe the best of things."
ur002,tt0111161,8,Great prison drama.
ur001,tt0068646,9,"An offer you can't refuse, twice."
'''


def test_default_columns_csv_with_multiline_reviews(tmp_path):
    path = tmp_path / "reviews.csv"
    path.write_text(CSV)
    (tmp_path / "meta.json").write_text(json.dumps({"tt0111161": {
        "name": "The Shawshank Redemption (1994)", "genre": ["Drama"], "plot": "Two imprisoned men bond.",
        "director": ["Frank Darabont"], "star": ["Tim Robbins"]}}))
    report = import_imdb_reviews([path], tmp_path / "cat", ImdbReviewsOptions(
        rating_scale=0.5, metadata=tmp_path / "meta.json"))
    assert report.counts == {"items": 2, "reviews": 3, "users": 2}
    catalog = Catalog.load(tmp_path / "cat")
    review = catalog.review_by_id["ur001_tt0111161"]
    assert review.text == "Hope is a good thing.\nMaybe the best of things." and review.rating == 5.0
    movie = catalog.item("tt0111161")
    assert movie.title == "tt0111161" and movie.attributes["director"] == ["Frank Darabont"]
    assert movie.description == "Two imprisoned men bond." and catalog.manifest.domain == "movie"
    user = {u.user_id: u for u in catalog.users}["ur001"]
    assert [s.review_id for s in user.seen] == ["ur001_tt0111161", "ur001_tt0068646"]


def test_custom_columns_json_lines(tmp_path, jsonl):
    rows = [{"username": "amy", "film_id": "m1", "film": "Alien (1979)", "score": "9", "review_detail": "Tense.",
             "review_summary": "Classic", "review_id": "rw1", "review_date": "17 March 2021", "helpful": "1,024"},
            {"username": "bob", "film_id": "m1", "film": "Alien (1979)", "score": None, "review_detail": "Scary.",
             "review_id": "rw2", "review_date": "2020-02-01"}]
    path = jsonl(tmp_path / "reviews.jsonl", rows)
    options = ImdbReviewsOptions(user_field="username", item_field="film_id", title_field="film", rating_field="score",
                                 text_field="review_detail", summary_field="review_summary", id_field="review_id",
                                 timestamp_field="review_date", helpful_field="helpful", missing_rating=3.0)
    import_imdb_reviews([path], tmp_path / "cat", options)
    catalog = Catalog.load(tmp_path / "cat")
    first, second = catalog.review_by_id["rw1"], catalog.review_by_id["rw2"]
    assert (first.text, first.rating, first.helpful_votes, first.timestamp) == (
        "Classic. Tense.", 9.0, 1024, 1615939200)
    assert second.rating == 3.0 and second.timestamp == 1580515200
    assert catalog.item("m1").title == "Alien (1979)" and catalog.item("m1").extra == {"year": 1979}


def test_bad_rows(tmp_path):
    path = tmp_path / "reviews.csv"
    path.write_text(CSV + "ur003,tt0068646,,No rating given.\nur004,tt0068646,great,Nice.\nur005,,7,No movie.\n"
                    "ur006,tt1,7\n")
    with pytest.raises(CatalogError, match=r"reviews.csv, line 6, field 'rating': missing"):
        import_imdb_reviews([path], tmp_path / "cat")
    report = import_imdb_reviews([path], tmp_path / "cat", ImdbReviewsOptions(skip_bad=True))
    assert report.skipped == 4 and report.counts["reviews"] == 3
    assert report.problems == ["reviews.csv:6 field 'rating': missing",
                               "reviews.csv:7 field 'rating': expected a number, got 'great'",
                               "reviews.csv:8 field 'movie': missing",
                               "reviews.csv:9: expected 4 columns, got 3"]
    path.write_text("reviewer,film\nx,y\n")
    with pytest.raises(CatalogError, match="missing column"):
        import_imdb_reviews([path], tmp_path / "cat", ImdbReviewsOptions(force=True))
