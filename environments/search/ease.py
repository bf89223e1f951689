"""EASE collaborative filtering (Steck, WWW 2019) in CRAG's asymmetric form, cached on disk.

CRAG retrieves items that users who liked the dialogue's positively mentioned items also
liked. Its weight matrix W maps the items people can *mention* (I, the columns of the
interaction matrix R) to the items the system may *recommend* (the catalog Q ⊆ I):

    min_W ||R_Q − R W||² + λ||W||²   subject to   W[ReID(j), j] = 0,

i.e. every catalog item is regressed on all other items, never on itself (which would be
a trivial solution). Each column is an independent ridge regression with one coefficient
pinned to zero, and all of them together are the Q-columns of EASE's closed form

    P = (RᵀR + λI)⁻¹,   B = I − P · diag(1 ⊘ diag P),   W = B[:, Q].

One Cholesky factorisation and inversion in float32 (LAPACK potrf + potri) does the work:
on this machine 10k items take ~13 s and ~0.8 GB, a plain `np.linalg.inv` 64 s / 3.1 GB
(DESIGN.md §7). The Gram matrix is filled block by block from sparse products so no
dense copy of R and no second n×n matrix is ever held. Scores for a dialogue are the
multi-hot vector of its positive mentions times W.

The paper also re-scales W by more recent item popularity (Steck 2019, "Collaborative
filtering via high-dimensional regression", §4.2: B·diag(w)). Our reading, a switch that
is off by default: column j is multiplied by ((recent_j + 1) / (all_j + 1))^α, where
`recent_j` counts positives in the last `recent_share` of R's rows (rows in time order)
and `all_j` in all rows, so items trending lately move up.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from environments.errors import CrsimError
from environments.search.cache import cache_dir_for, content_key, write_dir_atomic

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

    from environments.catalog import Catalog
    from environments.catalog.interactions import InteractionMatrix

EASE_VERSION = 1
GRAM_BLOCK = 1024  # columns of RᵀR computed per sparse product (bounds the temporary to n × 1024)
WEIGHTS_FILE, META_FILE = "weights.npy", "meta.json"


def gram_matrix(matrix: csr_matrix, lam: float, block: int = GRAM_BLOCK) -> np.ndarray:
    """RᵀR + λI as a dense float32 array, built one block of columns at a time."""
    r = matrix.astype(np.float32).tocsc()
    rt = r.T.tocsr()
    n = r.shape[1]
    gram = np.empty((n, n), dtype=np.float32)
    for start in range(0, n, block):
        stop = min(n, start + block)
        gram[:, start:stop] = (rt @ r[:, start:stop]).toarray()
    gram[np.diag_indices(n)] += np.float32(lam)
    return gram


def _symmetrize_lower(a: np.ndarray, block: int = GRAM_BLOCK) -> None:
    """Copy the lower triangle of a C-ordered square array onto its upper one, in place."""
    n = a.shape[0]
    for start in range(0, n, block):
        stop = min(n, start + block)
        diag = a[start:stop, start:stop]
        diag[...] = np.tril(diag) + np.tril(diag, -1).T
        if stop < n:
            a[start:stop, stop:] = a[stop:, start:stop].T


def ease_weights(matrix: csr_matrix, lam: float, targets: Sequence[int] | None = None) -> np.ndarray:
    """W (|I| × |Q|, float32) for the users × items matrix R and the catalog columns `targets`.

    `targets` are the column positions of Q in R (default: every column, W = B). The
    diagonal constraint holds exactly: W[targets[j], j] == 0.
    """
    from scipy.linalg import lapack

    if lam <= 0:
        raise CrsimError(f"EASE: lambda must be positive, got {lam}")
    gram = gram_matrix(matrix, lam)
    n = gram.shape[0]
    if n == 0:
        return np.zeros((0, 0 if targets is None else len(targets)), dtype=np.float32)
    # gram is symmetric, so its C-ordered buffer read in Fortran order is the same matrix;
    # passing the transpose view lets LAPACK work in place (no n×n copy).
    factor, info = lapack.spotrf(gram.T, lower=False, clean=False, overwrite_a=True)
    if info != 0:
        raise CrsimError(f"EASE: RᵀR + λI is not positive definite (potrf info {info}); raise lambda")
    inverse, info = lapack.spotri(factor, lower=False, overwrite_c=True)
    if info != 0:
        raise CrsimError(f"EASE: inversion failed (potri info {info})")
    p = inverse.T  # C-ordered again; its valid triangle is now the lower one
    if not np.shares_memory(p, gram):  # LAPACK copied after all: keep working on its result
        gram = np.ascontiguousarray(p)
    else:
        gram = p
    _symmetrize_lower(gram)
    scale = np.float32(-1.0) / np.diagonal(gram).copy()
    gram *= scale[None, :]  # B[:, j] = −P[:, j] / P[j, j]
    gram[np.diag_indices(n)] = 0.0
    if targets is None:
        return gram
    return np.ascontiguousarray(gram[:, np.asarray(targets, dtype=np.int64)])


def recent_popularity_scale(matrix: csr_matrix, recent_share: float, alpha: float) -> np.ndarray:
    """Per column ((recent + 1) / (all + 1))^α, `recent` counted in the last rows of R."""
    if not 0.0 < recent_share <= 1.0:
        raise CrsimError(f"EASE: recent_share must be in (0, 1], got {recent_share}")
    n_rows = matrix.shape[0]
    first_recent = n_rows - max(1, int(round(n_rows * recent_share))) if n_rows else 0
    counts = np.asarray((matrix > 0).sum(axis=0), dtype=np.float64).ravel()
    recent = np.asarray((matrix[first_recent:] > 0).sum(axis=0), dtype=np.float64).ravel()
    return (((recent + 1.0) / (counts + 1.0)) ** alpha).astype(np.float32)


def binarize(matrix: csr_matrix, positive_at: float) -> csr_matrix:
    """1.0 where the signal is at least `positive_at`, dropped elsewhere."""
    out = matrix.tocsr(copy=True)
    out.data = np.where(out.data >= positive_at, 1.0, 0.0)
    out.eliminate_zeros()
    return out


def positive_matrix(catalog: Catalog, positive_at: float = 1.0, seen_like_at: float = 4.0) -> InteractionMatrix:
    """The catalog's positive user-item signals, columns in catalog order.

    `interactions.jsonl` when the catalog has one (values ≥ `positive_at` count), else
    the users' histories (`users.jsonl`: ratings ≥ `seen_like_at`), which is what the
    synthetic worlds provide. A catalog view withholds both the same way.
    """
    from scipy.sparse import csr_matrix

    from environments.catalog.interactions import InteractionMatrix

    loaded = catalog.interactions()
    if loaded is not None:
        return InteractionMatrix(binarize(loaded.matrix, positive_at), list(loaded.user_ids), list(loaded.item_ids))
    rows, cols, users = [], [], []
    for user in catalog.users:
        liked = {catalog.item_index[s.item_id] for s in user.seen
                 if s.rating is not None and s.rating >= seen_like_at and s.item_id in catalog.item_index}
        if liked:
            rows.extend([len(users)] * len(liked))
            cols.extend(sorted(liked))
            users.append(user.user_id)
    data = np.ones(len(rows), dtype=np.float32)
    matrix = csr_matrix((data, (rows, cols)), shape=(len(users), len(catalog.item_ids)), dtype=np.float32)
    return InteractionMatrix(matrix, users, list(catalog.item_ids))


class EaseIndex:
    """Fitted EASE weights over the items that have any positive signal; scores per catalog column."""

    def __init__(self, item_ids: list[str], active: np.ndarray, weights: np.ndarray, popularity: np.ndarray):
        self.item_ids = item_ids
        self.active = active  # catalog columns of I (= Q here), ascending
        self.weights = weights  # |I| × |I|
        self.popularity = popularity  # positives per catalog column
        self._row = np.full(len(item_ids), -1, dtype=np.int64)
        self._row[active] = np.arange(len(active))

    @classmethod
    def build(cls, interactions: InteractionMatrix, lam: float = 500.0, *, recent_popularity: bool = False,
              recent_share: float = 0.2, popularity_alpha: float = 1.0, cache_dir: Path | str | None = None,
              persist: bool = True) -> EaseIndex:
        """Fit (or load from the cache) EASE on a binary users × items matrix.

        Only columns with at least one positive enter the fit (the others would be rows
        and columns of zeros); they all form the catalog Q, so `scores` covers every item
        that can be scored. The cache key is the matrix content, the item ids and every
        setting.
        """
        matrix = interactions.matrix.tocsr()
        popularity = np.asarray((matrix > 0).sum(axis=0), dtype=np.float64).ravel()
        active = np.flatnonzero(popularity > 0)
        settings = {"version": EASE_VERSION, "lam": lam, "dtype": "float32", "recent_popularity": recent_popularity,
                    "recent_share": recent_share, "alpha": popularity_alpha}
        entry = None
        if persist:
            key = content_key(_matrix_digest(matrix), "\n".join(interactions.item_ids),
                              json.dumps(settings, sort_keys=True))
            entry = cache_dir_for("ease", cache_dir) / key
            loaded = _load(entry, len(active))
            if loaded is not None:
                return cls(list(interactions.item_ids), active, loaded, popularity)
        sub = matrix[:, active]
        weights = ease_weights(sub, lam)
        if recent_popularity:
            weights *= recent_popularity_scale(sub, recent_share, popularity_alpha)[None, :]
        if entry is not None:
            def write(tmp: Path) -> None:
                with open(tmp / WEIGHTS_FILE, "wb") as handle:
                    np.save(handle, weights, allow_pickle=False)
                (tmp / META_FILE).write_text(json.dumps({**settings, "active": len(active)}), encoding="utf-8")

            write_dir_atomic(entry, write)
        return cls(list(interactions.item_ids), active, weights, popularity)

    def scores(self, positive_columns: Iterable[int]) -> np.ndarray:
        """Σ of W's rows for the positively mentioned catalog columns, one float32 per column.

        Columns outside I score 0; an item never scores from its own mention (W's diagonal
        is 0), and negatives are simply not passed in (CRAG leaves them out).
        """
        rows = [int(self._row[c]) for c in positive_columns if 0 <= c < len(self._row) and self._row[c] >= 0]
        result = np.zeros(len(self.item_ids), dtype=np.float32)
        if rows:
            result[self.active] = self.weights[sorted(set(rows))].sum(axis=0)
        return result

    def __len__(self) -> int:
        return len(self.active)


def _matrix_digest(matrix: csr_matrix) -> str:
    digest = hashlib.sha256()
    digest.update(str(matrix.shape).encode())
    for part in (matrix.indptr, matrix.indices, matrix.data):
        digest.update(np.ascontiguousarray(part).tobytes())
    return digest.hexdigest()


def _load(entry: Path, n_active: int) -> np.ndarray | None:
    try:
        weights = np.load(entry / WEIGHTS_FILE, allow_pickle=False)
    except (OSError, ValueError):
        return None
    if weights.dtype != np.float32 or weights.shape != (n_active, n_active):
        return None
    return weights
