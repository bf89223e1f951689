import json

import numpy as np
import pytest

from environments.search import AttributeFilter, BM25Index


@pytest.fixture
def index(catalog, tmp_path):
    return BM25Index.build(catalog, cache_dir=tmp_path)


def test_lexical_match_ranks_first(index, catalog):
    assert index.search("cheap tacos", 3)[0][0] == "taqueria"
    assert index.search("margherita", 1)[0][0] == "trattoria"  # a word only a review has
    assert index.search("spicy curries", 1)[0][0] == "curry"  # stemmed: curries -> curri
    scores = index.scores("outdoor seating yes")
    assert scores.dtype == np.float32 and scores.shape == (len(catalog.items),)


def test_empty_or_stopword_query_scores_zero(index, catalog):
    for query in ("", "   ", "the and of", "?!"):
        scores = index.scores(query)
        assert scores.dtype == np.float32 and not scores.any(), query


def test_unknown_tokens_are_ignored(index):
    assert np.array_equal(index.scores("tacos zzqxv florbnak"), index.scores("tacos"))
    assert not index.scores("zzqxv").any()


def test_mask_gives_minus_inf_and_search_never_returns_masked(index, catalog):
    mask = AttributeFilter({"price_range": ["$$$"]}).mask(catalog)
    scores = index.scores("tacos", mask)
    assert np.isneginf(scores[~mask]).all() and np.isfinite(scores[mask]).all()
    assert [item for item, _ in index.search("tacos", 10, mask)] == ["sushi", "bistro"]


def test_search_is_sorted_with_ties_in_catalog_order(index, catalog):
    results = index.search("groups", 12)
    values = [score for _, score in results]
    assert values == sorted(values, reverse=True)
    assert [item for item, _ in index.search("", 4)] == catalog.item_ids[:4]
    assert index.search("tacos", 0) == []


def test_second_build_loads_from_cache(catalog, tmp_path, monkeypatch):
    first = BM25Index.build(catalog, cache_dir=tmp_path)
    entries = list((tmp_path / "bm25").iterdir())
    assert len(entries) == 1

    def no_rebuild(*args, **kwargs):
        raise AssertionError("index rebuilt instead of loaded")

    monkeypatch.setattr("environments.search.bm25.Tokenizer.corpus", no_rebuild)
    second = BM25Index.build(catalog, cache_dir=tmp_path)
    for query in ("cheap tacos", "romantic terrace wine", "groups"):
        assert np.array_equal(first.scores(query), second.scores(query))


def test_view_with_withheld_review_gets_its_own_entry(catalog, tmp_path):
    full = BM25Index.build(catalog, cache_dir=tmp_path)
    view = catalog.without_reviews(["seoul-r1"])  # the only mention of karaoke
    hidden = BM25Index.build(view, cache_dir=tmp_path)
    assert len(list((tmp_path / "bm25").iterdir())) == 2
    assert full.search("karaoke", 1)[0][0] == "seoul"
    assert not hidden.scores("karaoke").any()


def test_persist_false_writes_nothing(catalog, tmp_path):
    BM25Index.build(catalog, cache_dir=tmp_path, persist=False)
    assert not (tmp_path / "bm25").exists() or not any((tmp_path / "bm25").iterdir())


def test_query_tokenization_is_fast(catalog, tmp_path):
    """The per-turn path must not go through bm25s.tokenize (progress bars, ~0.2 ms)."""
    import time

    index = BM25Index.build(catalog, cache_dir=tmp_path)
    query = "I'd like a cheap place with tacos and outdoor seating for my kids"
    index.scores(query)
    start = time.perf_counter()
    for _ in range(200):
        index.scores(query)
    assert (time.perf_counter() - start) / 200 < 2e-3


def test_top_k_matches_a_full_stable_sort():
    from environments.search.bm25 import top_k

    rng = np.random.default_rng(0)
    ids = [f"i{n}" for n in range(200)]
    for trial in range(50):
        scores = rng.integers(0, 4, 200).astype(np.float32)  # many ties
        scores[rng.random(200) < 0.3] = -np.inf
        k = int(rng.integers(1, 220))
        order = np.argsort(-scores, kind="stable")
        expected = [(ids[i], float(scores[i])) for i in order[:k] if scores[i] > -np.inf]
        assert top_k(scores, ids, k) == expected, trial


def test_unusable_cache_entry_is_rebuilt(catalog, tmp_path):
    BM25Index.build(catalog, cache_dir=tmp_path)
    (entry,) = (tmp_path / "bm25").iterdir()
    (entry / "vocab.index.json").write_text("{not json")
    rebuilt = BM25Index.build(catalog, cache_dir=tmp_path)
    assert rebuilt.search("cheap tacos", 1)[0][0] == "taqueria"
    assert BM25Index.build(catalog, cache_dir=tmp_path).search("cheap tacos", 1)[0][0] == "taqueria"


def test_a_document_function_gets_its_own_entry_and_the_default_keeps_its_key(catalog, tmp_path):
    from environments.search.bm25 import BM25_PARAMS, TOKENIZER
    from environments.search.cache import content_key

    default = BM25Index.build(catalog, cache_dir=tmp_path)
    titles = BM25Index.build(catalog, cache_dir=tmp_path, document=lambda item, _reviews: item.title)
    keys = {entry.name for entry in (tmp_path / "bm25").iterdir()}
    assert content_key(catalog.fingerprint, json.dumps([TOKENIZER, BM25_PARAMS], sort_keys=True)) in keys
    assert len(keys) == 2
    assert default.search("margherita", 1)[0][0] == "trattoria"  # a review word
    assert not titles.scores("margherita").any()  # titles only
    assert titles.search("saigon", 1)[0][0] == "pho"
    again = BM25Index.build(catalog, cache_dir=tmp_path, document=lambda item, _reviews: item.title)
    assert np.array_equal(again.scores("palace roma"), titles.scores("palace roma"))
    assert len(list((tmp_path / "bm25").iterdir())) == 2


def test_top_positions_skips_minus_inf_and_keeps_ties_in_order():
    from environments.search.bm25 import top_positions

    scores = np.array([1.0, 3.0, -np.inf, 3.0, 0.0], dtype=np.float32)
    assert top_positions(scores, 3).tolist() == [1, 3, 0]
    assert top_positions(scores, 10).tolist() == [1, 3, 0, 4]
    assert top_positions(scores, 0).tolist() == []
