"""The act labeller's accuracy script on a tiny hand-written gold file."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "eval_act_labeller.py"


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("eval_act_labeller", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _turn(participant, utterance, *intents):
    return {"participant": participant, "utterance": utterance,
            "dialogue_acts": [{"intent": i, "slot_values": []} for i in intents]}


def _dialogue(number, reaction, intent):
    return {"conversation_id": str(number), "conversation": [
        _turn("USER", "Hi, can you recommend a comedy?", "OTH", "IQU"),
        _turn("AGENT", "How about Superbad (2007) ? It is hilarious.", "REC-S", "EXP-I"),
        _turn("USER", reaction, intent),
        _turn("AGENT", "Have a great night, bye!", "END"),
        _turn("USER", "Thanks, bye!", "END"),
    ]}


GOLD = [_dialogue(1, "I'll check it out!", "ACC"), _dialogue(2, "Never heard of it.", "NRE"),
        _dialogue(3, "Hmm, what is it about?", "INQ"), _dialogue(4, "It was ok, I guess", "SEE")]


def _write(path, data):
    path.write_text(json.dumps(data))
    return path


def test_scores_per_act_with_dialogue_bootstrap_intervals(script, tmp_path, capsys):
    gold = _write(tmp_path / "gold.json", GOLD)
    tuning = _write(tmp_path / "tuning.json", GOLD[:2] + [_dialogue(9, "Not a fan of that one", "REJ")])
    out, dump = tmp_path / "out" / "labeller.json", tmp_path / "turns.jsonl"
    code = script.main(["--gold", str(gold), "--tuning", str(tuning), "--out", str(out), "--resamples", "200",
                        "--dump", str(dump)])
    assert code == 0
    report = json.loads(out.read_text())
    held_out, tuned = report["files"]
    assert not held_out["tuning"] and tuned["tuning"] and tuned["dropped_overlap"] == 2 and tuned["dialogues"] == 1
    seeker = held_out["roles"]["seeker"]
    assert seeker["turns"] == 12 and seeker["unscored"] == {}
    assert seeker["acts"]["request"]["support"] == 4 and seeker["acts"]["request"]["recall"]["value"] == 1.0
    for act in ("accept", "unseen_shown", "ask_shown"):
        row = seeker["acts"][act]
        assert (row["support"], row["predicted"], row["precision"]["value"], row["f1"]["value"]) == (1, 1, 1.0, 1.0)
    assert seeker["acts"]["seen_shown"]["recall"]["value"] == 0.0  # "it was ok" is not caught
    assert seeker["acts"]["close"]["f1"]["value"] == 1.0
    assert seeker["exact"]["value"] == pytest.approx(11 / 12, abs=1e-4)  # figures are rounded to 4 places
    for role in held_out["roles"].values():
        for figure in [role["exact"], *role["micro"].values()] + [row[k] for row in role["acts"].values()
                                                                  for k in ("precision", "recall", "f1")]:
            if figure["value"] is not None:
                assert 0.0 <= figure["low"] <= figure["value"] <= figure["high"] <= 1.0
    assert report["mapping"]["iard"]["seeker"]["ACC"] == ["accept"]
    printed = capsys.readouterr().out
    assert "TUNING SET" in printed and "2 dropped as also held out" in printed and "exact set" in printed
    rows = [json.loads(line) for line in dump.read_text().splitlines()]
    assert {r["role"] for r in rows} == {"seeker", "recommender"} and all(r["why"] for r in rows)


def test_unmapped_intents_are_counted_not_scored(script, tmp_path):
    data = [{"conversation_id": "1", "conversation": [_turn("USER", "hello", "NEW"), _turn("USER", "hi", "OTH")]}]
    report = script.evaluate([_write(tmp_path / "gold.json", data)], resamples=10)
    seeker = report["files"][0]["roles"]["seeker"]
    assert seeker["turns"] == 1 and seeker["unscored"] == {"NEW": 1}


def test_bad_input_names_the_file(script, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    assert script.main(["--gold", str(bad), "--out", str(tmp_path / "out.json")]) == 2
    assert str(bad) in capsys.readouterr().err
    assert not (tmp_path / "out.json").exists()
