"""The text each index sees for an item.

Lexical and dense retrieval want different documents. BM25 profits from everything that
names the item's aspects, reviews included, because a seeker's words ("cozy", "patio")
often only occur there. The sentence encoder (MiniLM) truncates at 256 word pieces and
averages over what it reads, so its document is short and leads with what identifies the
item; reviews would drown the attributes and be cut off anyway.
"""

from __future__ import annotations

from collections.abc import Iterable

from environments.models import AttributeValue, Item, Review

# The dense document keeps this many characters of the description. MiniLM reads at
# most 256 word pieces (~1,000 characters), but embedding cost grows with length and is
# compute-bound on CPU (~24 documents/s at ~130 word pieces on two cores), while the
# title, attributes and first sentences carry most of what the mean-pooled vector says.
DENSE_DESCRIPTION_CHARS = 400


def _words(text: str) -> str:
    """Attribute keys and values are often identifiers (`outdoor_seating`); make words."""
    return text.replace("_", " ").strip()


def _values(value: AttributeValue) -> list[str]:
    return [value] if isinstance(value, str) else [str(part) for part in value]


def attribute_phrases(item: Item) -> list[str]:
    """One "aspect value" phrase per attribute value, e.g. "outdoor seating yes"."""
    phrases = []
    for aspect, value in item.attributes.items():
        for part in _values(value):
            phrases.append(f"{_words(aspect)} {_words(part)}")
    return phrases


def attribute_phrases_by_key(item: Item) -> list[str]:
    """One "aspect: value" field per attribute value, e.g. "price range: cheap"."""
    return [f"{_words(aspect)}: {_words(part)}" for aspect, value in item.attributes.items()
            for part in _values(value)]


def lexical_document(item: Item, reviews: Iterable[Review] = ()) -> str:
    """Title, category, "aspect value" pairs, description and review texts, one per line."""
    parts = [item.title, _words(item.category), *attribute_phrases(item), item.description]
    parts.extend(review.text for review in reviews)
    return "\n".join(part for part in parts if part)


def dense_document(item: Item) -> str:
    """A short, sentence-like description: "Title (category). aspect: value; ... Description"."""
    head = item.title
    if item.category:
        head += f" ({_words(item.category)})"
    attributes = "; ".join(
        f"{_words(aspect)}: {', '.join(_words(part) for part in _values(value))}"
        for aspect, value in item.attributes.items()
    )
    parts = [head + "."]
    if attributes:
        parts.append(attributes + ".")
    if item.description:
        parts.append(item.description[:DENSE_DESCRIPTION_CHARS])
    return " ".join(parts)
