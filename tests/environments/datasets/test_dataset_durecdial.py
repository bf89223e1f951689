"""DuRecDial 2.0 adapter: alternating speakers, items by domain, accept/reject from profile and goal sequence."""

from __future__ import annotations

import copy

import pytest

from environments.catalog import Catalog
from environments.datasets.durecdial import DurecdialOptions, import_durecdial
from environments.errors import CatalogError
from simulators.results.runlog import load_run


def dialogue(goal, profile, utterances, situation="Time: 20:00, at home"):
    """A DuRecDial 2.0 line: utterances are (text, goal type, goal topic, knowledge triple)."""
    return {"goal": goal, "user_profile": profile, "conversation": [u[0] for u in utterances],
            "goal_topic_list": [u[2] for u in utterances], "goal_type_list": [u[1] for u in utterances],
            "situation": situation, "knowledge": [u[3] for u in utterances]}


QA_THEN_MOVIES = dialogue(
    "[1] Q&A(Jay Chou)-->[2] Movie recommendation(Secret)-->[3] Movie recommendation(The Green Hornet)-->"
    "[4]Say goodbye",
    {"Age Range": "18-25", "Name": "Xiaoming Li", "Residence": "Beijing", "Accepted movies": ["Initial D"],
     "Gender": "Male", "Accepted celebrities": ["Jay Chou"], "Reject": ["News"], "Rejected movies": ["Kung Fu Dunk"],
     "Occupation": "Student"},
    [("[1] Who sings Rice Field?", "Q&A", "Jay Chou", ["Jay Chou", "Sings", "Rice Field"]),
     ("Jay Chou.", "Q&A", "Jay Chou", []),
     ("Great, I love him.", "Q&A", "Jay Chou", []),
     ("[2] Then watch his movie Secret. It is a romance.", "Movie recommendation", "Secret",
      ["Secret", "Type", "Romance"]),
     ("I have seen it, not again.", "Movie recommendation", "Secret", []),
     ("[3] How about The Green Hornet? Jay Chou plays Kato.", "Movie recommendation", "The Green Hornet",
      ["The Green Hornet", "Stars", "Jay Chou"]),
     ("Sounds fun, I will watch it.", "Movie recommendation", "The Green Hornet", []),
     ("[4] Enjoy it! Bye.", "Say goodbye", "Say goodbye", [])])
GREETING_FOOD_POI = dialogue(
    "[1]Greetings-->[2] Food recommendation(Mapo Tofu)-->[3] POI recommendation(Chen Mapo Tofu)",
    {"Name": "Fang Wang", "Accepted food": "Mapo\xa0Tofu\xa0", "Accepted POI": "Chen Mapo Tofu"},
    [("[1] Good evening!", "Greetings", "Greetings", []),
     ("Hello, I'm hungry.", "Greetings", "Greetings", []),
     ("[2] Mapo Tofu suits this weather.", "Food recommendation", "Mapo\xa0Tofu ", []),
     ("Okay, I like it.", "Food recommendation", "Mapo\xa0Tofu ", []),
     ("[3] Chen Mapo Tofu cooks it well, 4.6 points.", "POI recommendation", "Chen Mapo Tofu",
      ["Chen Mapo Tofu", "Rating", "4.6"])])
MUSIC = dialogue(
    "[1] Music on demand(Hand in Hand)-->[2] Music recommendation(Change Me)-->"
    "[3] Music recommendation(Heroes of Earth)-->[4]Say goodbye",
    {"Name": "Li Xu", "Accepted music": ["Hand in Hand"], "Rejected music": ["Heroes of Earth"],
     "Accepted Music": ["A Simple Song"]},
    [("[1] Play Hand in Hand.", "Music on demand", "Hand in Hand", []),
     ("It's playing.", "Music on demand", "Hand in Hand", []),
     ("Leehom Wang sings so well.", "Music on demand", "Hand in Hand", []),
     ("[2] Then listen to Change Me.", "Music recommendation", "Change Me", []),
     ("Not interested.", "Music recommendation", "Change Me", []),
     ("[3] What about Heroes of Earth?", "Music recommendation", "Heroes of Earth", []),
     ("I do not like that one either.", "Music recommendation", "Heroes of Earth", []),
     ("[4] Okay, bye.", "Say goodbye", "Say goodbye", [])])


@pytest.fixture
def durecdial_dir(tmp_path, jsonl):
    jsonl(tmp_path / "en_train.txt", [QA_THEN_MOVIES, GREETING_FOOD_POI])
    jsonl(tmp_path / "en_test.txt", [MUSIC])
    return tmp_path


def test_dialogues_become_episodes_with_domains_and_reactions(durecdial_dir, tmp_path):
    out = tmp_path / "cat"
    report = import_durecdial([durecdial_dir / "en_train.txt", durecdial_dir / "en_test.txt"], out)
    assert report.counts == {"items": 10, "reviews": 0, "users": 0, "dialogues": 3} and report.rows_read == 3
    run = load_run(out / "dialogues.jsonl")
    assert not run.problems
    assert [e.id for e in run.episodes] == ["durecdial-train-1", "durecdial-train-2", "durecdial-test-1"]
    movies = run.episodes[0]
    assert (movies.config_hash, movies.environment) == ("import:durecdial", "durecdial")
    # Q&A first: the user (seeker) opens and the speakers alternate; goal markers leave the text
    assert [(t.role, t.text) for t in movies.turns][:4] == [
        ("seeker", "Who sings Rice Field?"), ("recommender", "Jay Chou."), ("seeker", "Great, I love him."),
        ("recommender", "Then watch his movie Secret. It is a romance.")]
    assert movies.turns[0].metadata == {"goal_type": "Q&A", "goal_topic": "Jay Chou", "goal_index": 1,
                                        "knowledge": ["Jay Chou", "Sings", "Rice Field"]}
    assert [t.items_shown for t in movies.turns] == [[], [], [], ["movie:Secret"], [], ["movie:The Green Hornet"],
                                                     [], []]
    assert [t.feedback for t in movies.turns] == [{}, {}, {}, {}, {"movie:Secret": "dislike"}, {},
                                                  {"movie:The Green Hornet": "like"}, {}]
    assert movies.turns[4].metadata["feedback_source"] == {"movie:Secret": "goal_sequence"}
    assert movies.targets == ["movie:The Green Hornet"] and movies.termination.value == "accepted"
    assert movies.profile["split"] == "train" and movies.profile["user_name"] == "Xiaoming Li"
    assert movies.profile["recommended"] == ["movie:Secret", "movie:The Green Hornet"]
    assert movies.profile["disliked"] == ["movie:Secret"] and movies.profile["goal"].startswith("[1] Q&A(Jay Chou)")
    assert movies.profile["situation"] == "Time: 20:00, at home"

    food = run.episodes[1]  # Greetings first: the recommender opens
    assert [t.role for t in food.turns] == ["recommender", "seeker", "recommender", "seeker", "recommender", "seeker"]
    assert food.turns[3].feedback == {"food:Mapo Tofu": "like"}
    assert food.turns[3].metadata["feedback_source"] == {"food:Mapo Tofu": "profile"}
    closing = food.turns[-1]  # the dialogue ends on the recommendation
    assert (closing.text, closing.feedback, closing.metadata) == (
        "", {"poi:Chen Mapo Tofu": "like"},
        {"feedback_only": True, "feedback_source": {"poi:Chen Mapo Tofu": "profile"}})
    assert food.targets == ["food:Mapo Tofu", "poi:Chen Mapo Tofu"]

    music = run.episodes[2]
    assert music.profile["split"] == "test" and music.turns[0].metadata["mentioned"] == ["music:Hand in Hand"]
    assert [t.feedback for t in music.turns if t.feedback] == [{"music:Change Me": "dislike"},
                                                               {"music:Heroes of Earth": "dislike"}]
    assert music.targets == [] and music.termination.value == "max_turns"
    assert sum(len(t.feedback) for e in run.episodes for t in e.turns) == 6
    assert sum(len(e.turns) for e in run.episodes) == 22
    assert sum(1 for e in run.episodes for t in e.turns if t.role == "seeker") == 11

    catalog = Catalog.load(out)
    assert sorted(catalog.item_ids) == [
        "food:Mapo Tofu", "movie:Initial D", "movie:Kung Fu Dunk", "movie:Secret", "movie:The Green Hornet",
        "music:A Simple Song", "music:Change Me", "music:Hand in Hand", "music:Heroes of Earth",
        "poi:Chen Mapo Tofu"]
    assert catalog.item("movie:Secret").attributes == {"type": ["Romance"]}
    assert catalog.item("movie:The Green Hornet").attributes == {"stars": ["Jay Chou"]}
    assert catalog.item("poi:Chen Mapo Tofu").attributes == {"rating": ["4.6"]}
    assert (catalog.item("food:Mapo Tofu").title, catalog.item("food:Mapo Tofu").category) == ("Mapo Tofu", "food")
    assert catalog.manifest.domain == "mixed"


def test_without_inference_only_recorded_reactions_count(durecdial_dir, tmp_path):
    import_durecdial([durecdial_dir / "en_train.txt", durecdial_dir / "en_test.txt"], tmp_path / "cat",
                     DurecdialOptions(infer_accepted=False))
    run = load_run(tmp_path / "cat" / "dialogues.jsonl")
    assert [[t.feedback for t in e.turns if t.feedback] for e in run.episodes] == [
        [{"movie:Secret": "dislike"}],
        [{"food:Mapo Tofu": "like"}, {"poi:Chen Mapo Tofu": "like"}],
        [{"music:Change Me": "dislike"}, {"music:Heroes of Earth": "dislike"}]]
    assert run.episodes[0].targets == [] and run.episodes[0].termination.value == "max_turns"


def test_bad_lines_name_file_line_and_field(tmp_path, jsonl):
    short = copy.deepcopy(QA_THEN_MOVIES)
    short["goal_type_list"].pop()
    odd_knowledge = copy.deepcopy(MUSIC)
    odd_knowledge["knowledge"][0] = [1, 2]
    odd_profile = copy.deepcopy(MUSIC)
    odd_profile["user_profile"]["Accepted movies"] = 5
    path = jsonl(tmp_path / "en_dev.txt", [QA_THEN_MOVIES, short, '{"conversation": ', odd_knowledge, odd_profile,
                                           GREETING_FOOD_POI])
    with pytest.raises(CatalogError) as err:
        import_durecdial([path], tmp_path / "cat")
    assert str(err.value) == f"{path}, line 2, field 'goal_type_list': has 7 entries for 8 utterances"
    report = import_durecdial([path], tmp_path / "cat", DurecdialOptions(skip_bad=True))
    assert report.counts["dialogues"] == 2 and report.skipped == 4
    assert report.problems == [
        "en_dev.txt:2 field 'goal_type_list': has 7 entries for 8 utterances",
        "en_dev.txt:3: invalid JSON (unexpected end of data)",
        "en_dev.txt:4 field 'knowledge[0]': expected a list of strings ([head, relation, tail] or [])",
        "en_dev.txt:5 field 'user_profile.Accepted movies': expected a string or a list of strings, got int",
    ]
    assert [e.id for e in load_run(tmp_path / "cat" / "dialogues.jsonl").episodes] == [
        "durecdial-dev-1", "durecdial-dev-6"]
