"""`interactions.jsonl` and its loader: the sparse matrix CF agents get."""

from __future__ import annotations

import json

import numpy as np
import pytest

from environments.catalog.interactions import Interaction, load_interactions
from environments.errors import CatalogError


@pytest.fixture
def interactions(tmp_path):
    rows = [Interaction(user_id="u1", item_id="a", value=1.0, source="redial"),
            Interaction(user_id="u2", item_id="b", value=4.5, source="movielens"),
            Interaction(user_id="u1", item_id="a", value=0.5, source="redial"),  # repeated pair: the max stays
            Interaction(user_id="u2", item_id="c", value=2.0, source="movielens")]
    path = tmp_path / "interactions.jsonl"
    path.write_text("".join(row.model_dump_json() + "\n" for row in rows) + "\n")
    return path


def test_matrix_ids_and_duplicates(interactions):
    matrix = load_interactions(interactions)
    assert matrix.user_ids == ["u1", "u2"] and matrix.item_ids == ["a", "b", "c"]
    assert matrix.matrix.toarray().tolist() == [[1.0, 0.0, 0.0], [0.0, 4.5, 2.0]]
    assert matrix.matrix.format == "csr" and matrix.user_index["u2"] == 1


def test_catalog_columns_sources_and_binarizing(interactions):
    matrix = load_interactions(interactions.parent, item_ids=["c", "b", "a", "z"])
    assert matrix.shape == (2, 4) and matrix.matrix[1, 0] == 2.0
    ratings = load_interactions(interactions, sources=["movielens"], binarize_at=4.0)
    assert ratings.user_ids == ["u2"] and np.array_equal(ratings.matrix.toarray(), [[1.0]])
    with pytest.raises(CatalogError, match=r"line 2, field 'item_id': unknown item id 'b'"):
        load_interactions(interactions, item_ids=["a", "c"])
    assert load_interactions(interactions, item_ids=["a", "c"], unknown_items="skip").matrix.nnz == 2


def test_bad_lines_are_located(tmp_path):
    path = tmp_path / "interactions.jsonl"
    for line, field in (({"user_id": 1, "item_id": "a"}, "user_id"), ({"user_id": "u", "item_id": "a",
                                                                      "value": "1"}, "value"),
                        ({"user_id": "u", "item_id": "a", "weight": 1}, "weight"), ({"user_id": "u"}, "item_id")):
        path.write_text(json.dumps({"user_id": "u", "item_id": "a"}) + "\n" + json.dumps(line) + "\n")
        with pytest.raises(CatalogError) as err:
            load_interactions(path)
        assert (err.value.line, err.value.field) == (2, field)
    path.write_text("{not json\n")
    with pytest.raises(CatalogError, match="line 1: invalid JSON"):
        load_interactions(path)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert load_interactions(empty).shape == (0, 0)
