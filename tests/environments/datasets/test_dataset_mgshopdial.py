"""MG-ShopDial's release -> episodes: who speaks, the annotators' intents, a category as split."""

import json

import pytest

from environments.datasets.mgshopdial import category_split, import_mgshopdial
from environments.errors import CrsimError
from environments.models import Role
from simulators.results.runlog import load_run


def _utterance(number, who, text, intents, goal="recommendation"):
    return {"utterance_id": number, "participant": who, "utterance": text, "goal": goal, "intents": intents}


CONVERSATIONS = [
    {"id": "SportsandOutdoors:12:101:140",
     "metadata": {"id": "12", "type": "simple", "constraint": "low", "desc": "You need running shoes.",
                  "client_checklist": ["need"], "wizard_checklist": [], "search_logs": [{"query": "shoes"}]},
     "utterances": [_utterance(1, "Wizard", "Hi, how can I help?", [["greeting", 4.0]], "meta"),
                    _utterance(2, "Client", "I need running shoes ", [["disclose", 3.0]]),
                    _utterance(3, "Wizard", "Any budget?", [["elicit", 2.0]]),
                    _utterance(4, "Wizard", "Or a brand?", [["elicit", 3.0], ["o_question", 2.0]]),
                    _utterance(5, "Client", "100 dollars max", [["answer", 5.0]])]},
    {"id": "Cellphones&Accessories:49:131:127:2", "metadata": {},
     "utterances": [_utterance(1, "Client", "hello, a phone case?", [["elicit", 3.0]])]},
]


def _release(tmp_path, conversations=CONVERSATIONS):
    path = tmp_path / "MGShopDial.json"
    path.write_text(json.dumps(conversations, indent=1))
    return path


def test_clients_are_seekers_and_each_turn_keeps_its_intents(tmp_path):
    report = import_mgshopdial([_release(tmp_path)], tmp_path / "cat")
    assert report.counts["dialogues"] == 2 and report.counts["items"] == 0
    first, second = load_run(tmp_path / "cat" / "dialogues.jsonl").episodes
    assert first.id == "mgshopdial-SportsandOutdoors:12:101:140"
    assert [t.role for t in first.turns] == [Role.recommender, Role.seeker, Role.recommender, Role.recommender,
                                             Role.seeker]  # two assistant messages in a row stay two turns
    assert first.turns[1].text == "I need running shoes"
    assert first.turns[3].metadata["intents"] == {"elicit": 3.0, "o_question": 2.0}
    assert first.turns[0].metadata["goal"] == "meta"
    assert first.profile["split"] == "sportsandoutdoors" and first.profile["task"]["desc"] == "You need running shoes."
    assert second.profile["split"] == "cellphones_accessories" and second.turns[0].role == Role.seeker


def test_the_category_is_the_split():
    assert category_split("Books:45:109:118") == "books"
    assert category_split("Cellphones&Accessories:49:131:127") == "cellphones_accessories"


def test_a_bad_utterance_names_the_file_line_and_field(tmp_path):
    bad = [{"id": "Books:1:2:3", "utterances": [_utterance(1, "Bot", "hi", [])]}]
    with pytest.raises(CrsimError) as error:
        import_mgshopdial([_release(tmp_path, bad)], tmp_path / "cat")
    message = str(error.value)
    assert "MGShopDial.json" in message and "line" in message and "utterances[0].participant" in message
    bad = [{"id": "Books:1:2:3", "utterances": [_utterance(1, "Client", "hi", [["elicit"]])]}]
    with pytest.raises(CrsimError, match=r"utterances\[0\]\.intents\[0\]"):
        import_mgshopdial([_release(tmp_path, bad)], tmp_path / "cat2")


def test_the_cli_imports_it(tmp_path, capsys):
    from simulators.cli.main import main

    assert main(["data", "import", "mgshopdial", str(_release(tmp_path)), "--out", str(tmp_path / "cat")]) == 0
    assert "dialogues" in capsys.readouterr().out
