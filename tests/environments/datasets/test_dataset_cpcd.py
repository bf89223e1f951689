"""CPCD adapter: playlist conversations as episodes, tracks as items, kept tracks as interactions."""

from __future__ import annotations

import pytest

from environments.catalog import Catalog
from environments.catalog.interactions import load_interactions
from environments.datasets.cpcd import CpcdOptions, import_cpcd
from environments.errors import CatalogError, CrsimError
from simulators.results.runlog import load_run


def track(tid, title, artists, album, cluster):
    return {"track_ids": tid, "track_titles": title, "track_artists": artists, "track_release_titles": album,
            "track_canonical_ids": tid, "track_cluster_ids": cluster}


DIALOG = {
    "id": "00079c9c8dd7b55a",
    "turns": [
        {"user_query": "I'd like a playlist for a dance party.", "system_response": "Happy to help! Any genre?",
         "search_queries": [], "search_results": [], "liked_results": [], "disliked_results": []},
        {"user_query": "Anything upbeat people can sing along to!", "system_response": "Here are some. Anything else?",
         "search_queries": ["I Gotta Feeling", "Uptown Funk"], "search_results": [["OIPmhkzN2ug"], ["tYvFa2ARD24"]],
         "liked_results": ["OIPmhkzN2ug"], "disliked_results": ["tYvFa2ARD24"]},
        {"user_query": "More like the first one.", "system_response": "Added Hey Ya.",
         "search_queries": ["Hey Ya"], "search_results": [["Jx_O6PHdWww", "NDXCJYxkyio"]],
         "liked_results": ["Jx_O6PHdWww"], "disliked_results": []},
    ],
    "tracks": {
        "OIPmhkzN2ug": track("OIPmhkzN2ug", "I Gotta Feeling", ["The Black Eyed Peas"], "THE E.N.D.", "c1"),
        "tYvFa2ARD24": track("tYvFa2ARD24", "Uptown Funk", ["Mark Ronson", "Bruno Mars"], "Uptown Special", "c2"),
        "Jx_O6PHdWww": track("Jx_O6PHdWww", "Hey Ya! (Radio Mix)", ["Outkast"], "Speakerboxxx/The Love Below", "c3"),
    },
    "goal_playlist": ["Jx_O6PHdWww", "OIPmhkzN2ug"],
}
SECOND = {"id": "e21bf09137a0e024", "turns": [
    {"user_query": "Songs for cleaning", "system_response": "Try this", "search_queries": ["bruno mars"],
     "search_results": [["MgDShkdoOC0"]], "liked_results": ["MgDShkdoOC0"], "disliked_results": []}],
    "tracks": {}, "goal_playlist": ["MgDShkdoOC0"]}


def test_conversations_tracks_and_interactions(tmp_path, jsonl):
    dialogs = jsonl(tmp_path / "cpcd_v1.dialogs.dev.jsonl", [DIALOG, SECOND])
    tracks = jsonl(tmp_path / "cpcd_v1.tracks.jsonl", [
        track("MgDShkdoOC0", "Just the Way You Are", ["Bruno Mars"], "Doo-Wops & Hooligans", "c4")])
    out = tmp_path / "cat"
    report = import_cpcd([dialogs], out, CpcdOptions(tracks=tracks))
    assert report.counts == {"items": 4, "reviews": 0, "users": 2, "dialogues": 2, "interactions": 3}
    run = load_run(out / "dialogues.jsonl")
    episode = run.episodes[0]
    assert episode.id == "cpcd-00079c9c8dd7b55a" and episode.environment == "cpcd"
    assert [(t.role, t.items_shown, t.feedback) for t in episode.turns] == [
        ("seeker", [], {}), ("recommender", [], {}),
        ("seeker", [], {}), ("recommender", ["OIPmhkzN2ug", "tYvFa2ARD24"], {}),
        ("seeker", [], {"OIPmhkzN2ug": "like", "tYvFa2ARD24": "dislike"}), ("recommender", ["Jx_O6PHdWww"], {}),
        ("seeker", [], {"Jx_O6PHdWww": "like"}),
    ]
    assert episode.turns[-1].metadata == {"feedback_only": True} and episode.turns[-1].text == ""
    assert episode.turns[3].metadata["search_queries"] == ["I Gotta Feeling", "Uptown Funk"]
    assert episode.target_item == "Jx_O6PHdWww" and episode.termination.value == "accepted"
    assert episode.profile["goal_playlist"] == ["Jx_O6PHdWww", "OIPmhkzN2ug"] and episode.profile["split"] == "dev"
    catalog = Catalog.load(out)
    funk = catalog.item("tYvFa2ARD24")
    assert funk.attributes == {"artist": ["Mark Ronson", "Bruno Mars"], "album": "Uptown Special"}
    assert funk.extra == {"canonical_id": "tYvFa2ARD24", "cluster_id": "c2"} and funk.category == "track"
    assert catalog.manifest.item_noun == "tracks"
    users = {u.user_id: u for u in catalog.users}
    assert users["00079c9c8dd7b55a"].preferences == {"likes": ["OIPmhkzN2ug", "Jx_O6PHdWww"],
                                                     "dislikes": ["tYvFa2ARD24"]}
    matrix = load_interactions(out)
    assert matrix.shape == (2, 3) and matrix.matrix.sum() == 3.0


def test_unknown_tracks_and_malformed_lines(tmp_path, jsonl):
    dialogs = jsonl(tmp_path / "cpcd_v1.dialogs.test.jsonl", [DIALOG, SECOND])
    with pytest.raises(CatalogError) as err:
        import_cpcd([dialogs], tmp_path / "cat")  # SECOND's track is only in the tracks file
    assert (err.value.line, err.value.field) == (2, "turns[0].liked_results")
    broken = {**DIALOG, "id": "x", "turns": [{**DIALOG["turns"][1], "liked_results": [42]}]}
    jsonl(dialogs, [DIALOG, SECOND, broken, {"turns": []}, "not json"])
    report = import_cpcd([dialogs], tmp_path / "cat", CpcdOptions(skip_bad=True))
    assert report.counts["dialogues"] == 1 and report.skipped == 4
    assert report.problems[1:3] == ["cpcd_v1.dialogs.test.jsonl:3 field 'turns[0].liked_results': "
                                    "expected a list of strings, got a list holding int",
                                    "cpcd_v1.dialogs.test.jsonl:4 field 'id': missing"]


def test_turns_read_back_from_the_episode_and_track_text(tmp_path, jsonl):
    from environments.datasets.cpcd import conversation_turns, track_text

    dialogs = jsonl(tmp_path / "cpcd_v1.dialogs.dev.jsonl", [DIALOG, SECOND])
    tracks = jsonl(tmp_path / "cpcd_v1.tracks.jsonl", [
        track("MgDShkdoOC0", "Just the Way You Are", ["Bruno Mars"], "Doo-Wops & Hooligans", "c4")])
    import_cpcd([dialogs], tmp_path / "cat", CpcdOptions(tracks=tracks))
    episode = load_run(tmp_path / "cat" / "dialogues.jsonl").episodes[0]
    assert conversation_turns(episode) == [
        ("I'd like a playlist for a dance party.", []),
        ("Anything upbeat people can sing along to!", ["OIPmhkzN2ug"]),
        ("More like the first one.", ["Jx_O6PHdWww"]),
    ]
    catalog = Catalog.load(tmp_path / "cat")
    assert track_text(catalog.item("tYvFa2ARD24")) == "Uptown Funk by Mark Ronson, Bruno Mars from Uptown Special"
    assert track_text(catalog.item("MgDShkdoOC0")) == "Just the Way You Are by Bruno Mars from Doo-Wops & Hooligans"


def test_tracks_only_makes_the_tracks_file_the_catalog(tmp_path, jsonl):
    dialogs = jsonl(tmp_path / "cpcd_v1.dialogs.dev.jsonl", [SECOND, DIALOG])
    tracks = jsonl(tmp_path / "cpcd_v1.tracks.jsonl", [
        track("MgDShkdoOC0", "Just the Way You Are", ["Bruno Mars"], "Doo-Wops & Hooligans", "c4")])
    report = import_cpcd([dialogs], tmp_path / "a", CpcdOptions(tracks=tracks, tracks_only=True, skip_bad=True))
    assert report.counts["items"] == 1 and report.counts["dialogues"] == 1  # DIALOG's tracks are only embedded
    assert report.problems == ["cpcd_v1.dialogs.dev.jsonl:2 field 'turns[1].liked_results': "
                               "unknown track id 'OIPmhkzN2ug' (not in the tracks file)"]
    with pytest.raises(CatalogError) as err:
        import_cpcd([dialogs], tmp_path / "b", CpcdOptions(tracks=tracks, tracks_only=True))
    assert (err.value.line, err.value.field) == (2, "turns[1].liked_results")
    with pytest.raises(CrsimError, match="needs --tracks"):
        import_cpcd([dialogs], tmp_path / "c", CpcdOptions(tracks_only=True))
