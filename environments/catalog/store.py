"""A catalog: items, their reviews and users, loaded from (or saved to) a directory.

On disk a catalog is a directory of JSONL files plus a manifest:

    catalog.json    CatalogManifest (schema version, domain, item noun, counts)
    items.jsonl     one Item per line
    reviews.jsonl   one Review per line
    users.jsonl     one UserProfile per line

Imported datasets may add two files that `Catalog.load` leaves alone (their readers
are `simulators.results.runlog.load_run` and `environments.catalog.interactions`):

    dialogues.jsonl     one logged Episode per line (ReDial, CPCD conversations)
    interactions.jsonl  one Interaction (user, item, value, source) per line

Synthetic worlds and dataset adapters both write this format, so every environment
and agent works on any of them. A `Catalog` can also be a *view* of another one with
some reviews and interactions withheld (a simulated seeker's own review of its target,
or a simulated user's targets, must never reach the recommender). A view holds no trace
of what it withholds: not the ids, not users' references to them, not the directory the
full catalog came from; its interactions are a filtered in-memory copy. Views share item
objects with their parent.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from environments.catalog.interactions import INTERACTIONS
from environments.catalog.jsonl import read_jsonl, write_jsonl
from environments.errors import CatalogError
from environments.models import CATALOG_SCHEMA_VERSION, CatalogManifest, Item, Review, UserProfile

if TYPE_CHECKING:
    from environments.catalog.interactions import InteractionMatrix

__all__ = ["DIALOGUES", "INTERACTIONS", "ITEMS", "MANIFEST", "REVIEWS", "USERS", "Catalog", "load_manifest"]

MANIFEST = "catalog.json"
ITEMS = "items.jsonl"
REVIEWS = "reviews.jsonl"
USERS = "users.jsonl"
DIALOGUES = "dialogues.jsonl"


class Catalog:
    """Items, reviews and users with the lookups agents need, in a fixed item order."""

    def __init__(
        self,
        manifest: CatalogManifest,
        items: Sequence[Item],
        reviews: Sequence[Review] = (),
        users: Sequence[UserProfile] = (),
        *,
        path: Path | None = None,
        fingerprint: str | None = None,
        interactions: InteractionMatrix | None = None,
    ):
        self.manifest = manifest
        self.items: list[Item] = list(items)
        self.reviews: list[Review] = list(reviews)
        self.users: list[UserProfile] = list(users)
        self.path = path
        self._fingerprint = fingerprint
        self._interactions = interactions
        self.item_index: dict[str, int] = {}
        for position, item in enumerate(self.items):
            if item.id in self.item_index:
                raise CatalogError(path or "<catalog>", f"duplicate item id '{item.id}'", field="id")
            self.item_index[item.id] = position
        self.item_ids: list[str] = [item.id for item in self.items]

    # ----------------------------------------------------------------- lookups
    def item(self, item_id: str) -> Item:
        return self.items[self.item_index[item_id]]

    @cached_property
    def reviews_by_item(self) -> dict[str, list[Review]]:
        grouped: dict[str, list[Review]] = defaultdict(list)
        for review in self.reviews:
            grouped[review.item_id].append(review)
        return dict(grouped)

    @cached_property
    def reviews_by_user(self) -> dict[str, list[Review]]:
        grouped: dict[str, list[Review]] = defaultdict(list)
        for review in self.reviews:
            grouped[review.user_id].append(review)
        return dict(grouped)

    @cached_property
    def review_by_id(self) -> dict[str, Review]:
        return {review.id: review for review in self.reviews}

    @cached_property
    def aspects(self) -> list[str]:
        """Attribute keys present on at least one item, in first-seen order."""
        seen: dict[str, None] = {}
        for item in self.items:
            for key in item.attributes:
                seen.setdefault(key, None)
        return list(seen)

    @property
    def item_noun(self) -> str:
        return self.manifest.item_noun

    @property
    def fingerprint(self) -> str:
        """Content hash used to key caches (indexes, embeddings) built on this catalog."""
        if self._fingerprint is None:
            digest = hashlib.sha256()
            for item in self.items:
                digest.update(item.model_dump_json().encode())
            for review in self.reviews:
                digest.update(review.id.encode())
                digest.update(review.text.encode())
            self._fingerprint = digest.hexdigest()[:16]
        return self._fingerprint

    @property
    def has_interactions(self) -> bool:
        return self._interactions is not None or (self.path is not None and (self.path / INTERACTIONS).is_file())

    def interactions(self) -> InteractionMatrix | None:
        """Users x items signals (`interactions.jsonl`; columns in catalog order), None if
        the catalog has none. Loaded once; a view's are its parent's minus what it withholds."""
        if self._interactions is None and self.path is not None and (self.path / INTERACTIONS).is_file():
            from environments.catalog.interactions import load_interactions  # scipy: only when used

            self._interactions = load_interactions(self.path / INTERACTIONS, item_ids=self.item_ids,
                                                   unknown_items="skip")
        return self._interactions

    # ------------------------------------------------------------------- views
    def without(self, *, reviews: Iterable[str] = (), interactions: Iterable[tuple[str, str]] = ()) -> Catalog:
        """A view without the given reviews and (user id, item id) interactions.

        Users keep their history minus the withheld reviews and interactions; the
        fingerprint differs from the parent's (caches built on the view are keyed apart)
        but is a one-way digest, so the view cannot tell what it lacks.
        """
        hidden = frozenset(reviews)
        pairs = frozenset(interactions) | {(r.user_id, r.item_id) for r in self.reviews if r.id in hidden}
        users = []
        for user in self.users:
            seen = [s for s in user.seen if s.review_id not in hidden and (user.user_id, s.item_id) not in pairs]
            users.append(user if len(seen) == len(user.seen) else user.model_copy(update={"seen": seen}))
        kept = [review for review in self.reviews if review.id not in hidden]
        matrix = self.interactions()
        held = hashlib.sha256("\n".join(sorted(hidden) + sorted("\t".join(p) for p in pairs)).encode())
        counts = {**self.manifest.counts, "reviews": len(kept)}
        return Catalog(
            self.manifest.model_copy(update={"counts": counts}), self.items, kept, users,
            fingerprint=f"{self.fingerprint}-w{held.hexdigest()[:8]}" if hidden or pairs else self.fingerprint,
            interactions=_without_pairs(matrix, pairs) if matrix is not None else None,
        )

    def without_reviews(self, review_ids: Iterable[str]) -> Catalog:
        """A view that hides the given reviews (and users' references to them)."""
        return self.without(reviews=review_ids)

    # -------------------------------------------------------------------- disk
    def save(self, directory: Path) -> Path:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        counts = {
            "items": write_jsonl(directory / ITEMS, self.items),
            "reviews": write_jsonl(directory / REVIEWS, self.reviews),
            "users": write_jsonl(directory / USERS, self.users),
        }
        manifest = self.manifest.model_copy(update={"counts": counts, "schema_version": CATALOG_SCHEMA_VERSION})
        (directory / MANIFEST).write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
        return directory

    @classmethod
    def load(cls, directory: Path | str) -> Catalog:
        """Load and validate a catalog directory; any problem raises `CatalogError`."""
        directory = Path(directory).expanduser()
        if not directory.is_dir():
            raise CatalogError(directory, "is a file, not a catalog directory" if directory.exists()
                               else "catalog directory not found")
        if not (directory / ITEMS).is_file():
            raise CatalogError(directory / ITEMS, f"file not found: a catalog directory holds {ITEMS}, one JSON "
                               "item per line (`crsim data import` makes one)")
        manifest = load_manifest(directory)
        items = read_jsonl(directory / ITEMS, Item)
        if not items:
            raise CatalogError(directory / ITEMS, 'catalog has no items: write one JSON item per line, e.g. '
                               '{"id": "i1", "title": "Thai Palace"}')
        reviews = read_jsonl(directory / REVIEWS, Review) if (directory / REVIEWS).exists() else []
        users = read_jsonl(directory / USERS, UserProfile) if (directory / USERS).exists() else []
        catalog = cls(manifest, items, reviews, users, path=directory)
        _check_references(directory, catalog)
        return catalog


def load_manifest(directory: Path) -> CatalogManifest:
    """`catalog.json` of a catalog directory (a default one if absent); `CatalogError` if bad."""
    path = directory / MANIFEST
    if not path.exists():
        return CatalogManifest(name=directory.name)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CatalogError(path, f"invalid JSON ({exc.msg})", exc.lineno) from None
    version = data.get("schema_version", CATALOG_SCHEMA_VERSION) if isinstance(data, dict) else None
    if version != CATALOG_SCHEMA_VERSION:
        raise CatalogError(
            path,
            f"catalog schema version {version!r} is not supported (this crsim reads version {CATALOG_SCHEMA_VERSION})",
            field="schema_version",
        )
    try:
        return CatalogManifest.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise CatalogError(path, first["msg"], field=".".join(map(str, first["loc"]))) from None


def _check_references(directory: Path, catalog: Catalog) -> None:
    """Reviews must point at known items; report the first that does not, by line."""
    for line_no, review in enumerate(catalog.reviews, start=1):
        if review.item_id not in catalog.item_index:
            raise CatalogError(
                directory / REVIEWS, f"unknown item id '{review.item_id}'", line_no, "item_id"
            )


def _without_pairs(matrix: InteractionMatrix, pairs: frozenset[tuple[str, str]]) -> InteractionMatrix:
    """`matrix` without its (user id, item id) entries in `pairs`."""
    import numpy as np
    from scipy.sparse import csr_matrix

    from environments.catalog.interactions import InteractionMatrix

    n_cols = matrix.shape[1]
    wanted = [matrix.user_index[u] * n_cols + matrix.item_index[i] for u, i in pairs
              if u in matrix.user_index and i in matrix.item_index]
    if not wanted:
        return matrix
    coo = matrix.matrix.tocoo()
    keep = ~np.isin(coo.row.astype(np.int64) * n_cols + coo.col, np.asarray(wanted, dtype=np.int64))
    kept = csr_matrix((coo.data[keep], (coo.row[keep], coo.col[keep])), shape=matrix.shape)
    return InteractionMatrix(kept, list(matrix.user_ids), list(matrix.item_ids))
