"""Multi-vector dense scoring: each item is a set of field vectors, each query a set of utterances.

A single mean-pooled vector per item cannot say "greek AND trendy AND vegetarian": the
eight attribute phrases and the title blur into one point, and a concatenated dialogue
blurs the same way (on the default world, Hits@10 at turn 5 was 0.07). Scoring late
instead — every seeker utterance against every field of an item, keeping the item's best
field per utterance and summing over utterances (late interaction, as in ColBERT) —
rewards items that satisfy many stated preferences.

Fields are the item's attribute-value phrases ("cuisine: greek"), the sentences of its
reviews (where most of what a seeker asks for is written when the catalog shows few
attributes, as on Yelp, Amazon and the default worlds), and the item's dense document
vector from `DenseIndex` (description and title). Phrases and sentences repeat across
items (a world's 200k review sentences hold ~10k distinct ones), so each distinct text
is embedded once and cached. Membership is a sparse item × field matrix, so
per-utterance cost is O(non-zeros).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from environments.catalog import Catalog
from environments.search.aspect_text import sentences
from environments.search.dense import DenseIndex, embed_cached
from environments.search.documents import attribute_phrases_by_key
from environments.search.embeddings import encode_bulk


class MultiVectorIndex:
    def __init__(self, catalog: Catalog, encoder: object, dense: DenseIndex, phrases: list[str],
                 indptr: np.ndarray, indices: np.ndarray, phrase_vectors: np.ndarray | None = None):
        self.catalog = catalog
        self.encoder = encoder
        self.dense = dense
        self.phrases = phrases
        self.indptr = indptr
        self.indices = indices
        if phrase_vectors is None:
            phrase_vectors = encode_bulk(encoder, phrases) if phrases else np.zeros((0, dense.matrix.shape[1]), np.float32)
        self.phrase_vectors = phrase_vectors
        self._has_phrases = np.diff(indptr) > 0
        self._starts = np.minimum(indptr[:-1], max(len(indices) - 1, 0))

    @classmethod
    def build(cls, catalog: Catalog, encoder: object, cache_dir: str | None = None, *,
              review_sentences: int = 200) -> MultiVectorIndex:
        """`review_sentences`: at most this many distinct review sentences per item (0: none)."""
        dense = DenseIndex.build(catalog, encoder, cache_dir=cache_dir)
        texts, indptr, indices = field_table(catalog, review_sentences)
        vectors = (embed_cached(texts, encoder, cache_dir, show_progress=len(texts) > 1000, what="item fields")
                   if texts else None)
        return cls(catalog, encoder, dense, texts, indptr, indices, vectors)

    def field_scores(self, utterance_vector: np.ndarray) -> np.ndarray:
        """Per item: the best similarity between one utterance and any of the item's fields."""
        best = self.dense.matrix @ utterance_vector
        if len(self.indices):
            phrase_sims = (self.phrase_vectors @ utterance_vector)[self.indices]
            per_item = np.maximum.reduceat(phrase_sims, self._starts)
            best = np.where(self._has_phrases, np.maximum(best, per_item), best)
        return best

    def scores(self, utterances: Sequence[str]) -> np.ndarray:
        """Sum over utterances of each item's best field similarity (float32, catalog order)."""
        total = np.zeros(len(self.catalog.items), dtype=np.float32)
        texts = [u for u in utterances if u.strip()]
        if not texts:
            return total
        for vector in self.encoder.encode(texts):
            total += self.field_scores(vector)
        return total


def field_table(catalog: Catalog, review_sentences: int = 200) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Each item's fields as a CSR table over the distinct field texts: its attribute
    phrases and up to `review_sentences` distinct review sentences of three words or more.
    A text shared by items is embedded once (`scripts/bench_embedding.py` counts these)."""
    vocabulary: dict[str, int] = {}
    indptr, indices = [0], []
    for item in catalog.items:
        fields = list(attribute_phrases_by_key(item))
        if review_sentences:
            own = dict.fromkeys(s for review in catalog.reviews_by_item.get(item.id, [])
                                for s in sentences(review.text) if len(s.split()) >= 3)
            fields += list(own)[:review_sentences]
        columns = {vocabulary.setdefault(field, len(vocabulary)) for field in fields}
        indices.extend(sorted(columns))
        indptr.append(len(indices))
    return list(vocabulary), np.asarray(indptr, np.int64), np.asarray(indices, np.int64)
