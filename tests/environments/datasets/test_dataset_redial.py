"""ReDial adapter: dialogues as replayable episodes, likes as interactions, MovieLens join."""

from __future__ import annotations

import json

import numpy as np
import pytest

from environments.catalog import Catalog
from environments.catalog.interactions import load_interactions
from environments.datasets.redial import RedialOptions, import_redial
from environments.errors import CatalogError, CrsimError
from environments.models import Episode
from simulators.results.runlog import load_run

MOVIES_CSV = """movieId,movieName,nbMentions
111776,Super Troopers (2001),59
91481,Beverly Hills Cop (1984),5
151656,Police Academy  (1984),7
204974,The Matrix (1999),20
77161,"Crouching Tiger, Hidden Dragon (2000)",3
"""


def message(sender, text, n):
    return {"timeOffset": 10 * n, "text": text, "senderWorkerId": sender, "messageId": 1000 + n}


def conversation(cid, seeker, recommender, texts, initiator, mentions=None, respondent=None):
    return {"movieMentions": mentions if mentions is not None else [],
            "respondentQuestions": respondent if respondent is not None else initiator,
            "messages": [message(seeker if who == "s" else recommender, text, n)
                         for n, (who, text) in enumerate(texts)],
            "conversationId": cid, "respondentWorkerId": recommender, "initiatorWorkerId": seeker,
            "initiatorQuestions": initiator}


CONV_1 = conversation("391", 956, 957, [
    ("s", "Hi I am looking for a movie like @111776"),
    ("r", "You should watch @151656"),
    ("r", "or @91481 maybe"),
    ("s", "Is that a great one? I have never seen it. I have seen @111776"),
    ("r", "Yes @151656 is very funny."),
    ("s", "thanks &amp; bye, I&quot;ll watch it"),
], {"111776": {"suggested": 0, "seen": 1, "liked": 1}, "151656": {"suggested": 1, "seen": 0, "liked": 1},
    "91481": {"suggested": 1, "seen": 2, "liked": 0}},
    mentions={"111776": "Super Troopers (2001)", "151656": "Police Academy (1984)", "91481": None})
CONV_2 = conversation(392, 10, 11, [("s", "hi there"), ("r", "try @204974 !")],
                      {"204974": {"suggested": 1, "seen": 0, "liked": 0}}, respondent=[])
CONV_BAD = conversation("393", 12, 13, [("s", "hello"), ("r", "watch @999999")], {})
CONV_4 = conversation("394", 956, 14, [("s", "something like @77161"), ("r", "@204974 then"), ("s", "yes!")],
                      {"77161": {"suggested": 0, "seen": 1, "liked": 1}, "204974": {"suggested": 1, "liked": 1}})


@pytest.fixture
def redial_dir(tmp_path, jsonl):
    (tmp_path / "movies_with_mentions.csv").write_text(MOVIES_CSV)
    jsonl(tmp_path / "train_data.jsonl", [CONV_1, CONV_2])
    jsonl(tmp_path / "test_data.jsonl", [CONV_4])
    (tmp_path / "movies_metadata.json").write_text(json.dumps({"151656": {
        "name": "Police Academy", "genre": ["Comedy", "Crime"], "plot": "Misfits join the police.",
        "director": ["Hugh Wilson"], "writer": ["Neal Israel"], "star": ["Steve Guttenberg", "Kim Cattrall"]}}))
    return tmp_path


def test_dialogues_become_replayable_episodes(redial_dir, tmp_path):
    out = tmp_path / "cat"
    report = import_redial([redial_dir / "train_data.jsonl", redial_dir / "test_data.jsonl"], out,
                           RedialOptions(metadata=redial_dir / "movies_metadata.json"))
    assert report.counts == {"items": 5, "reviews": 0, "users": 2, "dialogues": 3, "interactions": 4}
    run = load_run(out / "dialogues.jsonl")  # the replay/report loader reads it unchanged
    assert not run.problems and [e.id for e in run.episodes] == ["redial-391", "redial-392", "redial-394"]
    first = run.episodes[0]
    assert (first.index, first.config_hash, first.seed, first.environment) == (0, "import:redial", 0, "redial")
    assert [(t.role, t.text) for t in first.turns] == [
        ("seeker", "Hi I am looking for a movie like Super Troopers (2001)"),
        ("recommender", "You should watch Police Academy (1984)"),
        ("recommender", "or Beverly Hills Cop (1984) maybe"),  # null title in movieMentions: the CSV's name
        ("seeker", "Is that a great one? I have never seen it. I have seen Super Troopers (2001)"),
        ("recommender", "Yes Police Academy (1984) is very funny."),
        ("seeker", 'thanks & bye, I"ll watch it'),  # as typed: the site stored it HTML-escaped
    ]
    assert [t.items_shown for t in first.turns] == [[], ["151656"], ["91481"], [], ["151656"], []]
    assert [t.feedback for t in first.turns] == [{}, {}, {}, {"151656": "like", "91481": "dislike"}, {}, {}]
    assert first.turns[0].metadata == {"message_id": 1000, "time_offset": 0, "mentioned": ["111776"]}
    assert first.target_item == "151656" and first.termination.value == "accepted" and first.evaluations == []
    assert first.profile == {"conversation_id": "391", "seeker_worker_id": "956", "recommender_worker_id": "957",
                             "liked": ["111776", "151656"], "disliked": ["91481"], "seen": ["111776"],
                             "unseen": ["151656"], "split": "train_data"}
    second = run.episodes[1]
    assert second.id == "redial-392" and second.target_item is None and second.termination.value == "max_turns"
    closing = second.turns[-1]  # the dialogue ended on the mention: a feedback-only seeker turn closes it
    assert (closing.role, closing.text, closing.feedback, closing.metadata) == (
        "seeker", "", {"204974": "dislike"}, {"feedback_only": True})
    assert run.episodes[2].profile["split"] == "test_data"

    catalog = Catalog.load(out)
    academy = catalog.item("151656")
    assert academy.title == "Police Academy  (1984)" and academy.description == "Misfits join the police."
    assert academy.attributes == {"genre": ["Comedy", "Crime"], "director": ["Hugh Wilson"],
                                  "writer": ["Neal Israel"], "stars": ["Steve Guttenberg", "Kim Cattrall"]}
    assert academy.extra == {"mentions": 7, "year": 1984}
    assert catalog.item("77161").title == "Crouching Tiger, Hidden Dragon (2000)"
    seeker = {u.user_id: u for u in catalog.users}["956"]
    assert seeker.preferences == {"likes": ["111776", "151656", "77161", "204974"], "dislikes": ["91481"]}
    assert catalog.manifest.domain == "movie" and catalog.manifest.item_noun == "movies"


def test_liked_mentions_and_movielens_ratings_form_the_matrix(redial_dir, tmp_path):
    ml = tmp_path / "ml"
    ml.mkdir()
    (ml / "movies.csv").write_text('movieId,title,genres\n1,"Matrix, The (1999)",Action|Sci-Fi\n'
                                   "2,Toy Story (1995),Animation\n3,Super Troopers (2001),Comedy\n")
    (ml / "ratings.csv").write_text("userId,movieId,rating,timestamp\n1,1,4.5,964982703\n1,2,4.0,964982704\n"
                                    "2,1,3.0,964982705\n2,3,5.0,964982706\n")
    out = tmp_path / "cat"
    report = import_redial([redial_dir / "train_data.jsonl", redial_dir / "test_data.jsonl"], out, RedialOptions(
        disliked_value=-1.0, movielens_ratings=ml / "ratings.csv"))
    assert report.filtered == {"MovieLens ratings of movies not matched to ReDial": 1}
    rows = [json.loads(line) for line in (out / "interactions.jsonl").read_text().splitlines()]
    assert {(r["user_id"], r["item_id"], r["value"], r["source"]) for r in rows if r["source"] == "movielens"} == {
        ("ml:1", "204974", 4.5, "movielens"), ("ml:2", "204974", 3.0, "movielens"),
        ("ml:2", "111776", 5.0, "movielens")}
    catalog = Catalog.load(out)
    matrix = load_interactions(out, item_ids=catalog.item_ids)
    assert matrix.shape == (4, 5) and matrix.user_ids == ["956", "10", "ml:1", "ml:2"]
    dense = matrix.matrix.toarray()
    assert dense[matrix.user_index["956"], matrix.item_index["91481"]] == -1.0
    assert dense[matrix.user_index["956"], matrix.item_index["204974"]] == 1.0
    liked_only = load_interactions(out, sources=["redial"], binarize_at=1.0)
    assert np.array_equal(liked_only.matrix.toarray(), np.ones((1, 4)))
    assert catalog.manifest.extra["import"]["movielens_movies_matched"] == 2


def test_bad_conversations(redial_dir, tmp_path, jsonl):
    dialogues = jsonl(redial_dir / "train_data.jsonl", [CONV_1, CONV_BAD, CONV_2])
    with pytest.raises(CatalogError) as err:
        import_redial([dialogues], tmp_path / "cat")
    assert (err.value.line, err.value.field) == (2, "messages[1].text")
    assert "unknown movie id '@999999'" in str(err.value)
    broken = dict(CONV_2, initiatorQuestions={"204974": {"liked": 5}})
    stranger = dict(CONV_2, messages=[message(99, "who am I?", 0)])
    jsonl(dialogues, [CONV_1, CONV_BAD, broken, stranger, '{"conversationId": ', CONV_2])
    report = import_redial([dialogues], tmp_path / "cat", RedialOptions(skip_bad=True))
    assert report.counts["dialogues"] == 2 and report.skipped == 4
    assert report.problems[:3] == [
        "train_data.jsonl:2 field 'messages[1].text': unknown movie id '@999999'",
        "train_data.jsonl:3 field 'initiatorQuestions.204974.liked': expected 0, 1 or 2, got 5",
        "train_data.jsonl:4 field 'messages[0].senderWorkerId': "
        "99 is neither the initiator (10) nor the respondent (11)",
    ]
    assert [Episode.model_validate_json(line).index
            for line in (tmp_path / "cat" / "dialogues.jsonl").read_text().splitlines()] == [0, 1]


def test_movie_list_is_required(tmp_path, jsonl):
    dialogues = jsonl(tmp_path / "train_data.jsonl", [CONV_1])
    with pytest.raises(CrsimError, match="movies_with_mentions.csv not found"):
        import_redial([dialogues], tmp_path / "cat")
    (tmp_path / "movies.csv").write_text("movieId,movieName,nbMentions\nabc,Broken,1\n111776,,2\n")
    with pytest.raises(CatalogError, match=r"movies.csv, line 2, field 'movieId'"):
        import_redial([dialogues], tmp_path / "cat", RedialOptions(movies_csv=tmp_path / "movies.csv"))
