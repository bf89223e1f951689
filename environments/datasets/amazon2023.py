"""Amazon Reviews 2023 (Hou et al., McAuley lab): `<Category>.jsonl(.gz)` + `meta_<Category>.jsonl(.gz)`.

Review lines: user_id, asin, parent_asin, rating (1-5), title, text, helpful_vote,
verified_purchase, timestamp (milliseconds), images. Products are identified by
`parent_asin` (the metadata's key; variants share it). Metadata lines: parent_asin,
title, main_category, store, categories, features, description, details, price,
average_rating, rating_number, bought_together.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from environments.datasets.amazon import AmazonOptions, AmazonSchema, import_amazon, meta_lists, product_attributes
from environments.datasets.base import BadRow, DatasetFormat, ImportOptions, ImportReport, PathArg
from environments.datasets.fields import opt_bool, opt_int, opt_list_of_str, opt_str, req_number, req_str
from environments.datasets.normalize import strip_tags
from environments.datasets.reviews import review_text
from environments.models import Item

EXTRA_FIELDS = ("price", "main_category", "average_rating", "rating_number", "bought_together")


def parse_review(row: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    user_id = req_str(row, "user_id")
    item_id = req_str(row, "parent_asin")
    rating = req_number(row, "rating", 1, 5)
    text = review_text(opt_str(row, "title"), opt_str(row, "text"))
    votes = opt_int(row, "helpful_vote")
    verified = opt_bool(row, "verified_purchase")
    millis = row.get("timestamp")
    if millis is not None and type(millis) is not int:
        raise BadRow("timestamp", f"expected Unix milliseconds, got {millis!r}")
    review = {"id": f"{user_id}_{item_id}_{millis if millis is not None else ''}", "item_id": item_id,
              "user_id": user_id, "rating": rating, "text": text, "helpful_votes": votes,
              "timestamp": millis // 1000 if millis is not None else None}
    return review, verified


def meta_item(row: dict[str, Any]) -> Item:
    item_id = req_str(row, "parent_asin")
    title = strip_tags(opt_str(row, "title")) or item_id
    main = opt_str(row, "main_category")
    categories = opt_list_of_str(row, "categories")
    description, details = meta_lists(row)
    features = opt_list_of_str(row, "features")
    # 2023's `categories` does not repeat the main category, so the whole path is kept.
    attributes, prose = product_attributes("store", opt_str(row, "store"), ["", *categories], details, features)
    text = " ".join([strip_tags(" ".join(description)), *prose]).strip()
    extra = {key: row[key] for key in EXTRA_FIELDS if row.get(key) not in (None, "", [])}
    return Item(id=item_id, title=title, category=main or (categories[0] if categories else ""),
                attributes=attributes, description=text, extra=extra)


SCHEMA = AmazonSchema("amazon2023", parse_review, meta_item)


def import_amazon2023(reviews: Path, out: Path, options: AmazonOptions | None = None) -> ImportReport:
    """Import an Amazon Reviews 2023 file (and `options.meta`) into the catalog directory `out`."""
    return import_amazon(SCHEMA, Path(reviews), Path(out), options or AmazonOptions())


def _run(paths: dict, out: Path, options: ImportOptions) -> ImportReport:
    return import_amazon2023(paths["reviews"], out, options)  # type: ignore[arg-type]


FORMAT = DatasetFormat(
    name="amazon2023",
    summary="Amazon Reviews 2023: <Category>.jsonl(.gz) reviews, --meta meta_<Category>.jsonl(.gz)",
    paths=(PathArg("reviews", "review file (one review per line)"),),
    options=AmazonOptions,
    run=_run,
)
