"""`crsim data import` / `crsim data info` as a user runs them, and a sweep on imported catalogs."""

from __future__ import annotations

import json

import pandas as pd

from cpcd_samples import dialog, track, turn, write_jsonl
from crsim_testing import crsim
from environments.datasets.samples import write_amazon2018, write_yelp


def test_import_and_info_print_the_counts(tmp_path):
    business, reviews = write_yelp(tmp_path / "yelp", n_businesses=12, reviews_per_business=4)
    out = crsim("data", "import", "yelp", str(business), str(reviews), "--out", str(tmp_path / "cat"),
                "--city", "Philadelphia", "--min-reviews", "10")
    assert out.returncode == 0, out.stderr
    assert "imported yelp" in out.stdout
    users = len({json.loads(line)["user_id"] for line in reviews.read_text().splitlines()})
    assert [line.split() for line in out.stdout.splitlines()[1:4]] == [
        ["items", "12"], ["reviews", "48"], ["users", str(users)]]
    info = crsim("data", "info", str(tmp_path / "cat"), "--validate")
    assert info.returncode == 0, info.stderr
    assert "(restaurant, restaurants), from yelp" in info.stdout
    assert any(line.split()[:2] == ["reviews", "48"] for line in info.stdout.splitlines())
    assert "aspects (share of items): " in info.stdout and "categories 100%" in info.stdout
    assert 'validated: {"items": 12, "reviews": 48' in info.stdout
    summary = json.loads(crsim("data", "info", str(tmp_path / "cat"), "--json").stdout)
    assert summary["files"]["items"]["rows"] == 12 and summary["import"]["options"]["city"] == "Philadelphia"


def test_a_bad_row_is_one_clear_line_and_exit_2(tmp_path):
    reviews, meta = write_amazon2018(tmp_path / "amz", n_products=5, reviews_per_product=2)
    lines = reviews.read_text().splitlines()
    row = json.loads(lines[3])
    row["overall"] = "five stars"
    lines[3] = json.dumps(row)
    reviews.write_text("\n".join(lines) + "\n")
    args = ["data", "import", "amazon2018", str(reviews), "--meta", str(meta), "--out", str(tmp_path / "cat")]
    out = crsim(*args)
    assert out.returncode == 2
    assert out.stderr.strip() == (f"crsim: error: {reviews}, line 4, field 'overall': expected a number, got str")
    assert not (tmp_path / "cat").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["amz"]
    skipped = crsim(*args, "--skip-bad")
    assert skipped.returncode == 0, skipped.stderr
    assert "skipped 1 bad row(s)" in skipped.stdout and "Sports_and_Outdoors.json:4 field 'overall'" in skipped.stdout
    again = crsim(*args)
    assert again.returncode == 2 and "already exists" in again.stderr
    assert crsim("data", "import", "nonsense", "x", "--out", "y").returncode == 2
    assert crsim("data", "info", str(tmp_path / "amz")).returncode == 2


def test_sweep_runs_on_imported_yelp_and_amazon_catalogs(tmp_path):
    business, reviews = write_yelp(tmp_path / "yelp")
    amazon_reviews, meta = write_amazon2018(tmp_path / "amz")
    yelp_cat, amazon_cat = tmp_path / "yelp_cat", tmp_path / "amazon_cat"
    assert crsim("data", "import", "yelp", str(business), str(reviews), "--out", str(yelp_cat)).returncode == 0
    assert crsim("data", "import", "amazon2018", str(amazon_reviews), "--meta", str(meta),
                 "--out", str(amazon_cat)).returncode == 0
    sweep = tmp_path / "sweep"
    out = crsim("run", "-m", "recommender=popularity,bm25,dense", "environment=single_target",
                f"environment.catalog={yelp_cat},{amazon_cat}", "episodes=4", "max_turns=2", "progress=false",
                f"hydra.sweep.dir={sweep}")
    assert out.returncode == 0, out.stderr[-3000:]
    summary = pd.read_csv(sweep / "summary.csv")
    assert len(summary.config.unique()) == 6
    results = sorted(sweep.glob("*/results.csv"))
    assert len(results) == 6
    for path in results:
        frame = pd.read_csv(path)
        assert set(frame.turn) == {1, 2} and (frame[frame.metric == "hits@10"].n == 4).all()
        episodes = [json.loads(line) for line in (path.parent / "episodes.jsonl").read_text().splitlines()]
        assert len(episodes) == 4 and all(e["termination"] != "error" for e in episodes)
        opening = episodes[0]["turns"][0]["text"]
        assert opening.endswith(("restaurants are you looking for?", "products are you looking for?"))


def test_imported_redial_dialogues_replay(tmp_path):
    (tmp_path / "movies_with_mentions.csv").write_text("movieId,movieName,nbMentions\n"
                                                       "204974,The Matrix (1999),20\n77161,Heat (1995),3\n")
    conversation = {
        "movieMentions": {"204974": "The Matrix (1999)", "77161": "Heat (1995)"}, "respondentQuestions": [],
        "messages": [{"timeOffset": 0, "text": "I loved @77161", "senderWorkerId": 1, "messageId": 1},
                     {"timeOffset": 5, "text": "Then try @204974", "senderWorkerId": 2, "messageId": 2},
                     {"timeOffset": 9, "text": "Great, thanks!", "senderWorkerId": 1, "messageId": 3}],
        "conversationId": "20001", "respondentWorkerId": 2, "initiatorWorkerId": 1,
        "initiatorQuestions": {"77161": {"suggested": 0, "seen": 1, "liked": 1},
                               "204974": {"suggested": 1, "seen": 0, "liked": 1}}}
    (tmp_path / "train_data.jsonl").write_text(json.dumps(conversation) + "\n")
    catalog = tmp_path / "redial"
    out = crsim("data", "import", "redial", str(tmp_path / "train_data.jsonl"), "--out", str(catalog))
    assert out.returncode == 0, out.stderr
    assert "dialogues" in out.stdout and "interactions" in out.stdout
    rescored = crsim("replay", str(catalog / "dialogues.jsonl"), "--rescore")
    assert rescored.returncode == 0, rescored.stderr
    assert "1 dialogues" in rescored.stdout and "accepted" in rescored.stdout
    rendered = crsim("replay", str(catalog / "dialogues.jsonl"), "--render", "--catalog", str(catalog))
    assert rendered.returncode == 0, rendered.stderr
    assert "Then try The Matrix (1999)" in rendered.stdout and "redial-20001" in rendered.stdout


def test_info_stats_on_an_imported_cpcd_catalog_prints_music_statistics(tmp_path):
    tracks = write_jsonl(tmp_path / "cpcd_v1.tracks.jsonl", [
        track("a1", "Alpha", ["Ann"], "First", "cA"), track("a2", "Alpha (Live)", ["Ann"], "Live", "cA"),
        track("b", "Bee", ["Bo"], "Mix", "cb"), track("c", "Sea", ["Bo"], "Mix", "cc"),
        track("d", "Dee", ["Bo", "Ann"], "Mix", "cd"), track("e", "Eee", ["Cy"], "Mix", "ce")])
    dialogs = write_jsonl(tmp_path / "cpcd_v1.dialogs.dev.jsonl", [
        dialog("d1", [turn("alpha and bee", ["a1", "b"]), turn("more", ["c"])], ["a1", "b", "c"]),
        dialog("d2", [turn("bo please", ["b", "d"])], ["b", "d"]),
        dialog("d3", [turn("just bee", ["b"])], ["b"])])  # one goal track: not a playlist goal
    out = tmp_path / "cat"
    imported = crsim("data", "import", "cpcd", str(dialogs), "--tracks", str(tracks), "--out", str(out))
    assert imported.returncode == 0, imported.stderr
    info = crsim("data", "info", str(out), "--stats")
    assert info.returncode == 0, info.stderr
    lines = info.stdout.splitlines()
    # artists Ann (a1 a2 d), Bo (b c d), Cy (e); albums First, Live, Bo's Mix (b c d), Cy's Mix (e)
    assert "music: artists 3, albums 4, goal playlists 2" in lines
    assert [line.split()[4:7:2] for line in lines if line.startswith(("  tracks per", "  goal playlist size"))] == [
        ["2.33", "3.0"], ["1.50", "1.0"], ["2.50", "2.5"]]  # (mean, median) per distribution
    # likes per track 1 0 3 1 1 0: the top track (b) holds 3 of 6; Gini 2 * 30 / 36 - 7 / 6
    assert "  plays (from interactions): top 10% of tracks hold 50.0%, Gini 0.500" in lines
    music = json.loads(crsim("data", "info", str(out), "--stats", "--json").stdout)["stats"]["music"]
    assert music["goal_playlist_size"]["p90"] == 2.9 and music["play_source"] == "interactions"


def test_inspired_and_durecdial_are_listed_and_a_bad_row_is_one_line(tmp_path):
    listed = crsim("data", "import", "--help")
    assert listed.returncode == 0 and "inspired" in listed.stdout and "durecdial" in listed.stdout
    header = ("dialog_id\tutt_id\tspeaker\tturn_id\ttext\ttext_with_placeholder\tmovies\tgenres\tpeople_names\t"
              "movie_dict\tgenre_dict\tactor_dict\tdirector_dict\tothers_dict\texpert_label\tsecond_label\t"
              "fine_label\tcoarse_label\tmovie_id\n")
    rows = ["d1.pkl\t1\tRECOMMENDER\t1\tHi! Try Heat\tHi! Try [MOVIE_TITLE_0]\tHeat (1995)\t\t\t{'Heat (1995)': 0}"
            "\t{}\t{}\t{}\t{}\tpersonal_opinion\t\taccept_others\taccept_new\tabc",
            "d1.pkl\t2\tSEEKER\t1\tok?\tok?\t\t\t\t{'Heat (1995)': 0}\t{}\t{}\t{}\t{}\t\t\taccept_others\t"
            "accept_new\tabc"]
    test = tmp_path / "test.tsv"
    test.write_text(header + "".join(r + "\n" for r in rows))
    catalog = tmp_path / "inspired"
    out = crsim("data", "import", "inspired", str(test), "--out", str(catalog))
    assert out.returncode == 0, out.stderr
    assert [line.split() for line in out.stdout.splitlines()[1:]] == [
        ["items", "1"], ["reviews", "0"], ["users", "0"], ["dialogues", "1"]]
    test.write_text(header + rows[0] + "\n" + rows[1].replace("SEEKER", "USER") + "\n")
    bad = crsim("data", "import", "inspired", str(test), "--out", str(tmp_path / "bad"))
    assert bad.returncode == 2
    assert bad.stderr.strip() == (f"crsim: error: {test}, line 3, field 'speaker': "
                                  "expected SEEKER or RECOMMENDER, got 'USER'")
