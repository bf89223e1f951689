"""`interactions.jsonl`: user-item signals for collaborative filtering, and their loader.

Dataset adapters write one `Interaction` per line (a ReDial seeker liked a movie, a
MovieLens user rated one, a CPCD user kept a track); collaborative-filtering agents
(EASE and the like) load them as a sparse user x item matrix. The file sits next to
`items.jsonl` in a catalog directory; `Catalog.load` does not read it.

Lines are checked by hand rather than through pydantic: MovieLens-25M has 25 million of
them. A bad line raises `CatalogError` with file, line and field, like every catalog file.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
import orjson
from pydantic import BaseModel, ConfigDict, Field

from environments.errors import CatalogError

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

__all__ = ["INTERACTIONS", "Interaction", "InteractionMatrix", "iter_interactions", "load_interactions"]

INTERACTIONS = "interactions.jsonl"


class Interaction(BaseModel):
    """One user-item signal: a like (1.0), a rating (its value), a kept track..."""

    model_config = ConfigDict(extra="forbid")

    user_id: str = Field(description="User id as in the source (prefixed when sources are mixed, e.g. 'ml:42').")
    item_id: str = Field(description="Catalog item id.")
    value: float = Field(default=1.0, description="Signal strength: 1.0 for a like, the rating for ratings.")
    source: str = Field(default="", description="Where it came from, e.g. 'redial', 'movielens'.")


@dataclass(frozen=True)
class InteractionMatrix:
    """A users x items CSR matrix with the ids of its rows and columns."""

    matrix: csr_matrix
    user_ids: list[str]
    item_ids: list[str]
    user_index: dict[str, int] = field(init=False, repr=False)
    item_index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "user_index", {u: i for i, u in enumerate(self.user_ids)})
        object.__setattr__(self, "item_index", {t: i for i, t in enumerate(self.item_ids)})

    @property
    def shape(self) -> tuple[int, int]:
        return self.matrix.shape


def _bad(path: Path, line: int, key: str, value: object, expected: str) -> CatalogError:
    if value is None:
        return CatalogError(path, "missing", line, key)
    return CatalogError(path, f"expected {expected}, got {type(value).__name__}", line, key)


def iter_interactions(path: Path | str) -> Iterable[tuple[int, str, str, float, str]]:
    """(line, user id, item id, value, source) per line, validated."""
    path = Path(path)
    if not path.is_file():
        raise CatalogError(path, "file not found")
    with path.open("rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            try:
                row = orjson.loads(raw)
            except orjson.JSONDecodeError:
                if not raw.strip():
                    continue
                raise CatalogError(path, "invalid JSON", line_no) from None
            if type(row) is not dict:
                raise CatalogError(path, f"expected a JSON object, got {type(row).__name__}", line_no)
            user, item = row.get("user_id"), row.get("item_id")
            value, source = row.get("value", 1.0), row.get("source", "")
            if type(user) is not str:
                raise _bad(path, line_no, "user_id", user, "a string")
            if type(item) is not str:
                raise _bad(path, line_no, "item_id", item, "a string")
            if type(value) not in (int, float):
                raise _bad(path, line_no, "value", value, "a number")
            if type(source) is not str:
                raise _bad(path, line_no, "source", source, "a string")
            extra = set(row) - {"user_id", "item_id", "value", "source"}
            if extra:
                raise CatalogError(path, "extra inputs are not permitted", line_no, sorted(extra)[0])
            yield line_no, user, item, float(value), source


def load_interactions(
    path: Path | str,
    *,
    item_ids: Sequence[str] | None = None,
    sources: Iterable[str] | None = None,
    binarize_at: float | None = None,
    unknown_items: Literal["error", "skip"] = "error",
) -> InteractionMatrix:
    """Load `interactions.jsonl` (or a catalog directory holding one) as a sparse matrix.

    `item_ids` fixes the columns (pass `catalog.item_ids` so columns line up with the
    catalog); an interaction with another item is an error, or dropped with
    `unknown_items="skip"`. Without it, columns are items in first-seen order. Rows are
    users in first-seen order. `sources` keeps only those sources; `binarize_at` turns
    values >= it into 1.0 and drops the rest. A repeated (user, item) pair keeps its
    largest value (a seeker who liked a movie in two conversations liked it once).
    """
    from scipy.sparse import csr_matrix

    path = Path(path).expanduser()
    if path.is_dir():
        path = path / INTERACTIONS
    wanted = set(sources) if sources is not None else None
    columns: dict[str, int] = {t: i for i, t in enumerate(item_ids)} if item_ids is not None else {}
    fixed = item_ids is not None
    users: dict[str, int] = {}
    rows, cols, vals = array("q"), array("q"), array("d")
    for line_no, user, item, value, source in iter_interactions(path):
        if wanted is not None and source not in wanted:
            continue
        if binarize_at is not None:
            if value < binarize_at:
                continue
            value = 1.0
        column = columns.get(item)
        if column is None:
            if fixed:
                if unknown_items == "skip":
                    continue
                raise CatalogError(path, f"unknown item id '{item}'", line_no, "item_id")
            column = columns[item] = len(columns)
        row = users.get(user)
        if row is None:
            row = users[user] = len(users)
        rows.append(row)
        cols.append(column)
        vals.append(value)
    r = np.frombuffer(rows, dtype=np.int64) if rows else np.zeros(0, dtype=np.int64)
    c = np.frombuffer(cols, dtype=np.int64) if cols else np.zeros(0, dtype=np.int64)
    v = np.frombuffer(vals, dtype=np.float64) if vals else np.zeros(0, dtype=np.float64)
    if len(r):
        order = np.lexsort((c, r))
        r, c, v = r[order], c[order], v[order]
        starts = np.flatnonzero(np.r_[True, (r[1:] != r[:-1]) | (c[1:] != c[:-1])])
        v = np.maximum.reduceat(v, starts)
        r, c = r[starts], c[starts]
    item_list = list(item_ids) if fixed else list(columns)
    matrix = csr_matrix((v, (r, c)), shape=(len(users), len(item_list)), dtype=np.float64)
    return InteractionMatrix(matrix, list(users), item_list)
