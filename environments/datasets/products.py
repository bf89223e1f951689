"""A generic attribute catalog for conversational shopping (ESCI / TREC product search style).

One product per row, CSV/TSV (by suffix) or JSON lines, with an id, a title and
optionally a category, a description and key-value features. Column names are
options, so ESCI's product file (`product_id`, `product_title`, `product_description`,
`product_brand`, `product_color`, ...) imports with `--id-field product_id --title-field
product_title --description-field product_description`.

Features become aspects:
- JSON: the `features` object ({"color": "red", "size": ["S", "M"]}); keys listed in
  `--attributes` are taken from the top level too; other top-level keys go to `extra`;
- CSV: the `features` column as "key: value; key: value", and every other column
  (or only the `--attributes` columns, the rest going to `extra`), with
  `--list-separator` ('|') splitting multi-valued cells.
There are no reviews or users in this format; `items.jsonl` is the catalog.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pydantic import Field

from environments.catalog.store import ITEMS
from environments.datasets.base import BadRow, DatasetFormat, ImportOptions, ImportReport, PathArg, RowErrors
from environments.datasets.normalize import add_attribute, aspect_key, strip_tags
from environments.datasets.readers import csv_delimiter, is_csv, iter_csv_rows, iter_json_objects
from environments.datasets.writer import CatalogWriter, commit_import
from environments.models import AttributeValue, Item


class ProductsOptions(ImportOptions):
    id_field: str = Field(default="id", description="Column/key with the product id.")
    title_field: str = Field(default="title", description="Column/key with the product title.")
    category_field: str = Field(default="category", description="Column/key with the category (optional column).")
    description_field: str = Field(default="description", description="Column/key with a description (optional).")
    features_field: str = Field(default="features", description=(
        "Column/key with features: a JSON object, or 'key: value; key: value' in CSV (optional)."))
    attributes: list[str] = Field(default_factory=list, description=(
        "Columns/keys that are aspects themselves (CSV default: every column not named above)."))
    list_separator: str = Field(default="|", description="Separator of several values in one CSV cell.")
    domain: str = Field(default="product", description="Catalog domain.")
    item_noun: str = Field(default="products", description="Plural noun used in prompts.")


def _scalar(value: Any, key: str) -> str:
    if value is None:
        return ""
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value).strip()
    raise BadRow(key, f"expected a string, got {type(value).__name__}")


def _split(value: Any, separator: str) -> Any:
    if isinstance(value, str) and separator and separator in value:
        return [part.strip() for part in value.split(separator) if part.strip()]
    return value


def _feature_pairs(value: Any, key: str, separator: str) -> dict[str, Any]:
    if value is None or value == "":
        return {}
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        pairs: dict[str, Any] = {}
        for part in value.split(";"):
            name, sep, rest = part.partition(":")
            if not sep or not name.strip():
                raise BadRow(key, f"expected 'key: value; key: value', got {part.strip()!r}")
            pairs[name.strip()] = _split(rest.strip(), separator)
        return pairs
    raise BadRow(key, f"expected an object of features, got {type(value).__name__}")


def product_item(row: dict[str, Any], options: ProductsOptions, csv_row: bool) -> Item:
    item_id = _scalar(row.get(options.id_field), options.id_field)
    if not item_id:
        raise BadRow(options.id_field, "missing")
    title = strip_tags(_scalar(row.get(options.title_field), options.title_field))
    if not title:
        raise BadRow(options.title_field, "missing")
    category = _scalar(row.get(options.category_field), options.category_field)
    description = strip_tags(_scalar(row.get(options.description_field), options.description_field))
    mapped = {options.id_field, options.title_field, options.category_field, options.description_field,
              options.features_field}
    attributes: dict[str, AttributeValue] = {}
    separator = options.list_separator if csv_row else ""
    for key, value in _feature_pairs(row.get(options.features_field), options.features_field, separator).items():
        add_attribute(attributes, str(key), value)
    extra: dict[str, Any] = {}
    for key, value in row.items():
        if key in mapped or value in (None, ""):
            continue
        if key in options.attributes or (csv_row and not options.attributes):
            add_attribute(attributes, key, _split(value, separator))
        else:
            extra[aspect_key(key) or key] = value
    return Item(id=item_id, title=title, category=category, attributes=attributes, description=description,
                extra=extra)


def import_products(files: list[Path], out: Path, options: ProductsOptions | None = None) -> ImportReport:
    """Import product files (CSV/TSV or JSON lines) into the catalog directory `out`."""
    options = options or ProductsOptions()
    started = time.perf_counter()
    errors = RowErrors(options.skip_bad)
    with CatalogWriter(out, force=options.force) as writer:
        items = writer.sink(ITEMS)
        seen: set[str] = set()
        read = 0
        for path in map(Path, files):
            csv_file = is_csv(path)
            rows = (iter_csv_rows(path, errors, delimiter=csv_delimiter(path), progress=options.progress,
                                  required=(options.id_field, options.title_field))
                    if csv_file else iter_json_objects(path, errors, options.progress))
            for line_no, row in rows:
                read += 1
                try:
                    item = product_item(row, options, csv_file)
                    if item.id in seen:
                        raise BadRow(options.id_field, f"duplicate product id '{item.id}'")
                except BadRow as exc:
                    errors.row(path, line_no, exc)
                    continue
                seen.add(item.id)
                items.write_model(item)
        return commit_import(writer, format_name="products", domain=options.domain, item_noun=options.item_noun,
                             options=options, sources=[Path(p) for p in files], errors=errors, started=started,
                             rows_read=read)


def _run(paths: dict, out: Path, options: ImportOptions) -> ImportReport:
    return import_products(paths["files"], out, options)  # type: ignore[arg-type]


FORMAT = DatasetFormat(
    name="products",
    summary="A generic product catalog: CSV/TSV or JSON lines with id, title, category and key-value features",
    paths=(PathArg("files", "product files (.csv/.tsv or JSON lines)", many=True),),
    options=ProductsOptions,
    run=_run,
)
