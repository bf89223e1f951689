import numpy as np
import pytest

from environments.catalog.store import Catalog
from environments.search import AttributeFilter, BM25Index, DenseIndex
from environments.search import dense as dense_module

PARAPHRASE = "somewhere to eat noodle soup from Vietnam"


def test_second_build_loads_from_disk_without_encoding(catalog, counting_encoder, tmp_path):
    first = DenseIndex.build(catalog, counting_encoder, cache_dir=tmp_path, show_progress=False)
    embedded = counting_encoder.texts
    assert embedded == len(catalog.items)
    second = DenseIndex.build(catalog, counting_encoder, cache_dir=tmp_path)
    assert counting_encoder.texts == embedded
    assert np.array_equal(first.matrix, second.matrix)
    assert len(list((tmp_path / "dense").glob("*.npy"))) == 1


def test_cache_key_follows_documents_and_model(catalog, counting_encoder, tmp_path):
    DenseIndex.build(catalog, counting_encoder, cache_dir=tmp_path)
    # dense documents hold no reviews: a view with a withheld review reuses the entry ...
    DenseIndex.build(catalog.without_reviews(["pho-r0"]), counting_encoder, cache_dir=tmp_path)
    assert counting_encoder.texts == len(catalog.items)
    # ... while a changed item or another model does not
    items = [item.model_copy(update={"description": "Now serving ramen."}) if item.id == "sushi" else item
             for item in catalog.items]
    DenseIndex.build(Catalog(catalog.manifest, items, catalog.reviews), counting_encoder, cache_dir=tmp_path)
    DenseIndex.build(catalog, type(counting_encoder)(model_id="other"), cache_dir=tmp_path)
    assert len(list((tmp_path / "dense").glob("*.npy"))) == 3


def test_scores_search_and_masks(catalog, counting_encoder, tmp_path):
    index = DenseIndex.build(catalog, counting_encoder, cache_dir=tmp_path)
    scores = index.scores("tacos al pastor")
    assert scores.dtype == np.float32 and scores.shape == (len(catalog.items),)
    assert np.array_equal(scores, index.scores_for_vector(index.embed("tacos al pastor")))
    top = index.search("tacos al pastor", 3)
    assert top[0][0] == "taqueria" and top[0][1] == pytest.approx(scores.max(), abs=1e-5)

    mask = AttributeFilter({"cuisine": ["italian", "french"]}).mask(catalog)
    masked = index.scores("tacos al pastor", mask)
    assert np.isneginf(masked[~mask]).all() and np.isfinite(masked[mask]).all()
    assert {item for item, _ in index.search("tacos al pastor", 10, mask)} == {"trattoria", "bistro"}
    assert index.search("tacos", 0) == []


def test_matrix_outlives_the_index(catalog, counting_encoder, tmp_path):
    import gc

    matrix = DenseIndex.build(catalog, counting_encoder, cache_dir=tmp_path).matrix
    gc.collect()
    assert matrix.shape == (len(catalog.items), counting_encoder.dim)
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    assert not matrix.flags.writeable


def test_hnsw_path_above_threshold(catalog, counting_encoder, tmp_path, monkeypatch):
    monkeypatch.setattr(dense_module, "HNSW_THRESHOLD", 5)
    index = DenseIndex.build(catalog, counting_encoder, cache_dir=tmp_path)
    assert not index.is_exact
    assert index.search("tacos al pastor", 1)[0][0] == "taqueria"
    mask = AttributeFilter({"price_range": ["$$$"]}).mask(catalog)
    exact_subset = index.search("tacos al pastor", 5, mask)
    monkeypatch.setattr(dense_module, "EXACT_SUBSET_LIMIT", 0)  # force the faiss selector path
    via_faiss = index.search("tacos al pastor", 5, mask)
    assert [i for i, _ in via_faiss] == [i for i, _ in exact_subset]
    assert {i for i, _ in via_faiss} == {"sushi", "bistro"}
    assert len(list((tmp_path / "dense").glob("*.faiss"))) == 1
    reloaded = DenseIndex.build(catalog, counting_encoder, cache_dir=tmp_path)
    assert reloaded._faiss.ntotal == len(catalog.items) and not reloaded.is_exact


def test_document_function_and_exact_index_above_threshold(catalog, counting_encoder, tmp_path, monkeypatch):
    monkeypatch.setattr(dense_module, "HNSW_THRESHOLD", 5)
    titles = DenseIndex.build(catalog, counting_encoder, cache_dir=tmp_path, document=lambda item: item.title,
                              exact=True)
    assert titles.is_exact and not list((tmp_path / "dense").glob("*.faiss"))
    assert titles.search("saigon", 1)[0][0] == "pho"
    assert titles.scores("tacos pastor").max() == 0.0  # only the description says tacos
    DenseIndex.build(catalog, counting_encoder, cache_dir=tmp_path, exact=True)
    assert len(list((tmp_path / "dense").glob("*.npy"))) == 2  # own entry per document function


@pytest.mark.slow
def test_dense_finds_a_paraphrase_with_no_shared_words(catalog, minilm, tmp_path):
    lexical = BM25Index.build(catalog, cache_dir=tmp_path)
    assert lexical.scores(PARAPHRASE)[catalog.item_index["pho"]] == 0  # no shared stem at all

    index = DenseIndex.build(catalog, minilm, cache_dir=tmp_path, show_progress=False)
    assert index.search(PARAPHRASE, 1)[0][0] == "pho"
    assert index.search("raw fish for a fancy date night", 1)[0][0] == "sushi"
    scores = index.scores(PARAPHRASE)
    assert scores.max() <= 1.0 + 1e-5 and int(np.argmax(scores)) == catalog.item_index["pho"]
