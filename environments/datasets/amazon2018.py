"""Amazon review data (2018, Ni, Li & McAuley): `<Category>.json.gz` + `meta_<Category>.json.gz`.

Review lines: reviewerID, asin, overall (1-5), reviewText, summary, vote ("1,234" as a
string), verified, style, unixReviewTime. Metadata lines: asin, title, brand, category
(a path, top level first), main_cat, description (paragraphs), feature (bullets),
details, price, rank, also_buy, also_view, date. `style` (size/colour of the bought
variant) has no place in `Review` and is not kept.
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

EXTRA_FIELDS = ("price", "main_cat", "rank", "date", "also_buy", "also_view")


def parse_review(row: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    user_id = req_str(row, "reviewerID")
    asin = req_str(row, "asin")
    rating = req_number(row, "overall", 1, 5)
    text = review_text(opt_str(row, "summary"), opt_str(row, "reviewText"))
    votes = opt_int(row, "vote")
    verified = opt_bool(row, "verified")
    timestamp = row.get("unixReviewTime")
    if timestamp is not None and type(timestamp) is not int:
        raise BadRow("unixReviewTime", f"expected Unix seconds, got {timestamp!r}")
    review = {"id": f"{user_id}_{asin}_{timestamp if timestamp is not None else ''}", "item_id": asin,
              "user_id": user_id, "rating": rating, "text": text, "helpful_votes": votes, "timestamp": timestamp}
    return review, verified


def meta_item(row: dict[str, Any]) -> Item:
    asin = req_str(row, "asin")
    title = strip_tags(opt_str(row, "title")) or asin
    categories = opt_list_of_str(row, "category")
    main = strip_tags(opt_str(row, "main_cat"))  # some categories hold an <img> tag here
    description, details = meta_lists(row)
    features = opt_list_of_str(row, "feature")
    attributes, prose = product_attributes("brand", opt_str(row, "brand"), categories, details, features)
    text = " ".join([strip_tags(" ".join(description)), *prose]).strip()
    extra = {key: row[key] for key in EXTRA_FIELDS if row.get(key) not in (None, "", [])}
    return Item(id=asin, title=title, category=main or (strip_tags(categories[0]) if categories else ""),
                attributes=attributes, description=text, extra=extra)


SCHEMA = AmazonSchema("amazon2018", parse_review, meta_item)


def import_amazon2018(reviews: Path, out: Path, options: AmazonOptions | None = None) -> ImportReport:
    """Import an Amazon 2018 review file (and `options.meta`) into the catalog directory `out`."""
    return import_amazon(SCHEMA, Path(reviews), Path(out), options or AmazonOptions())


def _run(paths: dict, out: Path, options: ImportOptions) -> ImportReport:
    return import_amazon2018(paths["reviews"], out, options)  # type: ignore[arg-type]


FORMAT = DatasetFormat(
    name="amazon2018",
    summary="Amazon review data 2018: <Category>.json(.gz) reviews, --meta meta_<Category>.json(.gz)",
    paths=(PathArg("reviews", "review file (one review per line)"),),
    options=AmazonOptions,
    run=_run,
)
