"""EASE in CRAG's asymmetric form: exact against a direct per-column solve, cached, re-scaled."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_matrix

import environments.search.ease as ease_module
from environments.catalog import Catalog
from environments.catalog.interactions import InteractionMatrix
from environments.errors import CrsimError
from environments.models import CatalogManifest, Item, SeenItem, UserProfile
from environments.search.ease import (
    EaseIndex, binarize, ease_weights, gram_matrix, positive_matrix, recent_popularity_scale,
)


def random_matrix(n_users: int = 90, n_items: int = 14, density: float = 0.3, seed: int = 0) -> csr_matrix:
    rng = np.random.default_rng(seed)
    return csr_matrix((rng.random((n_users, n_items)) < density).astype(np.float32))


def constrained_column(x: np.ndarray, column: int, lam: float) -> np.ndarray:
    """argmin_w ||x[:, column] − x w||² + λ||w||² with w[column] = 0, solved directly in float64."""
    others = [c for c in range(x.shape[1]) if c != column]
    a = x[:, others]
    w = np.zeros(x.shape[1])
    w[others] = np.linalg.solve(a.T @ a + lam * np.eye(len(others)), a.T @ x[:, column])
    return w


@pytest.mark.parametrize("lam", [2.0, 25.0])
def test_weights_equal_a_direct_constrained_least_squares_per_column(lam):
    r = random_matrix()
    targets = [0, 3, 4, 9, 13]  # Q ⊂ I: an asymmetric W, |I| x |Q|
    w = ease_weights(r, lam, targets)
    assert w.dtype == np.float32 and w.shape == (14, 5)
    dense = r.toarray().astype(np.float64)
    for j, column in enumerate(targets):
        assert w[column, j] == 0.0  # W[ReID(j), j] = 0, exactly
        np.testing.assert_allclose(w[:, j], constrained_column(dense, column, lam), atol=1e-5, rtol=0)


def test_full_weights_are_b_with_a_zero_diagonal():
    r = random_matrix(seed=3)
    b = ease_weights(r, 10.0)
    assert b.shape == (14, 14) and np.all(np.diagonal(b) == 0)
    np.testing.assert_allclose(b[:, [2, 7]], ease_weights(r, 10.0, [2, 7]), atol=1e-6)


def test_gram_matrix_is_assembled_correctly_across_column_blocks():
    r = random_matrix(n_items=11, seed=5)
    expected = r.toarray().T @ r.toarray() + 3.0 * np.eye(11)
    np.testing.assert_allclose(gram_matrix(r, 3.0, block=4), expected, atol=1e-5)


def test_lambda_must_be_positive():
    with pytest.raises(CrsimError, match="lambda"):
        ease_weights(random_matrix(), 0.0)


def interactions(matrix: csr_matrix, n_items: int | None = None) -> InteractionMatrix:
    n = matrix.shape[1] if n_items is None else n_items
    return InteractionMatrix(matrix, [f"u{i}" for i in range(matrix.shape[0])], [f"i{j}" for j in range(n)])


def test_index_scores_sum_the_rows_of_positive_mentions_and_skip_items_without_signal(tmp_path):
    r = random_matrix(n_items=10, seed=7).tolil()
    r[:, 6] = 0  # item 6 has no positive at all: outside I
    r = r.tocsr()
    r.eliminate_zeros()
    index = EaseIndex.build(interactions(r), lam=5.0, cache_dir=tmp_path)
    assert 6 not in index.active and len(index) == 9
    active = [c for c in range(10) if c != 6]
    w = ease_weights(r[:, active], 5.0)
    scores = index.scores([1, 3, 6, 3])  # a repeated mention counts once; item 6 adds nothing
    expected = np.zeros(10, np.float32)
    expected[active] = w[active.index(1)] + w[active.index(3)]
    np.testing.assert_allclose(scores, expected, atol=1e-6)
    assert scores[6] == 0.0 and index.scores([]).sum() == 0.0


def test_index_is_cached_by_content(tmp_path, monkeypatch):
    r = random_matrix(seed=11)
    first = EaseIndex.build(interactions(r), lam=8.0, cache_dir=tmp_path)
    assert len(list((tmp_path / "ease").iterdir())) == 1

    def refit(*args, **kwargs):
        raise AssertionError("fitted again instead of loading the cached weights")

    monkeypatch.setattr(ease_module, "ease_weights", refit)
    again = EaseIndex.build(interactions(r), lam=8.0, cache_dir=tmp_path)
    np.testing.assert_array_equal(first.weights, again.weights)
    with pytest.raises(AssertionError, match="fitted again"):  # another lambda is another entry
        EaseIndex.build(interactions(r), lam=9.0, cache_dir=tmp_path)


def test_recent_popularity_rescales_columns_towards_items_liked_lately():
    # items 0 and 1 are liked with item 2 equally often, but item 1 only by the latest users
    rows = [[1, 0, 1]] * 6 + [[0, 1, 1]] * 6
    r = csr_matrix(np.asarray(rows, np.float32))
    scale = recent_popularity_scale(r, 0.5, 1.0)
    np.testing.assert_allclose(scale, [1 / 7, 7 / 7, 7 / 13], rtol=1e-6)
    plain = EaseIndex.build(interactions(r), lam=1.0, persist=False)
    recent = EaseIndex.build(interactions(r), lam=1.0, recent_popularity=True, recent_share=0.5, persist=False)
    assert plain.scores([2])[0] == pytest.approx(plain.scores([2])[1])
    assert recent.scores([2])[1] > recent.scores([2])[0]
    with pytest.raises(CrsimError, match="recent_share"):
        recent_popularity_scale(r, 0.0, 1.0)


def test_binarize_keeps_signals_at_or_above_the_threshold():
    r = csr_matrix(np.asarray([[5.0, 3.5, 0.0], [4.0, -1.0, 1.0]], np.float32))
    np.testing.assert_array_equal(binarize(r, 4.0).toarray(), [[1, 0, 0], [1, 0, 0]])


def movie_catalog(users: list[UserProfile]) -> Catalog:
    items = [Item(id=f"m{i}", title=f"Movie {i}") for i in range(4)]
    return Catalog(CatalogManifest(name="m", domain="movie", item_noun="movies"), items, [], users)


def test_positive_matrix_falls_back_to_liked_history_when_the_catalog_has_no_interactions(tmp_path):
    users = [UserProfile(user_id="a", seen=[SeenItem(item_id="m0", rating=5), SeenItem(item_id="m2", rating=2)]),
             UserProfile(user_id="b", seen=[SeenItem(item_id="m1", rating=4), SeenItem(item_id="m3")]),
             UserProfile(user_id="c", seen=[SeenItem(item_id="m2", rating=1)])]
    catalog = movie_catalog(users)
    matrix = positive_matrix(catalog, seen_like_at=4.0)
    assert matrix.user_ids == ["a", "b"] and matrix.item_ids == ["m0", "m1", "m2", "m3"]
    np.testing.assert_array_equal(matrix.matrix.toarray(), [[1, 0, 0, 0], [0, 1, 0, 0]])

    directory = catalog.save(tmp_path / "cat")
    (directory / "interactions.jsonl").write_text(
        '{"user_id": "x", "item_id": "m3", "value": 1.0}\n{"user_id": "x", "item_id": "m1", "value": 0.0}\n')
    loaded = positive_matrix(Catalog.load(directory))  # interactions.jsonl wins over histories
    assert loaded.user_ids == ["x"]
    np.testing.assert_array_equal(loaded.matrix.toarray(), [[0, 0, 0, 1]])
