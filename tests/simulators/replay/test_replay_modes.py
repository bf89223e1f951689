"""`crsim replay` modes on a real logged offline run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crsim_testing import crsim

from environments.models import Role
from simulators.cli.replay import main
from simulators.engine.logs import read_episodes


def _episodes(path: Path) -> list:
    episodes, problems = read_episodes(path)
    assert not problems
    return episodes


def _texts(episode, role: Role) -> list[str]:
    return [t.text for t in episode.turns if t.role == role and not t.metadata.get("opening")]


def test_rescore_equals_the_original_results(run_copy, capsys):
    assert main([str(run_copy), "--rescore"]) == 0
    assert f"identical to {run_copy / 'results.csv'}" in capsys.readouterr().out
    # a results table that does not match the log is reported, cell by cell
    results = (run_copy / "results.csv").read_text().splitlines()
    fields = results[3].split(",")
    fields[2] = str(float(fields[2]) + 0.5)
    results[3] = ",".join(fields)
    (run_copy / "results.csv").write_text("\n".join(results) + "\n")
    assert main([str(run_copy), "--rescore"]) == 1
    assert "differs from" in capsys.readouterr().out


def test_render_shows_the_transcript_items_and_target_rank(logged_run, capsys):
    episode = _episodes(logged_run / "episodes.jsonl")[1]
    assert main([str(logged_run), "--render", "--episode", episode.id]) == 0
    out = capsys.readouterr().out
    assert f"episode {episode.id}" in out and "target rank" in out
    assert _texts(episode, Role.seeker)[0][:20] in out


def test_reexecute_reproduces_every_transcript_and_finds_a_tampered_one(run_copy, capsys):
    assert main([str(run_copy), "--reexecute"]) == 0
    assert "every transcript is identical" in capsys.readouterr().out
    lines = (run_copy / "episodes.jsonl").read_text().splitlines()
    record = json.loads(lines[2])
    seeker_turn = next(t for t in record["turns"] if t["role"] == "seeker")
    seeker_turn["text"] = "something else entirely"
    lines[2] = json.dumps(record)
    (run_copy / "episodes.jsonl").write_text("\n".join(lines) + "\n")
    assert main([str(run_copy), "--reexecute"]) == 1
    out = capsys.readouterr().out
    assert f"first difference in {record['id']}: turn {seeker_turn['index']} (seeker) text" in out


def test_fix_seeker_with_the_same_recommender_reproduces_the_rankings(run_copy):
    assert main([str(run_copy), "--fix", "seeker"]) == 0
    logged = _episodes(run_copy / "episodes.jsonl")
    replayed = _episodes(run_copy / "replay-fix-seeker-own" / "episodes.jsonl")
    assert [e.id for e in replayed] == [e.id for e in logged]
    for old, new in zip(logged, replayed, strict=True):
        assert [(r.turn, r.ranks, r.top) for r in new.evaluations] == [(r.turn, r.ranks, r.top)
                                                                      for r in old.evaluations]
        assert _texts(new, Role.seeker) == _texts(old, Role.seeker)


def test_fix_seeker_with_a_new_recommender_keeps_the_seeker_and_scores_the_new_one(run_copy, capsys):
    out_dir = run_copy / "popularity-vs-logged-seeker"
    assert main([str(run_copy), "--fix", "seeker", "--recommender", "popularity", "--out", str(out_dir)]) == 0
    assert "logged vs fix-seeker popularity" in capsys.readouterr().out
    logged = _episodes(run_copy / "episodes.jsonl")
    replayed = _episodes(out_dir / "episodes.jsonl")
    assert [_texts(e, Role.seeker) for e in replayed] == [_texts(e, Role.seeker) for e in logged]
    assert [e.targets for e in replayed] == [e.targets for e in logged]
    assert [[r.top for r in e.evaluations] for e in replayed] != [[r.top for r in e.evaluations] for e in logged]
    assert (out_dir / "results.csv").is_file() and "popularity" in (out_dir / "config.yaml").read_text()
    assert main([str(out_dir), "--rescore"]) == 0  # a replay's log is a run like any other


def test_fix_recommender_replays_its_questions_and_logged_ranks(run_copy):
    assert main([str(run_copy), "--fix", "recommender"]) == 0
    logged = _episodes(run_copy / "episodes.jsonl")
    replayed = _episodes(run_copy / "replay-fix-recommender-own" / "episodes.jsonl")
    for old, new in zip(logged, replayed, strict=True):
        assert _texts(new, Role.recommender) == _texts(old, Role.recommender)
        assert [t.items_shown for t in new.turns] == [t.items_shown for t in old.turns]
        assert new.evaluations == old.evaluations


def test_resume_from_turn_keeps_the_prefix_and_continues_with_new_agents(run_copy):
    assert main([str(run_copy), "--resume-from", "1", "--recommender", "popularity"]) == 0
    logged = _episodes(run_copy / "episodes.jsonl")
    replayed = _episodes(run_copy / "replay-resume-1-own-popularity" / "episodes.jsonl")
    for old, new in zip(logged, replayed, strict=True):
        prefix = 3  # opening, seeker move 1, recommender turn 1
        assert [t.text for t in new.turns[:prefix]] == [t.text for t in old.turns[:prefix]]
        assert new.evaluations[0] == old.evaluations[0] and len(new.evaluations) == len(old.evaluations)
        assert new.turns[prefix].role == Role.seeker  # the new seeker took over after turn 1


def test_bad_input_is_one_clear_line(tmp_path, logged_run):
    missing = crsim("replay", str(tmp_path / "nope"), "--rescore")
    assert missing.returncode == 2 and missing.stderr.startswith("crsim: error:") and "nope" in missing.stderr
    both = crsim("replay", str(logged_run), "--fix", "seeker", "--seeker", "target_biased")
    assert both.returncode == 2 and "keeps the logged seeker" in both.stderr
    unknown = crsim("replay", str(logged_run), "--fix", "seeker", "--recommender", "no_such")
    assert unknown.returncode == 2 and "no_such" in unknown.stderr and "Traceback" not in unknown.stderr


@pytest.mark.parametrize("mode", [["--reexecute"], ["--fix", "seeker"], ["--resume-from", "1"]])
def test_a_logged_target_the_catalog_no_longer_has_is_one_line(logged_run, run_copy, mode):
    # The run's catalog changed since (here: the log names an item it does not have); the
    # environment would draw another target from the same seed, so nothing is replayed.
    lines = (run_copy / "episodes.jsonl").read_text().splitlines()
    record = json.loads(lines[1])
    record["targets"] = ["gone-item"]
    lines[1] = json.dumps(record)
    (run_copy / "episodes.jsonl").write_text("\n".join(lines) + "\n")
    done = crsim("replay", str(run_copy), *mode, "--out", str(run_copy / "out"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"crsim: error: episode {record['id']}: its target 'gone-item' is not in the catalog the run's config builds "
        f"('tiny' at {logged_run.parent / 'tiny'}; 1 of 4 episodes have such targets): the catalog "
        "changed since the run; replay with the run's catalog, or leave those episodes out by naming others with "
        "--episode ID"]
    assert not (run_copy / "out" / "episodes.jsonl").exists() or not (run_copy / "out" / "episodes.jsonl").read_text()


def test_a_replay_into_a_directory_in_use_stops_and_empties_nothing(run_copy, capsys):
    """A replay starts its output directory afresh; while a run (here this test) holds that
    directory's lock, it stops with one line instead, and it holds the lock itself while it writes."""
    import os

    from simulators.engine.run_lock import LOCK_FILE, run_dir_lock

    before = (run_copy / "episodes.jsonl").read_bytes()
    with run_dir_lock(run_copy):
        assert main([str(run_copy), "--reexecute", "--out", str(run_copy)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("crsim: error:") and len(err.splitlines()) == 1
    assert f"pid {os.getpid()}" in err and "its own --out" in err
    assert (run_copy / "episodes.jsonl").read_bytes() == before
    assert main([str(run_copy), "--fix", "seeker"]) == 0 and not list(run_copy.rglob(LOCK_FILE))


def test_resumed_agents_remember_the_logged_turns(run_copy):
    # The recommender taking over after turn 2 knows which aspects the log already asked
    # about, and the seeker which facts it already stated: neither repeats them.
    assert main([str(run_copy), "--resume-from", "2"]) == 0
    logged = _episodes(run_copy / "episodes.jsonl")
    replayed = _episodes(run_copy / "replay-resume-2-own-own" / "episodes.jsonl")
    for old, new in zip(logged, replayed, strict=True):
        moves = [t for t in new.turns if t.role == Role.recommender and not t.metadata.get("opening")]
        aspects = [t.metadata.get("aspect") for t in moves if t.metadata.get("aspect")]
        assert len(aspects) == len(set(aspects)), aspects
        facts = [t.metadata.get("fact") for t in new.turns if t.role == Role.seeker and t.metadata.get("fact")]
        assert len(facts) == len(set(facts)), facts
        assert [t.text for t in new.turns] == [t.text for t in old.turns]  # same agents: same episode


def test_a_log_written_by_the_previous_release_rescores_to_its_own_table(tmp_path, capsys):
    # Written by crsim with episode schema 2 (one target, `rankings`), before metrics were
    # plug-ins: tiny catalog, BM25, 6 episodes, 3 turns. Not regenerated: that is the point.
    import shutil

    run = Path(shutil.copytree(Path(__file__).parent / "fixtures" / "release2_run", tmp_path / "run"))
    assert '"schema_version":2' in (run / "episodes.jsonl").read_text()
    assert main([str(run), "--rescore"]) == 0
    assert f"identical to {run / 'results.csv'}" in capsys.readouterr().out
    episodes = _episodes(run / "episodes.jsonl")
    assert all(len(e.targets) == 1 and len(e.evaluations) == 3 for e in episodes)
