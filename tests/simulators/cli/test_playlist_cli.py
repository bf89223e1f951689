"""`experiment=playlist` on a catalog imported with `crsim data import cpcd`, as a user runs it:
episodes are the imported conversations (their goal playlists, opened by their first
utterances), both seekers and two curators sweep, and replay renders each turn's set."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from cpcd_samples import dialog, track, turn, write_jsonl
from crsim_testing import crsim

ARTISTS = ["Nina Simone", "Miles Davis", "Daft Punk", "Bon Iver", "The Clash"]
GENRES = ["jazz", "jazz", "electronic", "folk", "punk"]
CONVERSATIONS = {
    "dlgA": ("some nina simone for a slow evening", ["tr000", "tr005", "tr010", "tr015"]),
    "dlgB": ("daft punk and other electronic stuff", ["tr002", "tr007", "tr012"]),
    "dlgC": ("loud songs by the clash", ["tr004", "tr009", "tr014", "tr019", "tr024"]),
}


def imported_catalog(tmp_path: Path) -> Path:
    tracks = [{**track(f"tr{i:03d}", f"Song {i}", [ARTISTS[i % 5]], f"{ARTISTS[i % 5]} Vol {i % 2}", f"k{i:03d}"),
               "track_genres": [GENRES[i % 5]]} for i in range(60)]
    dialogs = [dialog(d, [turn(text, goal[:2]), turn("more like that", goal[2:3])], goal)
               for d, (text, goal) in CONVERSATIONS.items()]
    files = {"tracks": write_jsonl(tmp_path / "cpcd_v1.tracks.jsonl", tracks),
             "dialogs": write_jsonl(tmp_path / "cpcd_v1.dialogs.dev.jsonl", dialogs)}
    out = tmp_path / "cpcd"
    done = crsim("data", "import", "cpcd", str(files["dialogs"]), "--tracks", str(files["tracks"]), "--out", str(out),
                 "--no-progress")
    assert done.returncode == 0, done.stderr
    return out


def test_the_playlist_experiment_runs_on_imported_conversations(tmp_path: Path) -> None:
    catalog = imported_catalog(tmp_path)
    sweep = tmp_path / "sweep"
    done = crsim("run", "-m", "experiment=playlist", f"environment.catalog={catalog}", "episodes=3", "max_turns=3",
                 "recommender=curator_bm25,curator_popularity", "progress=false", f"hydra.sweep.dir={sweep}")
    assert done.returncode == 0, done.stderr[-3000:]
    runs = sorted(p.parent for p in sweep.rglob("episodes.jsonl"))
    assert len(runs) == 4  # both seekers x two curators
    for run in runs:
        episodes = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
        by_goal = {e["profile"]["goal_id"]: e for e in episodes}
        assert sorted(by_goal) == [f"cpcd-{d}" for d in CONVERSATIONS]  # the import's conversation ids
        for goal_id, episode in by_goal.items():
            text, goal = CONVERSATIONS[goal_id.removeprefix("cpcd-")]
            opening = episode["turns"][0]
            assert opening["role"] == "seeker" and opening["text"] == text
            assert sorted(episode["targets"]) == sorted(goal)
        rows = list(csv.DictReader((run / "results.csv").open()))
        assert {"set_f1", "set_recall", "hits@10"} <= {row["metric"] for row in rows}
    rendered = crsim("replay", str(runs[0]), "--render")
    assert rendered.returncode == 0 and "set +" in rendered.stdout
