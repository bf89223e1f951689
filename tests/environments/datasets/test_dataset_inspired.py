"""INSPIRED adapter: utterance rows grouped into replayable episodes, the trailer's outcome as feedback."""

from __future__ import annotations

import pytest

from environments.catalog import Catalog
from environments.datasets.inspired import InspiredOptions, import_inspired
from environments.errors import CatalogError, CrsimError
from simulators.results.runlog import load_run

# The header of the released data/dialog_data/{train,dev,test}.tsv.
HEADER = ("dialog_id utt_id speaker turn_id text text_with_placeholder movies genres people_names movie_dict "
          "genre_dict actor_dict director_dict others_dict expert_label second_label fine_label coarse_label "
          "movie_id").split()
D1, D2, D3 = "20191127-224739_530_live.pkl", "20191128-101010_111_live.pkl", "20191129-090909_222_live.pkl"
DICT1 = "{'Hustlers (2019)': 0, 'Deadpool (2016)': 1, 'A Beautiful Day in the Neighborhood (2019)': 2}"
DICT3 = "{'Joker (2019)': 0}"


def row(dialog, utt, speaker, turn, text, placeholder=None, movies="", genres="", people="", movie_dict="{}",
        label="", second="", fine="accept_rating_good", coarse="accept_new", trailer="tr1"):
    values = [dialog, str(utt), speaker, str(turn), text, text if placeholder is None else placeholder, movies,
              genres, people, movie_dict, "{}", "{}", "{}", "", label, second, fine, coarse, trailer]
    return "\t".join(values)


DIALOGUE_1 = [
    row(D1, 1, "RECOMMENDER", 1, "Hi!", movie_dict=DICT1, label="no_strategy"),
    row(D1, 2, "RECOMMENDER", 1, "What was the last movie you saw?", movie_dict=DICT1, label="experience_inquiry"),
    row(D1, 3, "SEEKER", 1, "the last one was QUOTATION_MARKHustlersQUOTATION_MARK .",
        'the last one was "[MOVIE_TITLE_0]" .', movies="Hustlers (2019)", movie_dict=DICT1),
    row(D1, 4, "SEEKER", 1, "I like comedy and drama", "I like [MOVIE_GENRE_0] and [MOVIE_GENRE_1]",
        genres="comedy;  drama", movie_dict=DICT1),
    row(D1, 5, "RECOMMENDER", 2, "Have you seen Deadpool or Tom Hanks in A Beautiful Day in the Neighborhood?",
        "Have you seen [MOVIE_TITLE_1] or [MOVIE_P_ACTOR_0] in [MOVIE_TITLE_2]?", movies="Deadpool (2016)",
        people="Tom Hanks", movie_dict=DICT1, label="opinion_inquiry", second="credibility"),
    row(D1, 6, "SEEKER", 2, "No, is it good?", movie_dict=DICT1),
]
DIALOGUE_2 = [
    row(D2, 1, "SEEKER", 1, "hello", fine="reject", coarse="reject_new", trailer="tr2SPLIT55"),
    row(D2, 2, "RECOMMENDER", 1, "Try Deadpool (2016)!", movies="Deadpool (2016)", label="personal_opinion",
        fine="reject", coarse="reject_new", trailer="tr2SPLIT55"),
]
DIALOGUE_3 = [
    row(D3, 1, "RECOMMENDER", 1, "You might like Joker", "You might like [MOVIE_TITLE_0]", movies="Joker (2019)",
        movie_dict=DICT3, label="personal_opinion", fine="accept_uninterested", coarse="reject_new", trailer="tr3"),
    row(D3, 2, "SEEKER", 1, "ok, show me the trailer", movie_dict=DICT3, fine="accept_uninterested",
        coarse="reject_new", trailer="tr3"),
]
# movie_database.tsv: INSPIRED's own code reads title, year, movie_id, genre, actors and short_plot of it.
MOVIE_DB = ("title\tyear\tgenre\tactors\tdirector\tshort_plot\tlong_plot\tmovie_id\trating\n"
            "A Beautiful Day in the Neighborhood\t2019\tBiography, Drama\tTom Hanks, Matthew Rhys\tMarielle Heller\t"
            "A journalist profiles Fred Rogers.\tA longer plot.\ttr1\t7.3\n"
            "Joker\t2019\tCrime, Drama, Thriller\tJoaquin Phoenix\tTodd Phillips\t\tA failed comedian.\ttr3\t8.5\n"
            "Deadpool\t2016\tAction, Comedy\tRyan Reynolds\tTim Miller\tA mercenary.\t\ttr9\t8.0\n")


def write_tsv(path, rows):
    path.write_text("\t".join(HEADER) + "\n" + "".join(r + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def inspired_dir(tmp_path):
    write_tsv(tmp_path / "train.tsv", DIALOGUE_1 + DIALOGUE_2)
    write_tsv(tmp_path / "test.tsv", DIALOGUE_3)
    (tmp_path / "movie_database.tsv").write_text(MOVIE_DB, encoding="utf-8")
    return tmp_path


def test_rows_become_episodes_with_mentions_strategies_and_the_trailer_outcome(inspired_dir, tmp_path):
    out = tmp_path / "cat"
    report = import_inspired([inspired_dir / "train.tsv", inspired_dir / "test.tsv"], out,
                             InspiredOptions(movies=inspired_dir / "movie_database.tsv"))
    assert report.counts == {"items": 4, "reviews": 0, "users": 0, "dialogues": 3}
    assert report.rows_read == 10 and report.filtered == {
        "dialogues whose recommended trailer is not in the movie database": 1}
    run = load_run(out / "dialogues.jsonl")
    assert not run.problems
    assert [e.id for e in run.episodes] == ["inspired-20191127-224739_530_live", "inspired-20191128-101010_111_live",
                                            "inspired-20191129-090909_222_live"]
    first = run.episodes[0]
    assert (first.index, first.config_hash, first.environment) == (0, "import:inspired", "inspired")
    assert [(t.role, t.text) for t in first.turns] == [
        ("recommender", "Hi!"), ("recommender", "What was the last movie you saw?"),
        ("seeker", 'the last one was "Hustlers" .'), ("seeker", "I like comedy and drama"),
        ("recommender", "Have you seen Deadpool or Tom Hanks in A Beautiful Day in the Neighborhood?"),
        ("seeker", "No, is it good?"),
        ("seeker", ""),  # the outcome of the trailer shown after the dialogue
    ]
    # the placeholder [MOVIE_TITLE_2] adds the movie the `movies` column left out
    assert first.turns[4].items_shown == ["Deadpool (2016)", "A Beautiful Day in the Neighborhood (2019)"]
    assert first.turns[4].metadata == {"utt_id": 5, "turn_id": 2, "strategy": "opinion_inquiry",
                                       "second_strategy": "credibility", "people": ["Tom Hanks"]}
    assert first.turns[2].metadata == {"utt_id": 3, "turn_id": 1, "mentioned": ["Hustlers (2019)"]}
    assert first.turns[3].metadata["genres"] == ["comedy", "drama"]
    assert first.turns[-1].feedback == {"A Beautiful Day in the Neighborhood (2019)": "like"}
    assert first.turns[-1].metadata == {"feedback_only": True, "fine_label": "accept_rating_good",
                                        "coarse_label": "accept_new"}
    assert first.targets == ["A Beautiful Day in the Neighborhood (2019)"] and first.termination.value == "accepted"
    assert first.profile == {"dialog_id": D1, "split": "train", "movies": [
        "Hustlers (2019)", "Deadpool (2016)", "A Beautiful Day in the Neighborhood (2019)"],
        "fine_label": "accept_rating_good", "coarse_label": "accept_new", "trailer_id": "tr1",
        "recommended": "A Beautiful Day in the Neighborhood (2019)"}
    rejected = run.episodes[1]  # trailer tr2 is not in the database: no item to put the outcome on
    assert rejected.termination.value == "max_turns" and rejected.targets == []
    assert [t.feedback for t in rejected.turns] == [{}, {}] and rejected.profile["trailer_id"] == "tr2"
    uninterested = run.episodes[2]  # accepted the trailer, then found it uninteresting: reject_new
    assert uninterested.termination.value == "accepted" and uninterested.profile["split"] == "test"
    assert uninterested.turns[-1].feedback == {"Joker (2019)": "dislike"}
    assert sum(len(t.feedback) for e in run.episodes for t in e.turns) == 2
    assert sum(1 for e in run.episodes for t in e.turns if t.role == "seeker") == 7

    catalog = Catalog.load(out)
    assert catalog.item_ids == ["Hustlers (2019)", "Deadpool (2016)", "A Beautiful Day in the Neighborhood (2019)",
                                "Joker (2019)"]
    day = catalog.item("A Beautiful Day in the Neighborhood (2019)")
    assert day.attributes == {"genre": ["Biography", "Drama"], "stars": ["Tom Hanks", "Matthew Rhys"],
                              "director": ["Marielle Heller"]}
    assert day.description == "A journalist profiles Fred Rogers." and day.category == "movie"
    assert day.extra == {"mentions": 1, "year": 2019, "movie_id": "tr1", "rating": "7.3"}
    assert catalog.item("Joker (2019)").description == "A failed comedian."
    assert catalog.item("Deadpool (2016)").extra["mentions"] == 2
    assert catalog.item("Hustlers (2019)").attributes == {}  # not in the database
    assert catalog.manifest.domain == "movie" and catalog.manifest.extra["import"]["movies_with_metadata"] == 3


def test_without_the_movie_database_no_outcome_is_placed(inspired_dir, tmp_path):
    report = import_inspired([inspired_dir / "train.tsv"], tmp_path / "cat")
    assert report.counts["dialogues"] == 2 and report.counts["items"] == 3 and report.filtered == {}
    run = load_run(tmp_path / "cat" / "dialogues.jsonl")
    assert all(not t.feedback for e in run.episodes for t in e.turns)
    assert [len(e.turns) for e in run.episodes] == [6, 2]
    assert run.episodes[0].termination.value == "accepted" and run.episodes[0].targets == []


def test_bad_rows_name_file_line_and_field(inspired_dir, tmp_path):
    bad_speaker = row(D2, 2, "BOT", 1, "Try it", fine="reject", coarse="reject_new", trailer="tr2SPLIT55")
    path = write_tsv(tmp_path / "dev.tsv", DIALOGUE_1 + [DIALOGUE_2[0], bad_speaker] + DIALOGUE_3)
    with pytest.raises(CatalogError) as err:
        import_inspired([path], tmp_path / "cat")
    assert (err.value.line, err.value.field) == (9, "speaker")
    assert str(err.value) == f"{path}, line 9, field 'speaker': expected SEEKER or RECOMMENDER, got 'BOT'"
    broken_dict = [row(D3, 1, "SEEKER", 1, "hi", movie_dict="{'Murder Mystery (2019)': 0, 'Office Space (1999): 1}"),
                   row(D3, 2, "RECOMMENDER", 1, "hello")]
    backwards = row(D1, 2, "SEEKER", 1, "again?", movie_dict=DICT1)
    write_tsv(path, DIALOGUE_1[:3] + [backwards] + [DIALOGUE_2[0], bad_speaker] + broken_dict
              + [row(D1, 9, "SEEKER", 9, "back again", movie_dict=DICT1)] + ["too\tfew\tcolumns"])
    report = import_inspired([path], tmp_path / "cat", InspiredOptions(skip_bad=True))
    assert report.counts["dialogues"] == 0 and report.skipped == 5
    assert report.problems == [
        "dev.tsv:5 field 'utt_id': 2 does not follow utterance 3 of dialogue '20191127-224739_530_live.pkl'",
        "dev.tsv:7 field 'speaker': expected SEEKER or RECOMMENDER, got 'BOT'",
        "dev.tsv:8 field 'movie_dict': not a readable {title: index} mapping: "
        "\"{'Murder Mystery (2019)': 0, 'Office Space (1999): 1}\"",
        "dev.tsv:10 field 'dialog_id': dialogue '20191127-224739_530_live.pkl' already appeared (dev.tsv, line 2); "
        "a dialogue's rows must be together",
        "dev.tsv:11: expected 19 columns, got 3",
    ]
    assert report.filtered == {"rows of dialogues skipped as bad": 1}


def test_a_file_without_the_dialogue_columns_is_refused(tmp_path):
    path = tmp_path / "train.tsv"
    path.write_text("dialog_id\tspeaker\ttext\nx\tSEEKER\thi\n")
    with pytest.raises(CatalogError, match="missing column"):
        import_inspired([path], tmp_path / "cat")
    with pytest.raises(CrsimError, match="at least one dialogue file"):
        import_inspired([], tmp_path / "cat")
