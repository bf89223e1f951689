"""What the two Amazon review formats share: product attributes and the import flow.

Both releases ship a review file (one JSON object per line, usually gzipped) and an
optional metadata file keyed by product id; they differ in field names, handled by
`amazon2018.py` and `amazon2023.py`. Reviews carry no id of their own, so a review's
id is `<user>_<product>_<time>`, stable across re-imports of the same file.

With metadata, items are the metadata products that keep at least one review (or all
of them with `keep_unreviewed`); reviews of products without metadata are filtered.
Without it, items are the reviewed product ids with the id as title. `min_reviews`
above 1 needs the review count before any review is written, so it costs a first,
counting pass over the review file.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field

from environments.catalog.store import ITEMS
from environments.datasets.base import BadRow, ImportOptions, ImportReport, RowErrors
from environments.datasets.fields import opt_dict, opt_list_of_str
from environments.datasets.normalize import add_attribute, aspect_key, split_feature, strip_tags
from environments.datasets.readers import iter_json_objects
from environments.datasets.reviews import ReviewStream
from environments.datasets.writer import CatalogWriter, commit_import
from environments.errors import CrsimError
from environments.models import AttributeValue, Item

#: `details` keys (after `aspect_key`) that identify or measure a product rather than
#: describe something a shopper would ask for.
DETAIL_DENYLIST = frozenset({
    "asin", "upc", "ean", "isbn_10", "isbn_13", "item_model_number", "model_number", "part_number",
    "manufacturer_part_number", "date_first_available", "best_sellers_rank", "amazon_best_sellers_rank",
    "customer_reviews", "average_customer_review", "package_dimensions", "product_dimensions",
    "item_dimensions_lxwxh", "item_weight", "package_weight", "shipping_weight", "is_discontinued_by_manufacturer",
    "batteries_required", "batteries_included", "global_trade_identification_number", "domestic_shipping",
    "international_shipping", "release_date",
})


class AmazonOptions(ImportOptions):
    meta: Path | None = Field(default=None, description="Metadata file (one product per line; .gz is fine).")
    categories: list[str] = Field(default_factory=list, description=(
        "Keep products whose main category or category path contains one of these "
        "(case-insensitive substring; needs --meta)."))
    min_reviews: int = Field(default=1, ge=1, description=(
        "Keep products with at least this many reviews (above 1 costs a counting pass over the review file)."))
    verified_only: bool = Field(default=False, description="Keep only verified-purchase reviews.")
    keep_unreviewed: bool = Field(default=False, description="Keep metadata products that have no kept review.")


@dataclass(frozen=True, slots=True)
class AmazonSchema:
    """One release's field mapping."""

    name: str
    parse_review: Callable[[dict[str, Any]], tuple[dict[str, Any], bool]]  # (Review dict, verified)
    meta_item: Callable[[dict[str, Any]], Item]


def product_attributes(brand_key: str, brand: str, categories: list[str], details: dict[str, Any],
                       features: list[str]) -> tuple[dict[str, AttributeValue], list[str]]:
    """Aspects of a product, and the feature bullets that are prose (for the description).

    Brand (or store), the category path below the top level, `details` key-values
    (minus identifiers and measurements, see `DETAIL_DENYLIST`) and feature bullets
    written as 'Key: value'.
    """
    attributes: dict[str, AttributeValue] = {}
    if brand.strip():
        add_attribute(attributes, brand_key, brand.strip())
    path = [strip_tags(c) for c in categories[1:] if strip_tags(c)]
    if path:
        attributes["categories"] = path
    for key, value in details.items():
        name = aspect_key(str(key))
        if name in DETAIL_DENYLIST or isinstance(value, dict):
            continue
        add_attribute(attributes, name, value.strip() if isinstance(value, str) else value)
    prose = []
    for bullet in features:
        pair = split_feature(bullet)
        if pair and pair[0] not in DETAIL_DENYLIST:
            add_attribute(attributes, *pair)
        elif strip_tags(bullet):
            prose.append(strip_tags(bullet))
    return attributes, prose


def meta_lists(row: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """`description` (a list of paragraphs, or a string) and `details` of a metadata row."""
    return opt_list_of_str(row, "description"), opt_dict(row, "details")


def _matches(item: Item, words: list[str]) -> bool:
    path = attribute_text(item.attributes.get("categories"))
    haystack = f"{item.category} {path}".lower()
    return any(word.lower() in haystack for word in words)


def attribute_text(value: AttributeValue | None) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else " ".join(value)


def import_amazon(schema: AmazonSchema, reviews: Path, out: Path, options: AmazonOptions) -> ImportReport:
    """Import one Amazon review file (plus optional metadata) into `out`."""
    started = time.perf_counter()
    errors = RowErrors(options.skip_bad)
    if options.categories and options.meta is None:
        raise CrsimError("--categories needs --meta: categories come from the metadata file")
    with CatalogWriter(out, force=options.force) as writer:
        filtered: Counter[str] = Counter()
        products: dict[str, bytes] | None = None
        if options.meta is not None:
            products = {}
            for line_no, row in iter_json_objects(options.meta, errors, options.progress):
                try:
                    item = schema.meta_item(row)
                    if item.id in products:
                        raise BadRow(None, f"duplicate product id '{item.id}'")
                except BadRow as exc:
                    errors.row(options.meta, line_no, exc)
                    continue
                if options.categories and not _matches(item, options.categories):
                    filtered["products outside the categories"] += 1
                    continue
                products[item.id] = item.model_dump_json().encode()

        eligible: set[str] | None = None
        if options.min_reviews > 1:
            eligible = _count_pass(schema, reviews, options, products)

        def parse(row: dict[str, Any]) -> dict[str, Any] | str:
            review, verified = schema.parse_review(row)
            if options.verified_only and not verified:
                return "unverified reviews"
            item_id = review["item_id"]
            if products is not None and item_id not in products:
                return "reviews of products without (selected) metadata"
            if eligible is not None and item_id not in eligible:
                return "reviews of products with too few reviews"
            return review

        stream = ReviewStream(writer, errors)
        stream.consume(Path(reviews), iter_json_objects(reviews, errors, options.progress), parse)
        items = writer.sink(ITEMS)
        if products is not None:
            for item_id, line in products.items():
                if stream.per_item[item_id] or options.keep_unreviewed:
                    items.write_raw(line)
                else:
                    filtered["products without kept reviews"] += 1
        else:
            for item_id in stream.per_item:
                items.write_model(Item(id=item_id, title=item_id, extra={"metadata": False}))
        stream.write_users()
        filtered.update(stream.filtered)
        sources = [Path(reviews)] + ([Path(options.meta)] if options.meta else [])
        return commit_import(writer, format_name=schema.name, domain="product", item_noun="products",
                             options=options, sources=sources, errors=errors, started=started,
                             rows_read=stream.rows_read, filtered=dict(filtered))


def _count_pass(schema: AmazonSchema, reviews: Path, options: AmazonOptions,
                products: dict[str, bytes] | None) -> set[str]:
    """Products with at least `min_reviews` usable reviews (bad rows are left to the main pass)."""
    quiet = RowErrors(skip_bad=True)
    counts: Counter[str] = Counter()
    for _, row in iter_json_objects(reviews, quiet, options.progress):
        try:
            review, verified = schema.parse_review(row)
        except BadRow:
            continue
        if options.verified_only and not verified:
            continue
        if products is None or review["item_id"] in products:
            counts[review["item_id"]] += 1
    return {item_id for item_id, count in counts.items() if count >= options.min_reviews}
