"""Turning source fields into catalog attributes (aspect -> value) and matching movie titles.

Agents treat `Item.attributes` as the aspects a seeker can state and a recommender can
ask about: keys become "the price range", values are said as-is ("moderate"). Sources
name them for machines (`RestaurantsPriceRange2`, `"Item Weight:"`, `u'beer_and_wine'`),
so adapters pass keys through `aspect_key` and values through `clean_value`.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from environments.models import AttributeValue

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NON_WORD = re.compile(r"[^0-9a-zA-Z]+")
_TAG = re.compile(r"<[^>]*>")
_SPACES = re.compile(r"\s+")

#: Attribute values longer than this are prose, not an aspect value; they are left out.
MAX_VALUE_CHARS = 80


def aspect_key(key: str) -> str:
    """'RestaurantsPriceRange2' -> 'restaurants_price_range2', 'Item Weight:' -> 'item_weight'."""
    key = _CAMEL.sub("_", key.strip().rstrip(":").strip())
    return _NON_WORD.sub("_", key).strip("_").lower()


def strip_tags(text: str) -> str:
    return _SPACES.sub(" ", _TAG.sub(" ", text)).strip()


def clean_value(value: Any) -> AttributeValue | None:
    """An attribute value as a string or list of strings; None when it says nothing.

    Booleans become "yes"/"no", numbers their text, lists keep their non-empty string
    parts; empty values and prose longer than `MAX_VALUE_CHARS` are dropped.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, str):
        text = strip_tags(value)
        return text if text and len(text) <= MAX_VALUE_CHARS else None
    if isinstance(value, list):
        parts = [clean_value(part) for part in value if not isinstance(part, (list, dict))]
        flat = list(dict.fromkeys(p for p in parts if isinstance(p, str)))
        return flat or None
    return None


def add_attribute(attributes: dict[str, AttributeValue], key: str, value: Any) -> None:
    """Set `attributes[aspect_key(key)]` to the cleaned value, unless it is empty or already set."""
    name = aspect_key(key)
    cleaned = clean_value(value)
    if name and cleaned is not None and name not in attributes:
        attributes[name] = cleaned


_FEATURE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9 &/()'-]{0,40}?)\s*[:：]\s*(.+?)\s*$")


def split_feature(text: str) -> tuple[str, str] | None:
    """'Material: 100% cotton' -> ('material', '100% cotton'); prose bullets give None."""
    match = _FEATURE.match(strip_tags(text))
    if not match or len(match.group(2)) > MAX_VALUE_CHARS:
        return None
    return aspect_key(match.group(1)), match.group(2)


# ------------------------------------------------------------------ movie titles
_YEAR = re.compile(r"\s*\((\d{4})(?:[-–]\d{0,4})?\)\s*$")
_PARENS = re.compile(r"\([^)]*\)")
_ARTICLE_AT_END = re.compile(r"^(.*?),\s*(the|a|an|les|la|le|l'|il|el|das|der|die|los|las)$", re.IGNORECASE)


def title_year(title: str) -> tuple[str, int | None]:
    """('Toy Story', 1995) from 'Toy Story (1995)'; the year is None when absent."""
    match = _YEAR.search(title)
    if not match:
        return title.strip(), None
    return title[: match.start()].strip(), int(match.group(1))


def normalize_title(title: str) -> str:
    """A key under which the same film matches across ReDial and MovieLens.

    MovieLens writes 'Matrix, The (1999)' and adds alternative titles in parentheses
    ('Seven (a.k.a. Se7en) (1995)'); ReDial writes 'The Matrix (1999)' and sometimes
    doubles spaces. The key is the lower-cased, accent-free title with the article put
    back in front, parentheses and punctuation dropped, '&' read as 'and', plus the year.
    """
    base, year = title_year(title)
    base = _PARENS.sub(" ", base).strip()
    moved = _ARTICLE_AT_END.match(base)
    if moved:
        base = f"{moved.group(2)} {moved.group(1)}"
    base = unicodedata.normalize("NFKD", base).encode("ascii", "ignore").decode()
    base = base.lower().replace("&", " and ")
    base = _SPACES.sub(" ", _NON_WORD.sub(" ", base)).strip()
    return f"{base} ({year})" if year else base
