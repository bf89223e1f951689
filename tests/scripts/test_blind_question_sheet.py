"""The blind sheet: questions from two runs, shuffled, the key apart, and the ratings counted per run."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "blind_question_sheet.py"


def _module():
    spec = importlib.util.spec_from_file_location("blind_question_sheet", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(root: Path, name: str, word: str) -> Path:
    """Three episodes, each: opening, seeker, a question about `word`, a reply; plus one unanswered question."""
    run = root / name
    run.mkdir()
    lines = []
    for index in range(3):
        turns = [{"index": 0, "role": "recommender", "text": "Hello, what are you after?"},
                 {"index": 1, "role": "seeker", "text": f"I need a thing {index}."},
                 {"index": 2, "role": "recommender", "text": f"Any preference on {word}?", "metadata": {"aspect": word}},
                 {"index": 3, "role": "seeker", "text": f"A {word} reply {index}."},
                 {"index": 4, "role": "recommender", "text": "And colour?", "metadata": {"aspect": "colour"}}]
        lines.append(json.dumps({"index": index, "turns": turns}))
    (run / "episodes.jsonl").write_text("\n".join(lines) + "\n")
    return run


def test_sheet_hides_which_run_and_the_key_tells(tmp_path):
    module = _module()
    first, second = _run(tmp_path, "run_x", "amp"), _run(tmp_path, "run_y", "cable")
    out = tmp_path / "sheet.md"
    key = module.write_sheet([first, second], 2, 7, out)
    sheet = out.read_text()
    assert sheet.count("### ") == 4 and "run_x" not in sheet and "run_y" not in sheet
    assert "And colour?" not in sheet  # no reply: not rated
    rows = [json.loads(line) for line in key.read_text().splitlines()]
    assert [row["n"] for row in rows] == [1, 2, 3, 4]
    for row in rows:  # the key names the run whose question the excerpt shows
        block = sheet.split(f"### {row['n']}\n")[1].split("### ")[0]
        assert ("amp" in block) == row["run"].endswith("run_x")
    assert module.write_sheet([first, second], 2, 7, tmp_path / "again.md") and \
        (tmp_path / "again.md").read_text() == sheet  # same seed, same sheet
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("n,q,r,a\n" + "".join(f"{row['n']},{'sensible' if row['run'].endswith('run_y') else 'nonsense'},"
                                             f"sensible,yes\n" for row in rows))
    counts = module.score(key, ratings)
    assert counts[str(second)]["q_sensible"] == 2 and counts[str(first)]["q_nonsense"] == 2
    ratings.write_text("n,q,r,a\n9,sensible,sensible,yes\n")
    with pytest.raises(SystemExit, match="ratings.csv:2: field n"):
        module.score(key, ratings)
    with pytest.raises(SystemExit, match="fewer than -n 5"):
        module.write_sheet([first], 5, 7, out)


def test_a_reply_sheet_shows_each_reply_under_what_it_answered(tmp_path):
    module = _module()
    first, second = _run(tmp_path, "run_x", "amp"), _run(tmp_path, "run_y", "cable")
    out = tmp_path / "replies.md"
    key = module.write_sheet([first, second], 3, 7, out, reply_only=True)
    sheet = out.read_text()
    assert sheet.startswith("Each item:") and sheet.count("   Customer: ") == 6
    assert "run_x" not in sheet and "Customer: I need a thing" in sheet  # the turn after the opening counts too
    rows = [json.loads(line) for line in key.read_text().splitlines()]
    for row in rows:
        item = sheet.split(f"\n{row['n']}. Assistant: ")[1].split("\n\n")[0]
        if "reply" in item:  # a reply to the aspect question: its run's word
            assert ("amp" in item) == row["run"].endswith("run_x")
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("n,r,why\n" + "".join(f"{row['n']},{'sensible' if row['run'].endswith('run_y') else 'awkward'},"
                                             "ok\n" for row in rows))
    counts = module.score(key, ratings)
    assert counts[str(second)] == {"r_sensible": 3} and counts[str(first)] == {"r_awkward": 3}
