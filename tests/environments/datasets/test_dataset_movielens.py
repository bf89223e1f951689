"""MovieLens adapter: the CSV, ml-100k and .dat layouts, interactions, bad rows."""

from __future__ import annotations

import json

import pytest

from environments.catalog import Catalog
from environments.catalog.interactions import load_interactions
from environments.datasets.movielens import MovieLensOptions, import_movielens
from environments.errors import CatalogError, CrsimError


def test_csv_release_directory(tmp_path):
    release = tmp_path / "ml-latest-small"
    release.mkdir()
    (release / "movies.csv").write_text(
        'movieId,title,genres\n1,Toy Story (1995),Adventure|Animation|Children\n'
        '2,"American President, The (1995)",Comedy|Drama|Romance\n3,Unknown Film,(no genres listed)\n')
    (release / "ratings.csv").write_text("userId,movieId,rating,timestamp\n1,1,4.0,964982703\n1,2,0.5,964981247\n"
                                         "2,1,5.0,964982224\n")
    report = import_movielens([release], tmp_path / "cat")
    assert report.counts == {"items": 3, "reviews": 0, "users": 2, "interactions": 3}
    catalog = Catalog.load(tmp_path / "cat")
    assert catalog.item("2").title == "American President, The (1995)"
    assert catalog.item("1").attributes == {"genres": ["Adventure", "Animation", "Children"]}
    assert catalog.item("1").extra == {"year": 1995} and catalog.item("3").attributes == {}
    user = catalog.users[0]
    assert (user.user_id, [(s.item_id, s.rating) for s in user.seen]) == ("1", [("1", 4.0), ("2", 0.5)])
    matrix = load_interactions(tmp_path / "cat", item_ids=catalog.item_ids)
    assert matrix.matrix.toarray().tolist() == [[4.0, 0.5, 0.0], [5.0, 0.0, 0.0]]
    first = json.loads((tmp_path / "cat" / "interactions.jsonl").read_text().splitlines()[0])
    assert first == {"user_id": "1", "item_id": "1", "value": 4.0, "source": "movielens"}


def test_ml_100k_and_ml_1m_layouts(tmp_path):
    ml100k = tmp_path / "ml-100k"
    ml100k.mkdir()
    flags = ["0"] * 19
    flags[3] = flags[4] = "1"  # Animation, Children's
    (ml100k / "u.item").write_bytes(("1|Toy Story (1995)|01-Jan-1995||http://x|" + "|".join(flags) + "\n"
                                     "2|Cité des enfants perdus, La (1995)|01-Jan-1995||http://y|"
                                     + "|".join(["0"] * 19) + "\n").encode("latin-1"))
    (ml100k / "u.data").write_text("196\t1\t3\t881250949\n186\t2\t5\t891717742\n")
    report = import_movielens([ml100k / "u.data", ml100k / "u.item"], tmp_path / "a")
    catalog = Catalog.load(tmp_path / "a")
    assert report.counts["interactions"] == 2
    assert catalog.item("1").attributes == {"genres": ["Animation", "Children's"]}
    assert catalog.item("2").title == "Cité des enfants perdus, La (1995)"

    ml1m = tmp_path / "ml-1m"
    ml1m.mkdir()
    (ml1m / "movies.dat").write_bytes("1::Toy Story (1995)::Animation|Children's|Comedy\n".encode("latin-1"))
    (ml1m / "ratings.dat").write_text("1::1::5::978300760\n")
    assert import_movielens([ml1m], tmp_path / "b").counts["interactions"] == 1
    with pytest.raises(CrsimError, match="movies.dat is missing"):
        import_movielens([ml1m / "ratings.dat"], tmp_path / "c")


def test_bad_ratings(tmp_path):
    (tmp_path / "movies.csv").write_text("movieId,title,genres\n1,Toy Story (1995),Animation\n")
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("userId,movieId,rating,timestamp\n1,1,4.0,1\n1,1,7.0,2\n")
    with pytest.raises(CatalogError, match=r"ratings.csv, line 3, field 'rating': '7.0' is outside \[0.5, 5\]"):
        import_movielens([ratings, tmp_path / "movies.csv"], tmp_path / "cat")
    ratings.write_text("userId,movieId,rating,timestamp\n1,1,4.0,1\n1,9,4.0,2\nx,1,4.0,3\n1,1\n")
    report = import_movielens([tmp_path], tmp_path / "cat", MovieLensOptions(skip_bad=True))
    assert report.skipped == 3 and report.counts["interactions"] == 1
    assert report.problems == ["ratings.csv:3 field 'movieId': unknown movie id '9' (not in movies.csv)",
                               "ratings.csv:4 field 'userId': expected an integer, got 'x'",
                               "ratings.csv:5: expected 3 fields separated by ',', got 2"]
