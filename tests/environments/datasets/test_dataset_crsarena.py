"""CRS Arena adapter: CRSArena-Dial conversations with satisfaction and votes, CRSArena-Eval's labels."""

from __future__ import annotations

import json

import pytest
from crsarena_fixture import CONVERSATIONS, U1, U3, conv_id, import_release, write_release

from environments.catalog import Catalog
from environments.datasets.crsarena import CrsArenaOptions, import_crsarena, titles_in
from environments.errors import CatalogError
from simulators.results.runlog import load_run
from simulators.validity.turns import corpus_episodes, seeker_dialogues


@pytest.fixture
def release(tmp_path):
    return write_release(tmp_path / "release", repeat_vote=True)


def _import(release, out, **options):
    data = release / "data"
    return import_crsarena([data / "crs_arena_dial_open.json", data / "crs_arena_dial_closed.json"], out,
                           CrsArenaOptions(**options))


def test_conversations_become_episodes_with_satisfaction_votes_and_labels(release, tmp_path):
    out = tmp_path / "cat"
    report = _import(release, out, eval_labels=release / "crs_arena_eval.json")
    # items: Blade Runner 2049, Alien, The Matrix, Arrival, The Hangover, Step Brothers, It, Get Out, Airplane!
    assert report.counts == {"items": 9, "reviews": 0, "users": 0, "dialogues": 6, "votes": 4}
    assert report.rows_read == 6 and report.filtered == {} and report.skipped == 0
    manifest = json.loads((out / "catalog.json").read_text())["extra"]["import"]
    assert manifest["settings"] == {"open": 4, "closed": 2}
    assert (manifest["votes"], manifest["votes_matched"], manifest["votes_repeated"]) == (4, 3, 1)
    assert manifest["labelled_dialogues"] == 5
    Catalog.load(out)  # every line validates
    run = load_run(out / "dialogues.jsonl")
    assert not run.problems
    episodes = {e.profile["conversation_id"]: e for e in run.episodes}
    assert [e.id for e in run.episodes] == [f"crsarena-{conv_id(c[0])}" for c in CONVERSATIONS]

    d1 = episodes[conv_id("d1")]
    assert [t.role for t in d1.turns] == ["seeker", "recommender", "seeker", "recommender"]
    assert d1.turns[0].text == "D1 I want a science fiction movie"
    assert d1.turns[1].items_shown == ["Blade Runner 2049 (2017)"]
    assert d1.turns[3].items_shown == ["Alien (1979)", "The Matrix"]
    assert d1.turns[1].metadata == {"utterance_id": f"kbrd_opendialkg-{U1}_1",
                                    "labels": {"relevance": 0, "interestingness": 1}}
    assert "labels" not in d1.turns[0].metadata
    assert d1.termination == "seeker_quit" and d1.targets == []
    profile = d1.profile
    assert (profile["crs"], profile["crs_model"], profile["crs_dataset"]) == ("kbrd_opendialkg", "kbrd", "opendialkg")
    assert (profile["user_id"], profile["split"], profile["satisfaction"], profile["satisfied"]) == (
        U1, "open", "frustrated", 0)
    assert profile["labels"]["dialogue_overall"] == 1 and profile["labels"]["explanation"] == 1
    assert profile["vote"] == {"result": "lose", "opponent": "barcor_redial", "setting": "open",
                               "session_id": "2024-09-09 12:39:13", "user_id": U1, "crs1": "kbrd_opendialkg",
                               "crs2": "barcor_redial", "vote": "barcor_redial", "feedback": "CRS2 understood me"}
    assert episodes[conv_id("d3")].profile["vote"]["result"] == "win"
    assert episodes[conv_id("d5")].profile["vote"]["result"] == "tie"

    d6 = episodes[conv_id("d6")]  # not in CRSArena-Eval; two user turns in a row and an empty one kept
    assert d6.profile["labels"] is None and d6.profile["satisfied"] == 1 and d6.profile["split"] == "closed"
    assert [t.role for t in d6.turns] == ["seeker", "seeker", "recommender", "seeker"] and d6.turns[3].text == ""

    votes = [json.loads(line) for line in (out / "votes.jsonl").read_text().splitlines()]
    assert [v["vote"] for v in votes] == ["barcor_redial", "chatgpt_redial", "barcor_redial", "tie"]
    assert [v["repeated"] for v in votes] == [False, False, True, False]
    assert [v["setting"] for v in votes] == ["open", "open", "open", "closed"]


def test_validate_reads_its_seeker_turns_by_setting(release, tmp_path):
    out = tmp_path / "cat"
    _import(release, out)
    closed = seeker_dialogues(corpus_episodes(out, "closed"))
    assert [len(d.turns) for d in closed] == [1, 2]  # d6's empty closing turn has no text
    every = seeker_dialogues(corpus_episodes(out))
    assert sum(len(d.turns) for d in every) == 8 and len(every) == 6


def test_without_labels_or_votes(release, tmp_path):
    out = tmp_path / "cat"
    data = release / "data"
    report = import_crsarena([data / "crs_arena_dial_closed.json"], out, CrsArenaOptions(votes=[]))
    # an empty --votes list means: the default files next to the dialogues
    assert report.counts["dialogues"] == 2 and report.counts["votes"] == 1
    episodes = load_run(out / "dialogues.jsonl").episodes
    assert all(e.profile["labels"] is None for e in episodes)
    assert [e.profile["vote"]["result"] for e in episodes] == ["tie", "tie"]
    # CRSArena-Eval conversations of the open setting have no dialogue here: counted, not an error
    report = import_crsarena([data / "crs_arena_dial_closed.json"], tmp_path / "cat2",
                             CrsArenaOptions(eval_labels=release / "crs_arena_eval.json"))
    assert report.filtered == {"CRSArena-Eval conversations not in the dialogue files": 4}


def test_a_bad_conversation_names_file_line_and_field(release, tmp_path):
    path = release / "data" / "crs_arena_dial_open.json"
    records = json.loads(path.read_text())
    records[2]["conversation"][1]["participant"] = "BOT"
    path.write_text(json.dumps(records, indent=4), encoding="utf-8")
    # the third conversation's object opens on the line before its "conversation ID"
    line = next(i for i, text in enumerate(path.read_text().splitlines(), start=1)
                if conv_id("d3") in text and "conversation ID" in text) - 1
    with pytest.raises(CatalogError) as info:
        _import(release, tmp_path / "cat")
    assert str(info.value) == (f"{path}, line {line}, field 'conversation[1].participant': "
                               "expected USER or AGENT, got 'BOT'")
    assert not (tmp_path / "cat").exists()
    report = _import(release, tmp_path / "cat", skip_bad=True)
    assert report.counts["dialogues"] == 5 and report.skipped == 1
    assert report.problems == [f"crs_arena_dial_open.json:{line} field 'conversation[1].participant': "
                               "expected USER or AGENT, got 'BOT'"]


def test_bad_votes_and_labels_name_their_file_line_and_field(release, tmp_path):
    votes = release / "data" / "votes_closed.csv"
    votes.write_text(votes.read_text().replace(",tie,", ",maybe,"), encoding="utf-8")
    with pytest.raises(CatalogError, match=rf"^{votes}, line 2, field 'vote': expected crs1 \('chatgpt_redial'\), "
                                           r"crs2 \('barcor_redial'\) or 'tie', got 'maybe'$"):
        _import(release, tmp_path / "cat")
    votes.write_text(votes.read_text().replace(",maybe,", ",tie,"), encoding="utf-8")

    labels = release / "crs_arena_eval.json"
    records = json.loads(labels.read_text())
    records[1]["dialogue"][1]["utterance"] = "It was a good movie."
    labels.write_text(json.dumps(records, indent=2), encoding="utf-8")
    line = next(i for i, text in enumerate(labels.read_text().splitlines(), start=1) if conv_id("d2") in text) - 1
    with pytest.raises(CatalogError, match=rf"^{labels}, line {line}, field 'dialogue\[1\].utterance': "
                                           r"'It was a good movie.' differs from CRSArena-Dial's"):
        _import(release, tmp_path / "cat", eval_labels=labels)
    report = _import(release, tmp_path / "cat", eval_labels=labels, skip_bad=True)
    assert report.filtered == {"conversations imported without labels (CRSArena-Eval's text differs)": 1}
    assert report.counts["dialogues"] == 6


def test_a_file_that_is_not_a_json_array_is_refused(tmp_path):
    path = tmp_path / "crs_arena_dial_open.json"
    path.write_text('{"conversation ID": "x"}\n', encoding="utf-8")
    with pytest.raises(CatalogError, match=r"line 1: expected a JSON array of objects"):
        import_crsarena([path], tmp_path / "cat")
    path.write_text('[\n  {"conversation ID": "x"},\n  {"broken": \n]\n', encoding="utf-8")
    with pytest.raises(CatalogError, match=r"line 4: invalid JSON"):  # even when bad rows are skipped
        import_crsarena([path], tmp_path / "cat", CrsArenaOptions(skip_bad=True))


def test_titles_shown_by_crs_turns():
    assert titles_in("Have you seen Blade Runner 2049 (2017)?") == ["Blade Runner 2049 (2017)"]
    assert titles_in("How about Blade (1982)?") == ["Blade (1982)"]
    assert titles_in(" oh great, you should watch La La Land (2016) and Hairspray (2007)") == [
        "La La Land (2016)", "Hairspray (2007)"]
    assert titles_in("I would recommend the following items   \n1  Shark Night  \n2  The Silence of the Lambs") == [
        "Shark Night", "The Silence of the Lambs"]
    assert titles_in("Here you go:\n1: Guardians of the Galaxy - A group of criminals\n2. **Inception** (2010)") == [
        "Guardians of the Galaxy", "Inception (2010)"]
    assert titles_in("Persona is a 1966 Swedish film.") == [] and titles_in("It was released in (2012).") == []


def test_the_cli_imports_with_the_default_vote_files(tmp_path, capsys):
    from simulators.cli.data import main

    data = write_release(tmp_path / "release")
    out = tmp_path / "cat"
    assert main(["import", "crsarena", str(data / "data" / "crs_arena_dial_open.json"),
                 str(data / "data" / "crs_arena_dial_closed.json"), "--eval-labels",
                 str(data / "crs_arena_eval.json"), "--out", str(out)]) == 0
    assert "dialogues" in capsys.readouterr().out
    assert len((out / "votes.jsonl").read_text().splitlines()) == 3
    assert import_release(tmp_path / "again", tmp_path / "cat2").exists()
    assert U3 in (tmp_path / "cat2" / "dialogues.jsonl").read_text()
