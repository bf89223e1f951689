"""SGD's answers to a request -> a bank of wordings for a wanted thing: which turns, cut where."""

import json

import pytest

from environments.acts.answer_wordings import (
    build_answer_wordings, load_answer_wordings, requested_answers, save_answer_wordings, transfers,
)
from environments.errors import CrsimError


def _turn(speaker, text, actions, slots=()):
    return {"speaker": speaker, "utterance": text,
            "frames": [{"actions": [{"act": act, "slot": slot, "values": values} for act, slot, values in actions],
                        "slots": [{"slot": s, "start": a, "exclusive_end": b} for s, a, b in slots]}]}


def _dialogue(*turns):
    return {"dialogue_id": "1_00001", "turns": list(turns)}


ASK_CUISINE = _turn("SYSTEM", "What kind of food?", [("REQUEST", "cuisine", [])])
DIALOGUES = [
    _dialogue(ASK_CUISINE, _turn("USER", "I would like Italian food.", [("INFORM", "cuisine", ["Italian"])],
                                 [("cuisine", 13, 20)])),
    _dialogue(ASK_CUISINE, _turn("USER", "I would like some Thai food.", [("INFORM", "cuisine", ["Thai"])])),
    _dialogue(ASK_CUISINE, _turn("USER", "Mexican.", [("INFORM", "cuisine", ["Mexican"])])),
    # not taken: a city, a value with a preposition before it, a question, no request before, dontcare
    _dialogue(_turn("SYSTEM", "Which city?", [("REQUEST", "city", [])]),
              _turn("USER", "I would like Denver.", [("INFORM", "city", ["Denver"])])),
    _dialogue(ASK_CUISINE, _turn("USER", "Something in Korean.", [("INFORM", "cuisine", ["Korean"])])),
    _dialogue(ASK_CUISINE, _turn("USER", "How about Greek?", [("INFORM", "cuisine", ["Greek"])])),
    _dialogue(_turn("SYSTEM", "Hello.", [("GREETING", "", [])]),
              _turn("USER", "Vegan.", [("INFORM", "cuisine", ["Vegan"])])),
    _dialogue(ASK_CUISINE, _turn("USER", "Anything is fine.", [("INFORM", "cuisine", ["dontcare"])])),
]


def test_an_answer_to_a_request_is_cut_where_the_value_and_its_noun_stand():
    answers = list(requested_answers(DIALOGUES))
    assert answers[:3] == ["I would like {value}.", "I would like {value}.", "{value}."]
    assert "Something in {value}." in answers and "How about {value}?" in answers
    assert not any("Denver" in a or "Vegan" in a or "Anything" in a for a in answers)


def test_a_wording_transfers_when_every_other_word_is_an_everyday_one():
    assert transfers("I would like {value}.") and transfers("{value} would be great!")
    assert not transfers("Something in {value}.") and not transfers("How about {value}?")
    assert not transfers("I want {value} near the airport.") and not transfers("Yes, {value}.")
    assert not transfers("I {value}.")  # "I Rock." was a genre said as a verb


def test_the_bank_keeps_wordings_people_wrote_often_enough_and_draws_them_by_count(tmp_path):
    path = tmp_path / "train" / "dialogues_001.json"
    path.parent.mkdir()
    path.write_text(json.dumps(DIALOGUES))
    bank = build_answer_wordings([path], min_count=2)
    assert [(w.text, w.count) for w in bank.wordings] == [("I would like {value}.", 2)]
    assert bank.source.files == ["train/dialogues_001.json"] and "CC BY-SA" in bank.source.licence
    assert bank.source.answers == 5 and bank.source.kept == 2
    assert bank.fill("a soft fabric", "k", 1) == "I would like a soft fabric."
    save_answer_wordings(bank, tmp_path / "bank.json")
    assert load_answer_wordings(tmp_path / "bank.json") == bank
    loose = build_answer_wordings([path], min_count=1)
    draws = {loose.pick("k", n) for n in range(200)}
    assert draws == {"I would like {value}.", "{value}."} and loose.pick("k", 7) == loose.pick("k", 7)


def test_a_bank_of_another_version_or_not_a_bank_is_a_clear_error(tmp_path):
    (tmp_path / "old.json").write_text(json.dumps({"version": 0, "source": {
        "corpus": "x", "licence": "x", "files": [], "answers": 0, "kept": 0}, "wordings": []}))
    with pytest.raises(CrsimError, match="version 0"):
        load_answer_wordings(tmp_path / "old.json")
    (tmp_path / "bad.json").write_text("[]")
    with pytest.raises(CrsimError, match="bad.json"):
        load_answer_wordings(tmp_path / "bad.json")


def test_the_cli_writes_the_bank(tmp_path, capsys):
    from simulators.cli.main import main

    path = tmp_path / "dialogues_001.json"
    path.write_text(json.dumps(DIALOGUES))
    assert main(["data", "answer-wordings", str(path), "--out", str(tmp_path / "bank.json"), "--min-count", "1"]) == 0
    assert "took 3 of 5 answers" in capsys.readouterr().out
    assert len(load_answer_wordings(tmp_path / "bank.json").wordings) == 2


def test_the_shipped_bank_is_people_s_most_said_wordings():
    from agents.seekers.decisions import load_answer_bank

    bank = load_answer_bank("sgd")
    assert len(bank.wordings) >= 20 and all(transfers(w.text) for w in bank.wordings)
    assert "{value}." in [w.text for w in bank.wordings[:3]] and all(w.count >= 2 for w in bank.wordings)
    assert load_answer_bank(None) is None


def test_a_plural_value_takes_are():
    from environments.acts.answer_wordings import AnswerSource, AnswerWording, AnswerWordings

    bank = AnswerWordings(source=AnswerSource(corpus="test", files=[], answers=1, kept=1, licence="x"),
                          wordings=[AnswerWording(text="{value} is good.", count=1)])
    assert bank.fill("stock tuners", "k") == "Stock tuners are good."
    assert bank.fill("a volume control", "k") == "A volume control is good."
