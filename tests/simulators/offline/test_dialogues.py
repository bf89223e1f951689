"""`crsim eval dialogues`: recommenders on logged ReDial-format dialogues, leak-free, with CIs.

The dialogues are a fixture we write in ReDial's own format (`write_redial_fixture`: train and
test files, movies_with_mentions.csv) and import with the ReDial adapter, as a user would.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from crsim_testing import HashEncoder, write_redial_fixture

import environments.search as search
from environments.datasets.redial import RedialOptions, import_redial
from environments.models import Episode, TerminationReason, Turn
from environments.search.ease import EaseIndex
from simulators.cli.eval_dialogues import build_recommender, main
from simulators.offline.dialogues import evaluation_turns, prepare
from simulators.results.runlog import load_run
from simulators.results.table import read_results_csv

HELD_OUT = "Hereditary (2018)"


@pytest.fixture(scope="module")
def redial_catalog(tmp_path_factory):
    raw = write_redial_fixture(tmp_path_factory.mktemp("redial-raw"), test_only_title=HELD_OUT)
    out = tmp_path_factory.mktemp("redial") / "catalog"
    import_redial([raw / "train_data.jsonl", raw / "test_data.jsonl"], out, RedialOptions())
    return out


@pytest.fixture(autouse=True)
def small_encoder(monkeypatch):
    """A bag-of-words encoder instead of MiniLM: these tests check the protocol, not the model."""
    encoder = HashEncoder()
    monkeypatch.setattr(search, "get_encoder", lambda model=None: encoder, raising=False)


def test_turns_are_recommender_turns_naming_new_items_with_the_text_before_them():
    turns = [Turn(index=0, role="seeker", text="I like @A", metadata={"mentioned": ["a"]}),
             Turn(index=1, role="recommender", text="Try B and A", items_shown=["b", "a"]),
             Turn(index=2, role="seeker", text="seen B", feedback={"b": "like"}),
             Turn(index=3, role="recommender", text="B again", items_shown=["b"]),
             Turn(index=4, role="recommender", text="or C", items_shown=["c"])]
    dialogue = Episode(id="d", index=0, config_hash="x", seed=0, environment="redial", turns=turns,
                       termination=TerminationReason.max_turns)
    found = evaluation_turns(dialogue)
    assert [(t.position, t.number, t.targets) for t in found] == [(1, 1, ("b",)), (4, 3, ("c",))]
    prior = found[1].prior
    assert [t.text for t in prior] == ["I like @A", "Try B and A", "seen B", "B again"]
    assert all(not t.items_shown and not t.feedback and not t.metadata for t in prior)  # tags and answers hidden


def test_ease_is_fitted_on_training_dialogues_only(redial_catalog, monkeypatch):
    setup = prepare(redial_catalog)
    dialogues = load_run(redial_catalog / "dialogues.jsonl").episodes
    train_ids = {d.id for d in dialogues if d.profile["split"] == "train_data"}
    test = [d for d in dialogues if d.profile["split"] == "test_data"]
    matrix = setup.catalog.interactions()
    assert set(matrix.user_ids) == train_ids and len(matrix.user_ids) == 80  # one pseudo-user per dialogue
    held_out = next(i.id for i in setup.catalog.items if i.title == HELD_OUT)
    assert any(held_out in t.targets for t in setup.turns)  # it is a target in the test split ...
    assert matrix.matrix[:, setup.catalog.item_index[held_out]].nnz == 0  # ... and no row holds it
    assert held_out not in setup.candidates  # nor does it define the candidates
    assert not setup.catalog.users and not setup.catalog.reviews  # users.jsonl holds test seekers' likes
    for dialogue in test:  # a test dialogue's own items never form a row
        items = {setup.catalog.item_index[i] for t in dialogue.turns
                 for i in (t.items_shown or t.metadata.get("mentioned", []))}
        rows = matrix.matrix.tocsr()
        assert all(set(rows[r].indices) != items for r in range(rows.shape[0]))

    seen = []
    original = EaseIndex.build.__func__
    monkeypatch.setattr(EaseIndex, "build", classmethod(lambda cls, m, *a, **k: seen.append(m) or
                                                          original(cls, m, *a, **k)))
    build_recommender("ease", [], setup.catalog)
    assert len(seen) == 1 and set(seen[0].user_ids) == train_ids


def test_cli_prints_recall_and_ndcg_with_cis_and_writes_a_reportable_log(redial_catalog, tmp_path, capsys):
    out = tmp_path / "eval"
    code = main([str(redial_catalog), "--recommender", "ease", "crag", "zero_shot", "--out", str(out),
                 "--no-progress", "--resamples", "200"])
    printed = capsys.readouterr().out
    assert code == 0
    for metric in ("recall@5", "recall@10", "recall@15", "recall@20", "ndcg@20"):
        assert metric in printed
    assert "evaluated_turns: " in printed and "pseudo_users: 80" in printed
    frames = {name: read_results_csv(out / name / "results.csv") for name in ("ease", "crag", "zero_shot")}
    n_turns = int(printed.split("evaluated_turns: ")[1].split(",")[0])
    for frame in frames.values():
        assert set(frame["metric"]) == {f"{m}@{k}" for m in ("recall", "ndcg") for k in (5, 10, 15, 20)}
        assert (frame["n"] == n_turns).all() and (frame["ci_low"] <= frame["mean"]).all()
    recall = {name: frame.set_index("metric")["mean"] for name, frame in frames.items()}
    assert recall["ease"]["recall@20"] >= 0.4  # genre-clustered likes: collaborative filtering finds them
    assert recall["ease"]["recall@5"] <= recall["ease"]["recall@10"] <= recall["ease"]["recall@20"]

    run = load_run(out / "ease")  # what crsim report / replay read
    assert len(run.episodes) == n_turns and run.metrics[0].name == "recall@5"
    from simulators.results.table import results_frame

    again = results_frame(run.episodes, 1, run.metrics, seed=0, n_resamples=200)
    pd.testing.assert_frame_equal(again.reset_index(drop=True), frames["ease"], check_dtype=False)
    move = run.episodes[0].turns[-1]
    assert move.role == "recommender" and "positives" in move.metadata


def test_cli_runs_crag_with_the_openai_backend(redial_catalog, tmp_path, openai_stub, capsys):
    out = tmp_path / "eval"
    code = main([str(redial_catalog), "--recommender", "crag", "--limit", "2", "--out", str(out), "--no-progress",
                 "--set", "llm@recommender.llm=openai", f"recommender.llm.base_url={openai_stub.url}",
                 "recommender.llm.model=stub-model", "recommender.llm.cache=false", "recommender.llm.max_retries=0"])
    assert code == 0, capsys.readouterr().err
    calls = [json.loads(line) for line in (out / "crag" / "llm_calls.jsonl").read_text().splitlines()]
    steps = {c["step"] for c in calls}
    assert {"crag_extract", "crag_recommend", "crag_rerank"} <= steps and all(c["ok"] for c in calls)
    assert "clarify_question" not in steps  # questions are not asked in offline evaluation
    assert openai_stub.count == len(calls)
    episodes = load_run(out / "crag").episodes
    assert episodes and all(e.llm_calls and e.error is None for e in episodes)


@pytest.mark.parametrize(("args", "message"), [
    (["--test-split", "valid_data"], "no test dialogues (split valid_data); the splits there are: test_data, train_data"),
    (["--recommender", "no_such_thing"], "cannot build recommender 'no_such_thing'"),
    (["--limit", "0"], "--limit must be at least 1"),
])
def test_bad_input_is_one_error_line(redial_catalog, tmp_path, capsys, args, message):
    argv = [str(redial_catalog), "--out", str(tmp_path), "--no-progress", *args]
    if "--recommender" not in args:
        argv += ["--recommender", "ease"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("crsim: error: ") and message in err and len(err.splitlines()) == 1


def test_a_directory_without_dialogues_is_one_error_line(tmp_path, tiny_catalog_dir, capsys):
    assert main([str(tiny_catalog_dir), "--recommender", "ease"]) == 2
    assert "dialogues.jsonl: not found" in capsys.readouterr().err


RECOMMENDER_CONF = Path(__file__).parents[3] / "conf" / "recommender"
PLAYLIST_ONLY = "curator_"  # curators build playlists (playlist protocol), not a ranking per turn
NEEDS_SNIPPETS = "sniprec"  # ranks by review / attribute snippets: a dialogue import has neither
NEEDS_A_SERVER = "http"  # a CRS served elsewhere (tests/simulators/cli/test_http_runs.py runs it)


def single_target_recommenders() -> list[str]:
    """Every shipped recommender that ranks a single-target catalog and needs no reviews."""
    names = sorted(path.stem for path in RECOMMENDER_CONF.glob("*.yaml"))
    return [n for n in names if not n.startswith((PLAYLIST_ONLY, NEEDS_SNIPPETS)) and n != NEEDS_A_SERVER]


def test_every_shipped_recommender_is_scored_on_its_ranking_of_the_candidates(redial_catalog, tmp_path, capsys):
    names = single_target_recommenders()
    assert {"popularity", "random", "bm25", "dense", "ease", "crag", "zero_shot", "naive_rag"} <= set(names)
    out = tmp_path / "eval"
    code = main([str(redial_catalog), "--recommender", *names, "--out", str(out), "--no-progress",
                 "--resamples", "50"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "crsim: warning" not in captured.err
    setup = prepare(redial_catalog)
    candidates = set(setup.candidates)
    recall = {}
    for name in names:
        episodes = load_run(out / name).episodes
        assert len(episodes) == len(setup.turns)
        assert [e.error for e in episodes if e.error] == [], name  # no turn failed
        for episode in episodes:
            (record,) = episode.evaluations
            assert record.n_candidates == len(candidates) and set(record.top) <= candidates, name
        frame = read_results_csv(out / name / "results.csv").set_index("metric")
        assert (frame["n"] == len(setup.turns)).all() and frame["mean"].notna().all(), name
        recall[name] = frame.loc["recall@20", "mean"]
    # popularity counts the training pseudo-users (the view has no reviews), so it is not random
    assert recall["popularity"] > recall["random"]


def test_scores_over_the_view_are_read_onto_the_candidates_by_item_id(redial_catalog):
    from environments.base import Recommendation
    from simulators.offline.dialogues import CandidateSpace

    setup = prepare(redial_catalog)
    view = setup.catalog
    space = CandidateSpace.of(setup.candidates, view)
    assert len(space.ids) < len(view.items)  # the candidates are part of the view
    wanted = space.ids[5]
    over_view = np.zeros(len(view.items))
    over_view[view.item_index[wanted]] = 1.0  # the view's best item, somewhere among the candidates
    scores = space.scores(Recommendation(question="", scores=over_view))
    assert scores.shape == (len(space.ids),) and int(np.argmax(scores)) == 5 and scores.sum() == 1.0
    outside = next(i for i in view.item_ids if i not in space.index)
    ranked = space.scores(Recommendation(question="", ranked_ids=[outside, wanted, space.ids[0]]))
    assert ranked[5] > ranked[0] > -np.inf and np.isinf(ranked[1:5]).all()  # the outsider is dropped
    with pytest.raises(ValueError, match="ranks unknown item 'nope'"):
        space.scores(Recommendation(question="", ranked_ids=["nope"]))
    with pytest.raises(ValueError, match=r"\(3,\) scores for"):
        space.scores(Recommendation(question="", scores=np.zeros(3)))
    assert [view.item_index[i] for i in space.ids] == sorted(view.item_index[i] for i in space.ids)


def test_sniprec_on_titles_alone_is_one_error_line(redial_catalog, tmp_path, capsys):
    code = main([str(redial_catalog), "--recommender", "sniprec", "--out", str(tmp_path), "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith("crsim: error: recommender sniprec ranks movies by snippets of their reviews")


PLUGINS = Path(__file__).parents[1] / "cli" / "plugins"  # recommender=broken raises on the moves it is told to


@pytest.fixture
def broken(monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGINS))
    return ["--set", f"hydra.searchpath=[file://{PLUGINS / 'conf'}]"]


def test_a_recommender_that_fails_every_turn_is_an_error_after_the_others_ran(redial_catalog, tmp_path, capsys,
                                                                                 broken):
    out = tmp_path / "eval"
    code = main([str(redial_catalog), "--recommender", "broken", "random", "--out", str(out), "--no-progress",
                 "--resamples", "50", *broken])
    captured = capsys.readouterr()
    assert code == 2
    (line,) = captured.err.strip().splitlines()
    n_turns = len(prepare(redial_catalog).turns)
    assert line == (f"crsim: error: every evaluated turn of recommender broken failed ({n_turns} of {n_turns}): "
                    f"RuntimeError: broken recommender: told to fail at turn 1 "
                    f"(tracebacks in {out / 'broken' / 'episodes.jsonl'})")
    assert "random" in captured.out and (out / "random" / "results.csv").is_file()  # the other one still ran


def test_a_recommender_that_fails_some_turns_is_one_warning_line(redial_catalog, tmp_path, capsys, broken):
    out = tmp_path / "eval"
    code = main([str(redial_catalog), "--recommender", "broken", "--out", str(out), "--no-progress",
                 "--resamples", "50", *broken, "recommender.turns=[2]"])
    captured = capsys.readouterr()
    assert code == 0
    episodes = load_run(out / "broken").episodes
    failed = sum(1 for e in episodes if e.error)
    assert 0 < failed < len(episodes)
    (line,) = captured.err.strip().splitlines()
    assert line == (f"crsim: warning: {failed} of {len(episodes)} evaluated turns of recommender broken failed and "
                    f"are left out of its numbers; the first: RuntimeError: broken recommender: told to fail at "
                    f"turn 2 (tracebacks in {out / 'broken' / 'episodes.jsonl'})")
    frame = read_results_csv(out / "broken" / "results.csv")
    assert (frame["n"] == len(episodes) - failed).all()
