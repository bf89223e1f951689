"""Yelp Open Dataset: `business.json` + `review.json` -> a restaurant catalog.

Both files have one JSON object per line. Businesses become items (id = business_id),
their categories and attributes become aspects; reviews stream into `reviews.jsonl`
(id = review_id). The selection reproduces SnipRec's: one city, "food" in the
categories, at least 10 reviews by business.json's own `review_count` (so no second
pass over the review file is needed). Reviews of businesses outside the selection are
counted as filtered; a review naming a business that is not in business.json at all
is a bad row.

Yelp writes attribute values as Python literals inside JSON strings: "True",
"u'free'", "'beer_and_wine'", "{'garage': False, 'street': True}", "None". They are
decoded here: booleans become "yes"/"no", quoted strings their text with underscores
as spaces, dicts the list of keys that are true (Ambience -> ["casual", "trendy"]),
"None" is dropped. `RestaurantsPriceRange2` 1-4 becomes price_range cheap / moderate
/ expensive / very expensive.
"""

from __future__ import annotations

import ast
import re
import time
from pathlib import Path
from typing import Any

from pydantic import Field

from environments.catalog.store import ITEMS
from environments.datasets.base import BadRow, DatasetFormat, ImportOptions, ImportReport, PathArg, RowErrors
from environments.datasets.fields import iso_timestamp, opt_dict, opt_int, opt_str, req_number, req_str
from environments.datasets.normalize import aspect_key
from environments.datasets.readers import iter_json_objects
from environments.datasets.reviews import ReviewStream
from environments.datasets.writer import CatalogWriter, commit_import
from environments.models import AttributeValue, Item

#: Yelp attribute keys -> aspect names a seeker can say; others go through `aspect_key`.
KEYS = {
    "RestaurantsPriceRange2": "price_range", "WiFi": "wifi", "HasTV": "tv", "BusinessParking": "parking",
    "BusinessAcceptsCreditCards": "accepts_credit_cards", "BusinessAcceptsBitcoin": "accepts_bitcoin",
    "RestaurantsTakeOut": "takeout", "RestaurantsDelivery": "delivery", "RestaurantsReservations": "reservations",
    "RestaurantsGoodForGroups": "good_for_groups", "RestaurantsAttire": "attire",
    "RestaurantsTableService": "table_service", "RestaurantsCounterService": "counter_service",
    "BYOB": "byob", "BYOBCorkage": "byob_corkage", "Open24Hours": "open_24_hours",
}
PRICE_RANGE = {"1": "cheap", "2": "moderate", "3": "expensive", "4": "very expensive"}
_QUOTED = re.compile(r"^u?(['\"])(.*)\1$", re.DOTALL)
#: business.json fields kept in Item.extra (what is not an aspect but may matter later).
EXTRA_FIELDS = ("address", "city", "state", "postal_code", "latitude", "longitude", "stars", "review_count",
                "is_open", "hours")


class YelpOptions(ImportOptions):
    city: str | None = Field(default=None, description=(
        "Keep businesses in this city (case-insensitive); default: all cities."))
    state: str | None = Field(default=None, description="Keep businesses in this state/province code, e.g. PA.")
    categories: list[str] = Field(default_factory=lambda: ["food"], description=(
        "Keep businesses whose categories contain one of these words (case-insensitive substring; "
        "SnipRec: food). Give none to keep every category."))
    min_reviews: int = Field(default=10, ge=0, description=(
        "Keep businesses with at least this many reviews (business.json review_count)."))
    open_only: bool = Field(default=False, description="Keep only businesses marked is_open=1.")


def attribute_key(key: str) -> str:
    if key in KEYS:
        return KEYS[key]
    name = aspect_key(key)
    for prefix in ("restaurants_", "business_"):
        if name.startswith(prefix) and len(name) > len(prefix):
            return name[len(prefix):]
    return name


def attribute_value(raw: Any) -> AttributeValue | None:
    """Decode one Yelp attribute value (see the module docstring); None when it says nothing."""
    if raw is None:
        return None
    if isinstance(raw, bool):
        return "yes" if raw else "no"
    if isinstance(raw, (int, float)):
        return str(raw)
    if isinstance(raw, dict):
        true_keys = [str(k).replace("_", " ") for k, v in raw.items() if v is True or v == "True"]
        return true_keys or None
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    if text in {"", "None", "null", "none"}:
        return None
    if text in {"True", "False"}:
        return "yes" if text == "True" else "no"
    if text.startswith("{"):
        try:
            parsed = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return None
        return attribute_value(parsed) if isinstance(parsed, dict) else None
    quoted = _QUOTED.match(text)
    if quoted:
        text = quoted.group(2).strip()
        if text in {"", "None", "none"}:
            return None
    return text.replace("_", " ")


def business_attributes(categories: list[str], raw: dict[str, Any]) -> dict[str, AttributeValue]:
    attributes: dict[str, AttributeValue] = {}
    if categories:
        attributes["categories"] = categories
    for key, value in raw.items():
        name = attribute_key(str(key))
        decoded = attribute_value(value)
        if name == "price_range" and isinstance(decoded, str):
            decoded = PRICE_RANGE.get(decoded, decoded)
        if name and decoded is not None and name not in attributes:
            attributes[name] = decoded
    return attributes


def _categories(row: dict[str, Any]) -> list[str]:
    value = row.get("categories")
    if value is None:
        return []
    if type(value) is str:
        return [part.strip() for part in value.split(",") if part.strip()]
    if type(value) is list and all(type(v) is str for v in value):
        return [v.strip() for v in value if v.strip()]
    raise BadRow("categories", f"expected a comma-separated string, got {type(value).__name__}")


def business_item(row: dict[str, Any]) -> tuple[Item, list[str]]:
    """The item for one business.json row, and its category list (for the selection)."""
    business_id = req_str(row, "business_id")
    name = req_str(row, "name")
    categories = _categories(row)
    for key in ("city", "state"):
        opt_str(row, key)
    if row.get("stars") is not None:
        req_number(row, "stars", 0, 5)
    opt_int(row, "review_count")
    attributes = business_attributes(categories, opt_dict(row, "attributes"))
    lowered = [c.lower() for c in categories]
    category = "restaurant" if "restaurants" in lowered else (lowered[0] if lowered else "")
    extra = {key: row[key] for key in EXTRA_FIELDS if row.get(key) is not None}
    return Item(id=business_id, title=name, category=category, attributes=attributes, extra=extra), categories


def selected(row: dict[str, Any], categories: list[str], options: YelpOptions) -> str | None:
    """Why a business is left out, or None if it is kept."""
    if options.city and opt_str(row, "city").strip().lower() != options.city.strip().lower():
        return "businesses outside the city"
    if options.state and opt_str(row, "state").strip().lower() != options.state.strip().lower():
        return "businesses outside the state"
    if options.categories:
        joined = ", ".join(categories).lower()
        if not any(word.lower() in joined for word in options.categories):
            return "businesses outside the categories"
    if opt_int(row, "review_count") < options.min_reviews:
        return "businesses with too few reviews"
    if options.open_only and opt_int(row, "is_open", 1) != 1:
        return "closed businesses"
    return None


def import_yelp(business: Path, reviews: Path, out: Path, options: YelpOptions | None = None) -> ImportReport:
    """Import a Yelp Open Dataset business/review pair into the catalog directory `out`."""
    options = options or YelpOptions()
    started = time.perf_counter()
    errors = RowErrors(options.skip_bad)
    with CatalogWriter(out, force=options.force) as writer:
        items = writer.sink(ITEMS)
        known: set[str] = set()
        kept: set[str] = set()
        filtered: dict[str, int] = {}
        for line_no, row in iter_json_objects(business, errors, options.progress):
            try:
                item, categories = business_item(row)
                if item.id in known:
                    raise BadRow("business_id", f"duplicate business id '{item.id}'")
                reason = selected(row, categories, options)
            except BadRow as exc:
                errors.row(business, line_no, exc)
                continue
            known.add(item.id)
            if reason:
                filtered[reason] = filtered.get(reason, 0) + 1
                continue
            kept.add(item.id)
            items.write_model(item)

        def parse(row: dict[str, Any]) -> dict[str, Any] | str:
            # The common case is checked inline (this runs once per review); the field
            # helpers run only to find out what is wrong with a bad row.
            get = row.get
            review_id, user_id, business_id, stars, text, helpful, date = (
                get("review_id"), get("user_id"), get("business_id"), get("stars"), get("text"), get("useful", 0),
                get("date"))
            if not (type(review_id) is str and review_id and type(user_id) is str and user_id
                    and type(business_id) is str and business_id and type(date) is str):
                req_str(row, "review_id"), req_str(row, "user_id"), req_str(row, "business_id"), req_str(row, "date")
            rating = float(stars) if type(stars) in (int, float) and 1 <= stars <= 5 else req_number(row, "stars", 1, 5)
            if type(text) is not str:
                raise BadRow("text", "missing" if text is None else f"expected a string, got {type(text).__name__}")
            if type(helpful) is not int:
                helpful = opt_int(row, "useful")
            timestamp = iso_timestamp(date, "date")
            if business_id not in kept:
                if business_id in known:
                    return "reviews of businesses outside the selection"
                raise BadRow("business_id", f"unknown business '{business_id}' (not in {Path(business).name})")
            return {"id": review_id, "item_id": business_id, "user_id": user_id, "rating": rating, "text": text,
                    "helpful_votes": helpful, "timestamp": timestamp}

        stream = ReviewStream(writer, errors)
        stream.consume(Path(reviews), iter_json_objects(reviews, errors, options.progress), parse)
        stream.write_users()
        filtered.update(stream.filtered)
        return commit_import(writer, format_name="yelp", domain="restaurant", item_noun="restaurants",
                             options=options, sources=[Path(business), Path(reviews)], errors=errors,
                             started=started, rows_read=stream.rows_read, filtered=filtered)


def _run(paths: dict, out: Path, options: ImportOptions) -> ImportReport:
    return import_yelp(paths["business"], paths["reviews"], out, options)  # type: ignore[arg-type]


FORMAT = DatasetFormat(
    name="yelp",
    summary="Yelp Open Dataset: business.json + review.json (SnipRec's selection: city, food, >= 10 reviews)",
    paths=(PathArg("business", "business.json (one business per line)"),
           PathArg("reviews", "review.json (one review per line)")),
    options=YelpOptions,
    run=_run,
)
