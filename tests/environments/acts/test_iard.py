"""Reading human intent labels (UserSimCRS' IARD and INSPIRED files) into the act inventory."""

from __future__ import annotations

import json

import pytest

from environments.acts.iard import (IARD_RECOMMENDER, IARD_SEEKER, INSPIRED_SEEKER, GoldLabelError, GoldTurn,
                                    file_has_end, fold, gold_acts, read_gold, titles_in_text, to_episode)
from environments.acts.inventory import RECOMMENDER_ACTS, SEEKER_ACTS

IARD = [{
    "conversation_id": "1",
    "conversation": [
        {"participant": "USER", "utterance": "Hi, can you recommend a thriller?",
         "dialogue_acts": [{"intent": "OTH", "slot_values": []}, {"intent": "IQU", "slot_values": []}]},
        {"participant": "AGENT", "utterance": "Have you seen Cult of Chucky (2017) ?",
         "dialogue_acts": [{"intent": "REC-E", "slot_values": []}]},
        {"participant": "USER", "utterance": "I loved Enchanted (2007) but not that one",
         "dialogue_acts": [{"intent": "PRO"}, {"intent": "REJ"}]},
        {"participant": "AGENT", "utterance": "Bye!", "dialogue_acts": [{"intent": "END"}]},
    ],
}]

INSPIRED = [{
    "conversation_id": "x.pkl",
    "metadata": {"movie_dict": {"Get Out (2017)": 0}},
    "conversation": [
        {"participant": "AGENT", "utterance": "Hi", "metadata": {"utterance_with_placeholders": "Hi"},
         "dialogue_acts": [{"intent": "greeting", "slots": []}]},
        {"participant": "USER", "utterance": "I saw\nGet Out",
         "metadata": {"utterance_with_placeholders": "I saw[SEP][MOVIE_TITLE_0]"},
         "dialogue_acts": [{"intent": "disclose_experience", "slots": []}]},
    ],
}]


def _write(tmp_path, data, name="gold.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


@pytest.mark.parametrize("text, titles", [
    ("Have you seen Cult of Chucky (2017) ?", ["Cult of Chucky"]),
    ("Music and Lyrics (2007) is another one", ["Music and Lyrics"]),
    ("Monsters, Inc. (2001) is one of my favorites", ["Monsters, Inc."]),
    ("How about Love Actually (2003) or Friends with Benefits (2011) ?", ["Love Actually", "Friends with Benefits"]),
    ("Little Giants (1994) ...Yes, Radio (2003) will do", ["Little Giants", "Radio"]),
    ("Maybe Frozen (2013) ?", ["Frozen"]),
    ("It (2017) and It (2017) again", ["It"]),
    ("Star Wars: Episode VIII – The Last Jedi (2017) was worth it", ["Star Wars: Episode VIII – The Last Jedi"]),
    ("no titles here (or years)", []),
])
def test_titles_in_text(text, titles):
    assert titles_in_text(text) == titles


def test_read_iard(tmp_path):
    [dialogue] = read_gold(_write(tmp_path, IARD))
    assert dialogue.id == "1" and dialogue.scheme == "iard"
    assert [t.role for t in dialogue.turns] == ["seeker", "recommender", "seeker", "recommender"]
    assert dialogue.turns[1].titles == ("Cult of Chucky",) and dialogue.turns[2].intents == ("PRO", "REJ")
    episode = to_episode(dialogue)
    assert episode.turns[1].items_shown == ["Cult of Chucky"]
    assert episode.turns[2].metadata == {"mentioned": ["Enchanted"]} and episode.turns[2].items_shown == []


def test_read_inspired_titles_from_placeholders(tmp_path):
    [dialogue] = read_gold(_write(tmp_path, INSPIRED))
    assert dialogue.scheme == "inspired"
    assert dialogue.turns[1].titles == ("Get Out",) and dialogue.turns[1].text == "I saw Get Out"
    assert gold_acts(dialogue.turns[0], "inspired") == (None, ["greeting"])  # its recommender side is not mapped
    assert gold_acts(dialogue.turns[1], "inspired") == (None, ["disclose_experience"])


def test_gold_acts_map_intents_and_keep_chitchat_only_alone():
    turn = GoldTurn(role="seeker", text="", intents=("OTH", "IQU"), titles=())
    assert gold_acts(turn, "iard") == (frozenset({"request"}), [])
    assert gold_acts(GoldTurn("seeker", "", ("OTH",), ()), "iard") == (frozenset({"chitchat"}), [])
    assert gold_acts(GoldTurn("seeker", "", ("CRI-F",), ()), "iard")[0] == {"dislike_shown", "preference"}
    assert gold_acts(GoldTurn("recommender", "", ("REC-E", "EXP-I"), ()), "iard")[0] == {"recommend", "explain"}
    assert gold_acts(GoldTurn("seeker", "", ("ACC", "NEW"), ()), "iard") == (None, ["NEW"])  # unknown: unscored
    assert gold_acts(GoldTurn("seeker", "", (), ()), "iard") == (None, [])


def test_fold_scores_our_acts_as_the_scheme_can_tell_them_apart():
    assert fold(["like_shown", "seen_shown"], "seeker", "iard") == {"seen_shown"}
    assert fold(["name_liked"], "seeker", "iard") == {"preference"}
    assert fold(["greet", "elicit"], "recommender", "iard") == {"elicit"}
    assert fold(["greet"], "recommender", "iard") == {"chitchat"}
    assert fold(["ask_seen"], "recommender", "iard") == {"recommend"}
    assert fold(["accept", "close"], "seeker", "iard", has_end=False) == {"accept"}
    assert fold(["close"], "seeker", "iard", has_end=False) == {"chitchat"}
    assert fold(["close"], "seeker", "iard") == {"close"}


def test_file_has_end(tmp_path):
    assert file_has_end(read_gold(_write(tmp_path, IARD)))
    assert not file_has_end(read_gold(_write(tmp_path, INSPIRED)))


def test_every_documented_intent_has_an_entry_and_maps_into_the_inventory():
    user = "IQU CON REF STO PRO ANS ASK SEE ACC REJ INQ CRI-F CRI-A NRE CRI-C OTH END".split()
    agent = "REQ CLA RES REC-S REC-E EXP-I EXP-P EXP-S END OTH R-ANS RESP CLQ".split()
    assert set(user) <= set(IARD_SEEKER)
    assert set(agent) - {"RES"} <= set(IARD_RECOMMENDER)  # the files write RESP for the prompt's RES
    for table, acts in ((IARD_SEEKER, SEEKER_ACTS), (INSPIRED_SEEKER, SEEKER_ACTS), (IARD_RECOMMENDER, RECOMMENDER_ACTS)):
        assert all(set(v) <= set(acts) for v in table.values() if v is not None)


@pytest.mark.parametrize("content, message", [
    (None, "no such file"),
    ("{not json", "not readable JSON"),
    ("[]", "non-empty JSON list"),
    ([{"conversation": [{"participant": "BOT", "utterance": "hi", "dialogue_acts": []}]}], "USER or AGENT"),
    ([{"conversation": [{"participant": "USER", "utterance": 3, "dialogue_acts": []}]}], "'utterance'"),
    ([{"conversation": [{"participant": "USER", "utterance": "hi", "dialogue_acts": [{"slot": 1}]}]}],
     "'dialogue_acts'"),
    ([{"no": "conversation"}], "'conversation' list"),
])
def test_bad_files_name_the_file_and_the_place(tmp_path, content, message):
    path = tmp_path / "missing.json" if content is None else _write(tmp_path, content, "bad.json")
    with pytest.raises(GoldLabelError) as error:
        read_gold(path)
    assert str(path) in str(error.value) and message in str(error.value)
