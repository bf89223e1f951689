"""The wording bank: people's seeker turns, delexicalised, picked by seed, filled; its file and its CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crsim_testing import MOVIES_FIXTURE, write_redial_fixture
from environments.acts.wordings import (
    WordingBank, attribute_words, fill, fit_wordings, load_wordings, plural_kind, save_wordings,
)
from environments.errors import CrsimError
from environments.models import Episode, Turn

TITLES = {"m1": "Get Out (2017)", "m2": "Us (2019)", "m3": "The Shining (1980)", "m4": "Alien vs. Predator (2004)",
          "m5": "Superbad (2007)"}
KINDS = ["horror", "comedy", "sci-fi"]
# (role, text, items shown, items mentioned)
TURNS = [("seeker", "Hi, I'm looking for a good horror movie", [], []),
         ("recommender", "Have you seen Get Out (2017)?", ["m1"], []),
         ("seeker", "Yes I have seen Get Out, loved it!", [], []),  # the title as people wrote it, no year
         ("recommender", "Then you should watch Us (2019), it is great", ["m2"], []),
         ("seeker", "I haven't seen that one, I'll check it out", [], []),
         ("recommender", "How about The Shining (1980)?", ["m3"], []),
         ("seeker", "I also really liked Superbad", [], ["m5"]),
         ("seeker", "I love comedies too", [], []),
         ("seeker", "I really like Jim Carrey", [], []),  # a name no slot can change
         ("seeker", "Something from 1999 maybe", [], []),  # a year
         ("seeker", "i liked alien vs predator a lot", [], []),  # a catalog title in lower case
         ("seeker", "I liked it, see www.example.com", [], []),
         ("seeker", "have you seen @jigsaw ye", [], []),  # the site's mention syntax, typed by hand
         ("seeker", "I liked Get Out (2017) and Us (2019)", [], ["m1", "m2"]),  # two titles
         ("seeker", "Any others?", [], []),
         ("seeker", "Thanks, bye!", [], [])]


def episode(number: int = 0, split: str = "train", turns=TURNS) -> Episode:
    return Episode(id=f"c{number}", index=number, config_hash="test", seed=0, environment="redial",
                   termination="max_turns", profile={"split": split},
                   turns=[Turn(index=i, role=role, text=text, items_shown=shown,
                               metadata={"mentioned": mentioned} if mentioned else {})
                          for i, (role, text, shown, mentioned) in enumerate(turns)])


@pytest.fixture(scope="module")
def bank() -> WordingBank:
    return fit_wordings([episode(0), episode(1)], TITLES, KINDS, corpus="toy", splits=["train"])


def texts(bank: WordingBank, key: str) -> list[str]:
    return [w.text for w in bank.wordings.get(key, [])]


def test_titles_and_kinds_become_slots(bank: WordingBank):
    assert texts(bank, "react:seen_liked") == ["Yes I have seen {title}, loved it!"]
    assert texts(bank, "react:unseen_liked") == ["I haven't seen that one, I'll check it out"]
    assert texts(bank, "name_liked") == ["I also really liked {title}"]
    assert texts(bank, "preference") == ["Hi, I'm looking for a good {kind} movie", "I love {kinds} too"]
    assert texts(bank, "close") == ["Thanks, bye!"]
    assert all(w.count == 2 for ws in bank.wordings.values() for w in ws)  # the two copies merged
    assert bank.wordings["react:unseen_liked"][0].after == {"recommend": 2}  # what the recommender had just done
    assert bank.wordings["close"][0].after == {"self": 2}  # said after the person's own turns


def test_utterances_still_naming_something_are_dropped(bank: WordingBank):
    said = " ".join(w.text for ws in bank.wordings.values() for w in ws)
    for left_out in ("Carrey", "1999", "predator", "example.com", "Us"):
        assert left_out not in said
    assert bank.source.dropped == {"a capitalised name": 2, "a year or another title": 2,
                                   "a title or person in lower case": 2, "url": 2, "several titles": 2,
                                   "markup or task talk": 2}


def test_the_catalogs_kinds_are_kept_to_read_a_taste_word_as_one(bank: WordingBank):
    assert bank.kinds == ["comedy", "horror", "sci-fi"]
    assert [bank.kind_named(w) for w in ("comedies", "Horror", "sci-fi", "scary")] == ["comedy", "horror", "sci-fi",
                                                                                       None]


def test_wordings_stating_a_taste_of_their_own_are_marked():
    turns = [("seeker", "I want something scary tonight", [], []), ("seeker", "I want a good horror movie", [], [])]
    bank = fit_wordings([episode(turns=turns)], TITLES, KINDS, corpus="toy", splits=["train"])
    marked = {w.text: w.attributes for w in bank.wordings["preference"]}
    assert marked == {"I want something scary tonight": ["scary"], "I want a good {kind} movie": []}
    assert attribute_words("Anything with ghosts in it?") == ["ghosts"]  # a taste the labeller's cue leaves out
    assert {bank.say("preference", seed_keys=(s,), kind="comedy") for s in range(20)} == {"I want a good comedy movie"}
    assert "I want something scary tonight" in {bank.say("preference", seed_keys=(s,), kind="comedy",
                                                         attributes=True) for s in range(40)}


def test_say_is_deterministic_and_fills_slots(bank: WordingBank, tmp_path: Path):
    first = [bank.say("preference", seed_keys=(7, s), kind="action") for s in range(30)]
    assert first == [bank.say("preference", seed_keys=(7, s), kind="action") for s in range(30)]
    save_wordings(bank, tmp_path / "w.json")
    again = load_wordings(tmp_path / "w.json")
    assert again == bank
    assert first == [again.say("preference", seed_keys=(7, s), kind="action") for s in range(30)]
    assert set(first) == {"Hi, I'm looking for a good action movie", "I love action movies too"}  # both, by seed
    assert bank.say("react", reaction="seen_liked", seed_keys=(1,), title="Alien (1979)") == \
        "Yes I have seen Alien (1979), loved it!"  # the catalog's form of the title, as given
    assert bank.say("name_liked", seed_keys=(1,), title="Alien") == "I also really liked Alien"
    reactions = {bank.say("react", seed_keys=(s,), title="Alien") for s in range(30)}
    assert reactions == {"Yes I have seen Alien, loved it!", "I haven't seen that one, I'll check it out"}


def test_say_is_none_when_no_wording_fits(bank: WordingBank):
    assert bank.say("name_liked", seed_keys=(1,)) is None  # its only wording needs a title
    assert bank.say("ask_shown", seed_keys=(1,), title="Alien") is None  # no wording of it at all
    assert bank.say("react", reaction="seen_disliked", seed_keys=(1,), title="Alien") is None
    assert bank.say("react", reaction="unseen_liked", seed_keys=(1,)) is not None  # no slot to fill
    assert bank.say("react", reaction="unseen_liked", seed_keys=(1,), title="Alien", slotted=True) is None
    with pytest.raises(ValueError, match="no wordings for ask_later"):
        bank.say("ask_later", seed_keys=(1,))


def test_after_prefers_what_people_said_after_that_act():
    turns = [("recommender", "Hi! How are you?", [], []), ("seeker", "I am fine thanks", [], []),
             ("recommender", "Have you seen Get Out (2017)?", ["m1"], []), ("seeker", "Have a great day!", [], [])]
    bank = fit_wordings([episode(turns=turns)], TITLES, KINDS, corpus="toy", splits=["train"])
    assert {bank.say("chitchat", seed_keys=(s,), after="other") for s in range(10)} == {"I am fine thanks"}
    assert bank.say("close", seed_keys=(1,), after="elicit") == "Have a great day!"  # none after it: any


def test_a_turn_right_after_the_persons_own_is_said_after_nothing_the_recommender_did():
    # "or {title}" went on what the person had just said; a simulated seeker always answers the recommender
    turns = [("recommender", "What do you like?", [], []), ("seeker", "I liked Superbad", [], ["m5"]),
             ("seeker", "or Us", [], ["m2"])] * 3
    turns += [("recommender", "Any others you liked?", [], []), ("seeker", "I also liked Get Out", [], ["m1"])]
    bank = fit_wordings([episode(turns=turns)], TITLES, KINDS, corpus="toy", splits=["train"])
    after = {w.text: w.after for w in bank.wordings["name_liked"]}
    assert after["or {title}"] == {"self": 3}
    # a list with a question (two contexts at once): by what people said after the recommender
    # people's own counts (3 "I liked", 3 "or", 1 "I also liked") would give "or" 3 in 7 (43%); said only
    # after their own turn, it keeps no more than its share of the prior pseudo-counts (about 24%)
    picks = [bank.say("name_liked", seed_keys=(s,), title="Heat", after="recommend+elicit") for s in range(400)]
    assert set(picks) == {"I liked Heat", "I also liked Heat", "or Heat"} and picks.count("or Heat") < 130


def test_kinds_plural_and_articles():
    assert plural_kind("comedy") == "comedies" and plural_kind("thriller") == "thrillers"
    assert plural_kind("horror") == "horror movies" and plural_kind("jazz", "albums") == "jazz albums"
    assert fill("I want a {kind} movie. {Kinds} rock", kind="action") == "I want an action movie. Action movies rock"
    assert fill("An {kind}, please", kind="comedy") == "A comedy, please"
    assert fill("{Title} was great", title="the second  one") == "The second one was great"
    # a kind people do not count ("a war", "an action") is a kind of movie after an article
    assert fill("I am looking for a {kind}.", kind="war") == "I am looking for a war movie."
    assert fill("I like a really good {kind}!", kind="action") == "I like a really good action movie!"
    assert fill("Is it a {kind}?", kind="comedy") == "Is it a comedy?"
    assert fill("Any {kind} is fine", kind="war") == "Any war is fine"  # no article, nothing added
    assert fill("A {kind} album", kind="jazz", noun="albums") == "A jazz album"
    assert fill("I want a {kind}", kind="jazz", noun="albums") == "I want a jazz album"
    # a shouted wording shouts its value too
    assert fill("ANY GOOD {kinds}?", kind="horror") == "ANY GOOD HORROR MOVIES?"


def test_only_the_given_splits_and_the_source_is_recorded(bank: WordingBank):
    assert bank.source.corpus == "toy" and bank.source.splits == ["train"]
    assert bank.source.conversations == 2 and bank.source.seeker_turns == 26 and bank.source.kept == 14
    with pytest.raises(CrsimError, match="conversation c3 is of split test, not of train"):
        fit_wordings([episode(0), episode(3, split="test")], TITLES, KINDS, corpus="toy", splits=["train"])
    with pytest.raises(CrsimError, match="no seeker turn of split"):
        fit_wordings([], TITLES, KINDS, corpus="toy", splits=["train"])


def test_bad_wordings_files_name_the_file_and_field(bank: WordingBank, tmp_path: Path):
    with pytest.raises(CrsimError, match="no such wordings file"):
        load_wordings(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{\n  \"version\": 1,\n")
    with pytest.raises(CrsimError, match=r"bad.json, line 3: invalid JSON"):
        load_wordings(bad)
    data = bank.model_dump(mode="json")
    data["wordings"]["close"][0]["count"] = "often"
    bad.write_text(json.dumps(data))
    with pytest.raises(CrsimError, match=r"bad.json: field 'wordings.close.0.count'"):
        load_wordings(bad)
    bad.write_text(json.dumps({"version": 9}))
    with pytest.raises(CrsimError, match="wordings version 9"):
        load_wordings(bad)


# --- the CLI, on a ReDial-format corpus ------------------------------------------------------

def _conversation(number: int, messages: list[tuple[str, str]]) -> dict:
    """A ReDial conversation: (seeker|recommender, text with @id mentions) messages."""
    seeker, recommender = 1000 + 2 * number, 1001 + 2 * number
    return {"movieMentions": {}, "respondentQuestions": {}, "initiatorQuestions": {},
            "messages": [{"timeOffset": 10 * n, "text": text, "messageId": n,
                          "senderWorkerId": seeker if who == "seeker" else recommender}
                         for n, (who, text) in enumerate(messages)],
            "conversationId": str(900 + number), "respondentWorkerId": recommender, "initiatorWorkerId": seeker}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ReDial fixture (4 train, 2 test conversations) with one more of each, and genres on its items."""
    from environments.datasets.redial import RedialOptions, import_redial

    raw = write_redial_fixture(tmp_path_factory.mktemp("raw"), n_train=4, n_test=2)
    ids = {json.loads(line)["title"]: str(1000 + n)  # as write_redial_fixture numbers them
           for n, line in enumerate(MOVIES_FIXTURE.read_text(encoding="utf-8").splitlines())}
    extra = {"train_data": [("seeker", "Hi, I'm looking for a good horror movie"),
                            ("recommender", f"Have you seen @{ids['Get Out (2017)']}?"),
                            ("seeker", f"Yes I have seen @{ids['Get Out (2017)']}, loved it!")],
             "test_data": [("seeker", "Hello, only the held out seeker types this line")]}
    for split, messages in extra.items():
        with (raw / f"{split}.jsonl").open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(_conversation(len(split), messages)) + "\n")
    out = tmp_path_factory.mktemp("redial") / "corpus"
    import_redial([raw / "train_data.jsonl", raw / "test_data.jsonl"], out, RedialOptions())
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    for item in items:
        item["attributes"]["genre"] = ["horror"] if item["title"] == "Get Out (2017)" else ["comedy"]
    (out / "items.jsonl").write_text("".join(json.dumps(item) + "\n" for item in items))
    return out


def test_cli_takes_wordings_from_the_training_split(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture):
    from simulators.cli.data_wordings import main

    assert main([str(corpus), "--split", "train_data", "--out", str(tmp_path / "w.json")]) == 0
    assert "of 5 conversations of train_data" in capsys.readouterr().out
    bank = load_wordings(tmp_path / "w.json")
    assert bank.source.corpus == "corpus" and bank.source.splits == ["train_data"]
    assert bank.source.conversations == 5 and bank.item_noun == "movies"
    assert "Yes I have seen {title}, loved it!" in texts(bank, "react:seen_liked")
    assert "Hi, I'm looking for a good {kind} movie" in texts(bank, "preference")
    assert "held out" not in (tmp_path / "w.json").read_text()


def test_cli_refuses_an_unknown_split(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture):
    from simulators.cli.data_wordings import main

    assert main([str(corpus), "--split", "nope", "--out", str(tmp_path / "w.json")]) == 2
    assert "no dialogue of split(s) nope (found: test_data, train_data)" in capsys.readouterr().err
    assert not (tmp_path / "w.json").exists()


def test_the_shipped_bank_reads_and_came_from_training_dialogues():
    bank = load_wordings(Path(__file__).parents[3] / "agents" / "policies" / "redial_wordings.json")
    assert bank.source.corpus == "redial" and bank.source.splits == ["train_data"]
    assert bank.say("react", reaction="seen_liked", seed_keys=(0,), title="Alien (1979)")


SMALL_TALK = [("recommender", "Hi there! How are you today?", [], []), ("seeker", "I'm doing well, how about you?", [], []),
              ("recommender", "What kind of movies do you like?", [], []), ("seeker", "Sorry, my cat walked on the keyboard", [], []),
              ("recommender", "Enjoy the movie tonight!", [], []), ("seeker", "You too, have a good night!", [], []),
              ("recommender", "Can I help?", [], []), ("seeker", "Hello there!", [], [])]


def test_small_talk_keeps_what_it_answered_and_answers_a_turn_like_it():
    bank = fit_wordings([episode(n, turns=SMALL_TALK) for n in range(2)] + [episode(2)], TITLES, KINDS,
                        corpus="toy", splits=["train"])
    fine = next(w for w in bank.wordings["chitchat"] if w.text.startswith("I'm doing well"))
    assert fine.replies_to == ["Hi there! How are you today?"] * 2 and fine.count == 2
    assert all(not w.replies_to for k, ws in bank.wordings.items() if k not in ("chitchat", "close") for w in ws)
    for s in range(20):
        assert bank.say("chitchat", seed_keys=(s,), replying_to="Hi, how are you today?") == \
            "I'm doing well, how about you?"
        # a turn no small talk answered: any of it by the recommender's act, but no hello once it has spoken
        assert bank.say("chitchat", seed_keys=(s,), replying_to="Which director would suit you best?") != "Hello there!"
    assert "Hello there!" in {bank.say("chitchat", seed_keys=(s,), replying_to="") for s in range(40)}
    assert bank.say("close", seed_keys=(1,), replying_to="enjoy the movie tonight") == "You too, have a good night!"


def test_a_rare_context_does_not_pin_one_wording():
    # one wording said once after the recommender asked for a genre ("elicit"), two said three
    # times each after a suggestion: after "elicit" the pick leans on the one (weights 1 + 5/7
    # against 15/7 each: 29% against its 1/7 of the whole) and still varies
    turns = [("recommender", "What genre do you like?", [], []), ("seeker", "I love comedies so much", [], [])]
    turns += [("recommender", "Have you seen Get Out (2017)?", ["m1"], []), ("seeker", "I love horror movies", [], [])] * 3
    turns += [("recommender", "Have you seen Us (2019)?", ["m2"], []), ("seeker", "I like sci-fi movies", [], [])] * 3
    bank = fit_wordings([episode(turns=turns)], TITLES, KINDS, corpus="toy", splits=["train"])
    picks = [bank.say("preference", seed_keys=(s,), after="elicit", kind="drama") for s in range(200)]
    assert 40 < picks.count("I love dramas so much") < 90  # its context's own, more than its share
    assert len(set(picks)) == 3  # but not always


def test_examples_for_a_model_show_people_s_wordings_without_names_or_greetings():
    turns = [("recommender", "What do you like?", [], []), ("seeker", "Hi, I love comedies", [], []),
             ("recommender", "Any others?", [], []), ("seeker", "I'm in the mood for a good horror flick", [], []),
             ("recommender", "Ok", [], []), ("seeker", "I liked Superbad a lot, something like it", [], ["m5"]),
             ("recommender", "Ok", [], []), ("seeker", "I really like sci-fi movies", [], [])]
    bank = fit_wordings([episode(turns=turns)], TITLES, KINDS, corpus="toy", splits=["train"])
    shown = bank.examples("preference", seed_keys=(1,), n=5)
    assert sorted(shown) == ["I really like … movies", "I'm in the mood for a good … flick"]
    assert bank.examples("preference", seed_keys=(1,), n=1) == bank.examples("preference", seed_keys=(1,), n=1)
    assert {bank.examples("preference", seed_keys=(s,), n=1)[0] for s in range(20)} == set(shown)


def test_no_act_but_small_talk_opens_with_a_greeting_once_the_recommender_asked_something():
    turns = [("recommender", "Hi!", [], []), ("seeker", "Hello, I love comedies", [], []),
             ("recommender", "Ok", [], []), ("seeker", "I love horror movies", [], [])]
    bank = fit_wordings([episode(turns=turns)], TITLES, KINDS, corpus="toy", splits=["train"])
    asked = {bank.say("preference", seed_keys=(s,), kind="drama", replying_to="What else do you like?")
             for s in range(30)}
    assert asked == {"I love drama movies"}
    greeted = {bank.say("preference", seed_keys=(s,), kind="drama", replying_to="Hello there!") for s in range(30)}
    assert "Hello, I love dramas" in greeted


def test_a_wording_is_said_as_typed_and_a_message_cut_at_its_apostrophe_is_left_out():
    from environments.acts.wordings import delexicalise

    assert delexicalise("I like movies that are &quot;esoteric&quot; I guess", [], []) == \
        ('I like movies that are "esoteric" I guess', "")
    assert delexicalise("No I haven", [], []) == (None, "cut off mid-word")
    assert delexicalise("No I haven't", [], [])[0] == "No I haven't"
