"""`crsim validate`: runs beside a corpus, written to validity.csv and a plot."""

import json
from pathlib import Path

import pandas as pd

from crsim_testing import make_tiny_catalog
from environments.models import Episode, Role, TerminationReason, Turn
from simulators.cli.validate import main


def _dialogue(index: int, seeker_texts: list[str], split: str | None = None) -> Episode:
    turns = []
    for text in seeker_texts:
        turns.append(Turn(index=len(turns), role=Role.recommender, text="What would you like?"))
        turns.append(Turn(index=len(turns), role=Role.seeker, text=text))
    return Episode(id=f"d{index}", index=index, config_hash="x", seed=0, environment="t", turns=turns,
                   termination=TerminationReason.max_turns, profile={"split": split} if split else {})


def _write(path: Path, episodes: list[Episode]) -> None:
    path.write_text("".join(e.model_dump_json() + "\n" for e in episodes))


def test_writes_every_figure_with_the_people_beside_each_run(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    make_tiny_catalog().save(corpus)
    # people: 2 test dialogues (words 3+5, 3 -> 11/3 per turn; 1 question in 3 turns), 1 train dialogue
    _write(corpus / "dialogues.jsonl", [_dialogue(0, ["any good place?", "I like quiet Greek food"], "test"),
                                        _dialogue(1, ["something cheap please"], "test"),
                                        _dialogue(2, ["this one is train only ok"], "train")])
    run = tmp_path / "run"
    run.mkdir()
    _write(run / "episodes.jsonl", [_dialogue(i, ["Quiet atmosphere is a big thing for me."] * 2) for i in range(3)])
    assert main([str(run), "--against", str(corpus), "--split", "test", "--catalog", str(corpus),
                 "--reference", f"{corpus}:train", "--no-classifier", "--out", str(tmp_path / "out")]) == 0
    frame = pd.read_csv(tmp_path / "out" / "validity.csv").set_index(["set", "figure"])
    assert abs(frame.loc[("people", "words_per_turn"), "value"] - 11 / 3) < 1e-12
    assert abs(frame.loc[("people", "question_share"), "value"] - 1 / 3) < 1e-12
    # other people as a yardstick (--reference): the train split's one turn, beside the test split's people
    assert frame.loc[("people: corpus:train", "words_per_turn"), "value"] == 6.0
    assert abs(frame.loc[("people: corpus:train", "words_per_turn"), "difference"] - (6 - 11 / 3)) < 1e-12
    run_label = next(label for label in frame.index.get_level_values(0) if not label.startswith("people"))
    assert frame.loc[(run_label, "words_per_turn"), "value"] == 8.0
    assert abs(frame.loc[(run_label, "words_per_turn"), "difference"] - (8 - 11 / 3)) < 1e-12
    assert frame.loc[(run_label, "template_rate"), "value"] == 1.0
    assert (tmp_path / "out" / "validity.png").stat().st_size > 10_000
    assert "words_per_turn" in capsys.readouterr().out


def test_crsim_report_shows_the_validity_of_a_run(tmp_path):
    from simulators.report import build_report

    corpus = tmp_path / "corpus"
    make_tiny_catalog().save(corpus)
    _write(corpus / "dialogues.jsonl", [_dialogue(0, ["any good place?", "I like quiet Greek food"])])
    run = tmp_path / "run"
    run.mkdir()
    _write(run / "episodes.jsonl", [_dialogue(i, ["Quiet atmosphere is a big thing for me."]) for i in range(2)])
    assert main([str(run), "--against", str(corpus), "--no-classifier"]) == 0  # writes into the run
    page = (build_report(run).out / "index.html").read_text()
    assert '<section id="validity">' in page and "words_per_turn" in page and "data:image/png;base64" in page


def test_a_corpus_without_dialogues_is_one_line(tmp_path, capsys):
    make_tiny_catalog().save(tmp_path / "corpus")
    (tmp_path / "run").mkdir()
    _write(tmp_path / "run" / "episodes.jsonl", [_dialogue(0, ["hi"])])
    assert main([str(tmp_path / "run"), "--against", str(tmp_path / "corpus"), "--no-classifier"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("crsim: error:") and "dialogues.jsonl" in err and err.count("\n") == 1


def test_grounded_runs_are_compared_with_the_same_conversations(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    make_tiny_catalog().save(corpus)
    _write(corpus / "dialogues.jsonl", [_dialogue(0, ["one two"]), _dialogue(1, ["one two three four"]),
                                        _dialogue(2, ["one two three four five six"])])
    run = tmp_path / "run"
    run.mkdir()
    replayed = [_dialogue(0, ["a b c"]).model_copy(update={"profile": {"conversation_id": "d2"}})]
    _write(run / "episodes.jsonl", replayed)
    assert main([str(run), "--against", str(corpus), "--no-classifier", "--out", str(tmp_path / "out")]) == 0
    frame = pd.read_csv(tmp_path / "out" / "validity.csv").set_index(["set", "figure"])
    assert frame.loc[("people", "words_per_turn"), "value"] == 6.0  # only d2, the conversation the run replays
    assert "the people are the 1 conversations they replay" in capsys.readouterr().out
    other = run.parent / "other"  # another corpus, none of whose conversations the run replays: all its people
    make_tiny_catalog().save(other)
    _write(other / "dialogues.jsonl", [_dialogue(7, ["one two"]), _dialogue(8, ["one two three four"])])
    assert main([str(run), "--against", str(other), "--no-classifier", "--out", str(tmp_path / "out2")]) == 0
    frame = pd.read_csv(tmp_path / "out2" / "validity.csv").set_index(["set", "figure"])
    assert frame.loc[("people", "words_per_turn"), "value"] == 3.0
    assert "replay none of these conversations: the people are all 2" in capsys.readouterr().out


def test_runs_with_the_same_label_stay_apart(tmp_path):
    from pathlib import Path

    from simulators.cli.validate import distinct_labels

    paths = [tmp_path / "new" / "gtb", tmp_path / "old" / "gtb", tmp_path / "x" / "gtf"]
    assert distinct_labels(["gtb:a=1", "gtb:a=1", "gtf:a=1"], paths) == ["new/gtb:a=1", "old/gtb:a=1", "gtf:a=1"]
    same = [Path("/r/a/run"), Path("/s/a/run")]
    assert distinct_labels(["run", "run"], same) == ["a/run #1", "a/run #2"]


def test_a_bank_built_from_the_compared_conversations_is_said_loudly(tmp_path, capsys):
    from environments.acts.wordings import WordingBank, WordingSource, save_wordings

    corpus = tmp_path / "redial"
    make_tiny_catalog().save(corpus)
    _write(corpus / "dialogues.jsonl", [_dialogue(0, ["thank you so much for your help"], "train_data"),
                                        _dialogue(1, ["thank you so much for your help"], "test_data")])
    bank = tmp_path / "bank.json"
    save_wordings(WordingBank(source=WordingSource(corpus="redial", splits=["train_data"], conversations=1,
                                                   seeker_turns=1, kept=1), wordings={}), bank)
    run = tmp_path / "run"
    run.mkdir()
    _write(run / "episodes.jsonl", [_dialogue(5, ["Thank you so much for your help!"])])
    (run / "config.yaml").write_text(f"seeker:\n  policy: auto\n  wordings: {bank}\n")
    for split, loud in (("train_data", True), ("test_data", False), (None, True)):
        out = tmp_path / f"out-{split}"
        assert main([str(run), "--against", str(corpus), "--no-classifier", "--out", str(out),
                     *(["--split", split] if split else [])]) == 0
        err = capsys.readouterr().err
        assert ("wording bank was built from redial's train_data" in err) is loud, (split, err)
        frame = pd.read_csv(out / "validity.csv").set_index(["set", "figure"])
        run_label = frame.index.get_level_values(0)[-1]
        assert frame.loc[(run_label, "verbatim_overlap"), "value"] == 1.0


def test_a_reference_names_its_split_after_the_last_colon():
    from simulators.cli.validate import reference_spec

    assert reference_spec("data/redial:tune_data") == (Path("data/redial"), "tune_data")
    assert reference_spec("data/inspired") == (Path("data/inspired"), None)


def test_a_corpus_that_names_no_items_still_compares_and_counts_pointing_by_place(tmp_path):
    """MG-ShopDial's import has dialogues and no items: the item figures are left out, not an error."""
    from environments.datasets.mgshopdial import import_mgshopdial

    release = tmp_path / "MGShopDial.json"
    utterances = [{"utterance_id": 1, "participant": "Wizard", "utterance": "Any budget?", "intents": []},
                  {"utterance_id": 2, "participant": "Client", "utterance": "100 dollars max", "intents": []}]
    release.write_text(json.dumps([{"id": f"Books:{n}:1:2", "utterances": utterances} for n in range(3)]))
    import_mgshopdial([release], tmp_path / "shop")
    run = tmp_path / "run"
    run.mkdir()
    _write(run / "episodes.jsonl", [_dialogue(i, ["The first one is a no.", "Something cheap please"])
                                    for i in range(3)])
    assert main([str(run), "--against", str(tmp_path / "shop"), "--no-classifier", "--out", str(tmp_path / "out")]) == 0
    frame = pd.read_csv(tmp_path / "out" / "validity.csv").set_index(["set", "figure"])
    run_label = next(label for label in frame.index.get_level_values(0) if label != "people")
    assert frame.loc[("people", "position_reference_share"), "value"] == 0.0
    assert frame.loc[(run_label, "position_reference_share"), "value"] == 0.5
    assert ("people", "item_name_share") not in frame.index
