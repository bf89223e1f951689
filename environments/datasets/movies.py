"""Movie metadata shared by the movie formats (ReDial, IMDb-style reviews).

The metadata file is one JSON object keyed by movie id, as the ReDial/iEvaLM movie
databases are distributed: `{"<id>": {"name": ..., "genre": [...], "plot": ...,
"director": [...], "writer": [...], "star": [...]}}`. It is small (one entry per movie),
so it is read whole. Genre, director, writer and star become the aspects `genre`,
`director`, `writer`, `stars`; the plot becomes the description.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from environments.datasets.normalize import clean_value, title_year
from environments.errors import CatalogError
from environments.models import AttributeValue, Item

#: metadata key -> aspect name
ASPECTS = {"genre": "genre", "director": "director", "writer": "writer", "star": "stars"}


def load_movie_metadata(path: Path) -> dict[str, dict[str, Any]]:
    """{movie id: entry}; a malformed file or entry raises `CatalogError` naming the id."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise CatalogError(path, "file not found")
    try:
        data = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise CatalogError(path, f"invalid JSON ({exc})") from None
    if type(data) is not dict:
        raise CatalogError(path, f"expected one JSON object keyed by movie id, got {type(data).__name__}")
    for movie_id, entry in data.items():
        if type(entry) is not dict:
            raise CatalogError(path, f"expected an object, got {type(entry).__name__}", field=str(movie_id))
        for key in (*ASPECTS, "name", "plot"):
            value = entry.get(key)
            if value is None:
                continue
            ok = type(value) is str or (type(value) is list and all(type(v) is str for v in value))
            if not ok:
                raise CatalogError(path, f"expected a string or list of strings, got {type(value).__name__}",
                                   field=f"{movie_id}.{key}")
    return {str(k): v for k, v in data.items()}


def movie_item(movie_id: str, title: str, metadata: dict[str, Any] | None, extra: dict[str, Any]) -> Item:
    """A movie item: title as the source writes it, aspects and plot from its metadata entry."""
    attributes: dict[str, AttributeValue] = {}
    description = ""
    if metadata:
        for key, aspect in ASPECTS.items():
            value = clean_value(metadata.get(key))
            if value is not None:
                attributes[aspect] = [value] if isinstance(value, str) else value
        plot = metadata.get("plot")
        description = plot if isinstance(plot, str) else " ".join(plot or [])
        title = title or str(metadata.get("name") or "")
    _, year = title_year(title)
    if year is not None:
        extra = {**extra, "year": year}
    return Item(id=movie_id, title=title or movie_id, category="movie", attributes=attributes,
                description=description.strip(), extra=extra)
