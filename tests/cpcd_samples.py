"""CPCD-format rows for tests: tracks, turns and dialogs as the public release spells them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any


def track(tid: str, title: str, artists: Sequence[str], album: str, cluster: str | None) -> dict[str, Any]:
    row = {"track_ids": tid, "track_titles": title, "track_artists": list(artists), "track_release_titles": album,
           "track_canonical_ids": tid}
    if cluster is not None:
        row["track_cluster_ids"] = cluster
    return row


def turn(query: str, liked: Sequence[str] = (), disliked: Sequence[str] = ()) -> dict[str, Any]:
    return {"user_query": query, "system_response": "Here you go.", "search_queries": [], "search_results": [],
            "liked_results": list(liked), "disliked_results": list(disliked)}


def dialog(dialog_id: str, turns: Sequence[dict[str, Any]], goal: Sequence[str],
           tracks: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"id": dialog_id, "turns": list(turns), "tracks": tracks or {}, "goal_playlist": list(goal)}


def write_jsonl(path: Path, rows: Iterable[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path
