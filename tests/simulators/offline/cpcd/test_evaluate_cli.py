"""`crsim eval cpcd` as a user runs it: the predictions file, the outputs, and bad input."""

from __future__ import annotations

import json

import pytest
from cpcd_samples import dialog, turn, write_jsonl
from crsim_testing import crsim

from simulators.cli.eval import main
from simulators.offline.cpcd.protocol import Aggregate, score_ranking, turn_tasks


def run(files, *extra, out):
    return main(["cpcd", "--dialogs", str(files["dialogs"]), "--tracks", str(files["tracks"]), "--out", str(out),
                 "--no-progress", *extra])


def test_predictions_file_is_what_the_public_evaluator_reads(catalog_files, tmp_path):
    preds = tmp_path / "preds.jsonl"
    assert run(catalog_files, "--retriever", "bm25", "--predictions-out", str(preds), out=tmp_path / "o") == 0
    tracks = {row["track_ids"]: row for row in map(json.loads, catalog_files["tracks"].read_text().splitlines())}
    dialogs = {d["id"]: d for d in map(json.loads, catalog_files["dialogs"].read_text().splitlines())}
    lines = [json.loads(line) for line in preds.read_text().splitlines()]
    # one line per scored turn: raw CPCD dialog id, 0-based CPCD turn; dlgB's turns 1-2 have no gold left
    assert [line["docid"] for line in lines] == ["dlgA:0", "dlgA:1", "dlgA:2", "dlgB:0", "dlgC:0", "dlgC:1"]
    cluster = {tid: row["track_cluster_ids"] for tid, row in tracks.items()}
    for line in lines:
        assert set(line) == {"docid", "neighbor"}
        dialog_id, turn_index = line["docid"].split(":")
        ids = [neighbor["docid"] for neighbor in line["neighbor"]]
        assert all(set(neighbor) == {"docid"} for neighbor in line["neighbor"])
        assert all(tid in tracks for tid in ids)  # never `zz-embedded`, which only dlgA embeds
        assert len({cluster[tid] for tid in ids}) == len(ids) >= 100
        earlier = dialogs[dialog_id]["turns"][:int(turn_index)]
        seeds = {cluster[t] for past in earlier for t in past["liked_results"][:3]}
        assert not seeds & {cluster[tid] for tid in ids}, line["docid"]
    # the query ranks the user's artist first: turn 0 of dlgA asked for Nina Simone (tracks 0, 8, 16, ...)
    assert tracks[lines[0]["neighbor"][0]["docid"]]["track_artists"] == ["Nina Simone"]

    # scoring the written file with the protocol gives the macro hit@10 crsim printed
    aggregate, per_dialog = Aggregate((10, 100)), {}
    for line in lines:
        dialog_id, turn_index = line["docid"].split(":")
        per_dialog.setdefault(dialog_id, {})[int(turn_index)] = [n["docid"] for n in line["neighbor"]]
    for dialog_id, rankings in per_dialog.items():
        d = dialogs[dialog_id]
        tasks = turn_tasks([t["liked_results"] for t in d["turns"]], d["goal_playlist"], cluster)
        aggregate.add([score_ranking(rankings[task.turn], task, cluster, (10, 100)) for task in tasks])
    report = json.loads((tmp_path / "o" / "run.json").read_text())
    printed = {row["name"]: row["macro"] for row in report["metrics"]}
    assert printed["hit@10"] == aggregate.row("hit@10")[0] and printed["hit@100"] == aggregate.row("hit@100")[0]


def test_same_settings_give_byte_identical_outputs(catalog_files, tmp_path):
    for name in ("a", "b"):
        assert run(catalog_files, "--retriever", "bm25", "--query", "user+items", "--k", "1,10",
                   "--predictions-out", str(tmp_path / f"{name}.jsonl"), out=tmp_path / name) == 0
    for file in ("scores.csv", "run.json"):
        assert (tmp_path / "a" / file).read_bytes() == (tmp_path / "b" / file).read_bytes()
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    settings = json.loads((tmp_path / "a" / "run.json").read_text())["settings"]
    assert settings["retriever_settings"]["query"] == "user+items" and settings["k"] == [1, 10]
    assert settings["candidates"] == 160 and settings["ranking_depth"] == 100
    assert settings["dialogs"][0]["path"].endswith("cpcd_v1.dialogs.dev.jsonl")
    assert len(settings["tracks"]["sha256"]) == 64


def test_dense_and_hybrid_run_with_any_encoder(catalog_files, tmp_path, hash_encoder):
    from simulators.offline.cpcd.data import load_cpcd
    from simulators.offline.cpcd.evaluate import evaluate
    from simulators.offline.cpcd.retrievers import build_retriever

    data = load_cpcd([catalog_files["dialogs"]], catalog_files["tracks"])
    dense = build_retriever("dense", data.catalog, encoder=hash_encoder)
    assert dense.settings()["query"] == "user+items"
    first = evaluate(data, dense, [1, 10], 10).predictions
    # the hashing encoder matches words: "nina simone" finds Nina Simone's tracks
    assert data.catalog.item(first[0][2][0]).attributes["artist"] == ["Nina Simone"]
    hybrid = build_retriever("hybrid", data.catalog, encoder=hash_encoder)
    assert hybrid.settings()["bm25"]["query"] == "user" and hybrid.settings()["dense"]["query"] == "user+items"
    fused = evaluate(data, hybrid, [1, 10], 10)
    assert [p[:2] for p in fused.predictions] == [p[:2] for p in first] and fused.aggregate.conversations == 3


def test_popularity_needs_training_dialogs_that_are_not_scored(protocol_files, tmp_path, capsys):
    args = ["cpcd", "--dialogs", str(protocol_files["dialogs"]), "--tracks", str(protocol_files["tracks"]),
            "--retriever", "popularity", "--k", "1,5", "--out", str(tmp_path / "o")]
    assert main(args) == 2
    assert capsys.readouterr().err.strip() == ("crsim: error: --retriever popularity needs --train FILE... "
                                               "(the conversations whose likes it counts)")
    assert main([*args, "--train", str(protocol_files["train"]), str(protocol_files["dialogs"])]) == 2
    assert "--train and --dialogs share 4 conversation(s) (first: 'd1')" in capsys.readouterr().err


def test_bad_input_is_one_error_line_naming_file_and_line(catalog_files, tmp_path):
    tracks = catalog_files["tracks"]
    base = ["eval", "cpcd", "--tracks", str(tracks), "--retriever", "bm25", "--out", str(tmp_path / "o")]

    not_cpcd = crsim(*base, "--dialogs", str(tracks))  # the tracks file given as dialogs
    assert not_cpcd.returncode == 2 and not_cpcd.stderr.count("\n") == 1
    assert not_cpcd.stderr.startswith(f"crsim: error: {tracks}, line 1: not a CPCD dialog file")

    missing = write_jsonl(tmp_path / "cpcd_v1.dialogs.x.jsonl", [
        dialog("ok", [turn("hi", ["tr001"])], ["tr001"]),
        dialog("bad", [turn("hi", ["tr001"]), turn("more", ["nope"])], ["tr001", "nope"],
               tracks={"nope": {"track_ids": "nope", "track_titles": "Embedded Only", "track_cluster_ids": "n"}})])
    out = crsim(*base, "--dialogs", str(missing))
    assert out.returncode == 2 and out.stderr == (
        f"crsim: error: {missing}, line 2, field 'turns[1].liked_results': "
        "unknown track id 'nope' (not in the tracks file)\n")

    empty = write_jsonl(tmp_path / "cpcd_v1.dialogs.empty.jsonl", ["", "  "])
    out = crsim(*base, "--dialogs", str(empty))
    assert out.returncode == 2 and out.stderr == f"crsim: error: {empty}: empty split: the file holds no conversation\n"

    assert main(["cpcd", "--dialogs", str(catalog_files["dialogs"]), "--retriever", "bm25", "--k", "5,x"]) == 2
    twice = crsim(*base, "--dialogs", str(catalog_files["dialogs"]), str(catalog_files["dialogs"]))
    assert twice.returncode == 2 and "dialog 'dlgA' occurs twice" in twice.stderr


def test_a_retriever_that_fails_ends_the_command_before_any_score_is_written(catalog_files, tmp_path, monkeypatch):
    """No turn of `crsim eval cpcd` is skipped on an error (the evaluator's figures need every
    turn): the first failure ends the command, so it never exits 0 on failed turns. The
    retrievers are crsim's own, so a failure is a bug and keeps its traceback."""
    from simulators.offline.cpcd import retrievers

    def broken(self, contexts):
        raise RuntimeError("bm25 broke")

    monkeypatch.setattr(retrievers.Bm25, "score", broken)
    with pytest.raises(RuntimeError, match="bm25 broke"):
        run(catalog_files, "--retriever", "bm25", out=tmp_path / "o")
    assert not (tmp_path / "o").exists()


def test_without_a_tracks_file_the_conversations_tracks_are_the_candidates(catalog_files, tmp_path):
    from simulators.offline.cpcd.data import load_cpcd

    self_contained = write_jsonl(tmp_path / "cpcd_v1.dialogs.own.jsonl", [
        dialog("x1", [turn("river songs", ["r1"]), turn("more")], ["r1", "r2"],
               tracks={t: {"track_ids": t, "track_titles": f"River {t}", "track_artists": ["Al"],
                           "track_cluster_ids": f"c{t}"} for t in ("r1", "r2", "r3")})])
    data = load_cpcd([self_contained])
    assert [item.id for item in data.candidates] == ["r1", "r2", "r3"]
    assert [(t.query, t.liked) for t in data.conversations[0].turns] == [("river songs", ["r1"]), ("more", [])]
    again = load_cpcd([self_contained])  # the import is cached: same catalog directory, no second import
    assert again.catalog.path == data.catalog.path
    with pytest.raises(Exception, match="pass the release's cpcd_v1.tracks.jsonl with --tracks"):
        load_cpcd([write_jsonl(tmp_path / "cpcd_v1.dialogs.y.jsonl", [dialog("y", [turn("a")], ["unseen"])])])
