"""CPCD-format files the evaluation tests write: tracks, dialogs, training dialogs.

`protocol_files` is the hand-checked case: popularity trained on six conversations ranks
the tracks a1 a2 b c d e f g h i j (a1 and a2 are one cluster, g has no cluster id), and
four scored conversations exercise cluster deduplication, seed removal, a used-up goal
and macro vs micro averaging (the expected values are worked out in the test).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cpcd_samples import dialog, track, turn, write_jsonl


PROTOCOL_TRACKS = [
    track("a1", "Alpha", ["Ann"], "First", "cA"), track("a2", "Alpha (Live)", ["Ann"], "Live", "cA"),
    *[track(t, f"Song {t.upper()}", ["Bo"], "Mix", f"c{t}") for t in "bcdef"],
    track("g", "Song G", ["Bo"], "Mix", None),
    *[track(t, f"Song {t.upper()}", ["Bo"], "Mix", f"c{t}") for t in "hij"],
]
POPULAR = ["a1", "a2", "b", "c", "d", "e"]  # train conversation n likes the first 6 - n: a1 six times ... e once
PROTOCOL_DIALOGS = [
    dialog("d1", [turn("alpha please", ["a2"]), turn("more", ["c"]), turn("and more", ["f"])], ["a2", "c", "f"]),
    dialog("d2", [turn("b and d", ["b", "d"]), turn("thanks"), turn("bye")], ["b", "d"]),
    dialog("d3", [turn("four songs", ["g", "h", "i", "e"]), turn("ok")], ["e", "g", "h", "i"]),
    dialog("d4", [turn("alpha twice", ["a1"]), turn("now j")], ["a1", "a2", "j"]),
]


@pytest.fixture
def protocol_files(tmp_path: Path) -> dict[str, Path]:
    train = [dialog(f"t{n}", [turn("hi", POPULAR[:6 - n])], POPULAR[:6 - n]) for n in range(6)]
    return {
        "tracks": write_jsonl(tmp_path / "cpcd_v1.tracks.jsonl", PROTOCOL_TRACKS),
        "dialogs": write_jsonl(tmp_path / "cpcd_v1.dialogs.test.jsonl", PROTOCOL_DIALOGS),
        "train": write_jsonl(tmp_path / "cpcd_v1.dialogs.dev.jsonl", train),
    }


ARTISTS = ["Nina Simone", "Miles Davis", "Daft Punk", "Bon Iver", "Erykah Badu", "The Clash", "Bjork", "Fela Kuti"]
WORDS = ["river", "night", "summer", "gold", "rain", "fire", "blue", "city", "dream", "heart", "road", "moon"]


def catalog_tracks(n: int = 160) -> list[dict[str, Any]]:
    """`n` tracks; every fifth shares its cluster with the track before it (a second recording)."""
    rows = []
    for i in range(n):
        cluster = f"k{i - 1:03d}" if i % 5 == 4 else f"k{i:03d}"
        rows.append(track(f"tr{i:03d}", f"{WORDS[i % 12].title()} {WORDS[(i * 7 + 3) % 12].title()} {i}",
                          [ARTISTS[i % 8]], f"{ARTISTS[i % 8]} Volume {i % 3}", cluster))
    return rows


@pytest.fixture
def catalog_files(tmp_path: Path) -> dict[str, Path]:
    """160 tracks, three conversations; dlgB's goal is used up after its first turn.

    dlgA embeds a track (`zz-embedded`) that the tracks file lacks: it must never be ranked.
    """
    extra = {"zz-embedded": track("zz-embedded", "River Night Summer", ["Nina Simone"], "Bootleg", "kzz")}
    dialogs = [
        dialog("dlgA", [turn("songs by nina simone about the river", ["tr000", "tr008", "tr016", "tr024"]),
                        turn("more miles davis please", ["tr001", "tr009"]),
                        turn("something like daft punk", ["tr002"])],
               ["tr000", "tr008", "tr016", "tr024", "tr001", "tr009", "tr002", "tr040"], tracks=extra),
        dialog("dlgB", [turn("bon iver for a rainy day", ["tr003", "tr011"]), turn("perfect"), turn("bye")],
               ["tr003", "tr011"]),
        dialog("dlgC", [turn("the clash, loud", ["tr005"]), turn("bjork next", ["tr006", "tr014"])],
               ["tr005", "tr006", "tr014", "tr021"]),
    ]
    return {"tracks": write_jsonl(tmp_path / "cpcd_v1.tracks.jsonl", catalog_tracks()),
            "dialogs": write_jsonl(tmp_path / "cpcd_v1.dialogs.dev.jsonl", dialogs)}
