"""Catalog statistics a synthetic world and a real catalog can be compared on.

A world is only a fair stand-in for Yelp or Amazon if its shape is in the same range:
how many reviews an item has, how long reviews are, how many aspects one review talks
about, how much of each item's attributes the catalog shows, and how many items an
attribute combination alone singles out (on the first world 2,997 of 3,000 restaurants
had a unique combination: five answers named the target). Aspects per review are counted
with the catalog's own mined aspect vocabulary (`environments.search.aspects`), so the
same measure applies to a world and to a review-only import.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, Field

from environments.catalog.store import Catalog


class Distribution(BaseModel):
    mean: float
    median: float
    p10: float
    p90: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Distribution:
        if not len(values):
            return cls(mean=0.0, median=0.0, p10=0.0, p90=0.0)
        array = np.asarray(values, dtype=float)
        p10, median, p90 = np.percentile(array, [10, 50, 90])
        return cls(mean=round(float(array.mean()), 3), median=float(median), p10=float(p10), p90=float(p90))


class CatalogStats(BaseModel):
    items: int
    reviews: int
    users: int
    reviews_per_item: Distribution
    reviews_per_user: Distribution
    sentences_per_review: Distribution
    words_per_review: Distribution
    aspects_per_review: Distribution | None = Field(default=None, description="Mined aspects named per review.")
    attributes_per_item: Distribution
    unique_attribute_combinations: float = Field(description="Share of items no other item shares all attributes with.")


def catalog_statistics(catalog: Catalog, aspect_terms: dict[str, str] | None = None) -> CatalogStats:
    """Shape statistics of `catalog`; `aspect_terms` (term -> aspect) enables aspects per review."""
    from environments.search.aspect_text import find_mentions, sentences, term_index, tokens

    per_item = Counter(r.item_id for r in catalog.reviews)
    per_user = Counter(r.user_id for r in catalog.reviews)
    index = term_index(aspect_terms) if aspect_terms is not None else None
    n_sentences, n_words, n_aspects = [], [], []
    for review in catalog.reviews:
        split = sentences(review.text)
        n_sentences.append(len(split))
        n_words.append(len(review.text.split()))
        if index is not None:
            named = {m.aspect for s in split for m in find_mentions(tokens(s), index)}
            n_aspects.append(len(named))
    signatures = Counter(_signature(item.attributes) for item in catalog.items)
    unique = sum(1 for item in catalog.items if signatures[_signature(item.attributes)] == 1)
    return CatalogStats(
        items=len(catalog.items), reviews=len(catalog.reviews), users=len(catalog.users),
        reviews_per_item=Distribution.of([per_item.get(item.id, 0) for item in catalog.items]),
        reviews_per_user=Distribution.of(list(per_user.values())),
        sentences_per_review=Distribution.of(n_sentences), words_per_review=Distribution.of(n_words),
        aspects_per_review=Distribution.of(n_aspects) if index is not None else None,
        attributes_per_item=Distribution.of([sum(1 for v in item.attributes.values() if v)
                                             for item in catalog.items]),
        unique_attribute_combinations=round(unique / max(1, len(catalog.items)), 4),
    )


def _signature(attributes: dict) -> str:
    return repr(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in attributes.items() if v))


def format_statistics(stats: CatalogStats) -> list[str]:
    """Lines for `crsim data info --stats` and the fidelity report."""
    lines = [f"items {stats.items:,}, reviews {stats.reviews:,}, users {stats.users:,}"]
    for name in ("reviews_per_item", "reviews_per_user", "sentences_per_review", "words_per_review",
                 "aspects_per_review", "attributes_per_item"):
        dist = getattr(stats, name)
        if dist is not None:
            lines.append(f"  {name.replace('_', ' '):<22} mean {dist.mean:>7.2f}   median {dist.median:>6.1f}"
                         f"   p10 {dist.p10:>6.1f}   p90 {dist.p90:>6.1f}")
    lines.append(f"  unique attribute combinations: {stats.unique_attribute_combinations:.1%} of items")
    return lines
