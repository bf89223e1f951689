"""CPCD conversations and candidate tracks for offline evaluation, read through the adapter.

The dialog files go through `environments.datasets.cpcd.import_cpcd` like `crsim data
import cpcd` does, so the evaluation sees exactly the conversations and tracks a catalog
would, with the adapter's checks (bad rows name file, line and field). The import is
cached under `$CRSIM_CACHE_DIR/imports/`, keyed by the files' bytes and names (the
split comes from the name), so a second evaluation of the same split starts at once.

With `--tracks`, the import uses `tracks_only`: the candidates are exactly the tracks
file, and a conversation that rates or keeps a track missing from it is an error, since
CPCD's public evaluator needs every gold, seed and predicted track in that file.
"""

from __future__ import annotations

import hashlib
import shutil
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

from environments.catalog.jsonl import iter_jsonl
from environments.catalog.store import DIALOGUES, MANIFEST, Catalog
from environments.datasets.cpcd import CpcdOptions, CpcdTurn, conversation_turns, import_cpcd
from environments.datasets.readers import iter_lines
from environments.errors import CatalogError, CrsimError
from environments.models import Episode, Item
from environments.search.cache import cache_dir_for, content_key

#: Bump when the adapter's output changes, so cached imports are redone.
IMPORT_CACHE_VERSION = 1


@dataclass(frozen=True)
class Conversation:
    """One CPCD conversation as the evaluator sees it."""

    dialog_id: str  # CPCD's own id (the episode id is `cpcd-<dialog_id>`)
    split: str
    turns: list[CpcdTurn]  # index = CPCD's 0-based turn index
    goal: list[str]  # the goal playlist, in CPCD's order


@dataclass
class CpcdData:
    """Conversations to score and the candidate tracks (catalog order)."""

    catalog: Catalog
    conversations: list[Conversation]
    sources: list[dict[str, str]]  # {"path", "sha256"} per input file

    @property
    def candidates(self) -> list[Item]:
        return self.catalog.items


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def check_dialog_file(path: Path) -> None:
    """A clear error for an empty split or a file that is not CPCD dialogs (before importing)."""
    for line_no, line in iter_lines(Path(path)):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError:
            raise CatalogError(path, "not a CPCD dialog file: the line is not JSON", line_no) from None
        if type(row) is not dict or "turns" not in row or "goal_playlist" not in row:
            keys = ", ".join(sorted(row)[:6]) if type(row) is dict else type(row).__name__
            raise CatalogError(path, "not a CPCD dialog file: expected an object with 'id', 'turns' and "
                                     f"'goal_playlist', got {keys}", line_no)
        return
    raise CatalogError(path, "empty split: the file holds no conversation")


def imported_catalog(dialogs: Sequence[Path], tracks: Path | None, cache_dir: Path | str | None = None,
                     progress: bool = False) -> tuple[Path, list[dict[str, str]]]:
    """The cached catalog directory for these files (importing them the first time)."""
    dialogs = [Path(p).expanduser() for p in dialogs]
    for path in dialogs:
        check_dialog_file(path)
    files = [*dialogs, *([Path(tracks).expanduser()] if tracks else [])]
    sources = [{"path": str(path), "sha256": file_digest(path)} for path in files]
    key = content_key(f"cpcd-import-v{IMPORT_CACHE_VERSION}", str(tracks is not None),
                      *(f"{Path(s['path']).name}:{s['sha256']}" for s in sources))
    out = cache_dir_for("imports", cache_dir) / f"cpcd-{key}"
    if not (out / MANIFEST).is_file():
        options = CpcdOptions(tracks=files[-1] if tracks else None, tracks_only=tracks is not None,
                              force=True, progress=progress)
        try:
            import_cpcd(dialogs, out, options)
        except CatalogError as exc:
            if tracks is None and "unknown track id" in str(exc):
                raise CrsimError(f"{exc}; pass the release's cpcd_v1.tracks.jsonl with --tracks") from None
            raise
    return out, sources


def read_conversations(catalog_dir: Path) -> list[Conversation]:
    return [Conversation(dialog_id=str(episode.profile["dialog_id"]), split=str(episode.profile.get("split", "")),
                         turns=conversation_turns(episode), goal=list(episode.profile.get("goal_playlist", [])))
            for episode in iter_jsonl(catalog_dir / DIALOGUES, Episode)]


def load_cpcd(dialogs: Sequence[Path], tracks: Path | None = None, cache_dir: Path | str | None = None,
              progress: bool = False) -> CpcdData:
    """Conversations of `dialogs` and the candidates: the tracks file, else the conversations' tracks."""
    catalog_dir, sources = imported_catalog(dialogs, tracks, cache_dir, progress)
    try:
        catalog = Catalog.load(catalog_dir)
        conversations = read_conversations(catalog_dir)
    except CrsimError:
        shutil.rmtree(catalog_dir, ignore_errors=True)  # a damaged cache entry: import again next time
        raise
    seen: dict[str, str] = {}
    for conversation in conversations:
        if conversation.dialog_id in seen:
            raise CrsimError(f"dialog '{conversation.dialog_id}' occurs twice (splits '{seen[conversation.dialog_id]}' "
                             f"and '{conversation.split}'); give each dialog file once")
        seen[conversation.dialog_id] = conversation.split
    return CpcdData(catalog, conversations, sources)


def load_training_likes(train: Sequence[Path], tracks: Path | None, evaluated: Iterable[Conversation],
                        cache_dir: Path | str | None = None, progress: bool = False
                        ) -> tuple[Counter[str], list[dict[str, str]]]:
    """How many `train` conversations liked each track; refuses conversations also being evaluated."""
    catalog_dir, sources = imported_catalog(train, tracks, cache_dir, progress)
    conversations = read_conversations(catalog_dir)
    scored = {conversation.dialog_id for conversation in evaluated}
    overlap = sorted(c.dialog_id for c in conversations if c.dialog_id in scored)
    if overlap:
        raise CrsimError(f"--train and --dialogs share {len(overlap)} conversation(s) (first: '{overlap[0]}'); "
                         "popularity must not be counted on the conversations it is scored on")
    likes: Counter[str] = Counter()
    for conversation in conversations:
        likes.update({track for turn in conversation.turns for track in turn.liked})
    return likes, sources
