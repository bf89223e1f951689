"""The report's results table: per-config frames, Markdown, and logs with nothing to score."""

from __future__ import annotations

import pandas as pd
import pytest

from crsim_testing import make_episode
from environments.errors import CrsimError
from environments.models import TerminationReason
from simulators.metrics import MRR, HitsAt
from simulators.report import tables
from simulators.results.runlog import LoggedRun
from simulators.results.table import results_frame


def _run(label: str, episodes, path) -> LoggedRun:
    return LoggedRun(path / label / "episodes.jsonl", label, list(episodes), config={"max_turns": 3, "seed": 0})


def test_frames_reproduce_the_runs_own_results_and_keep_the_chosen_metrics(tmp_path):
    episodes = [make_episode(i, [10 - i, 5, 1 + i % 3]) for i in range(8)]
    run = _run("a", episodes, tmp_path)
    frames = tables.config_frames([run], ["mrr", "hits@3"])
    frame = frames["a"]
    assert list(dict.fromkeys(frame["metric"])) == ["mrr", "hits@3"]
    expected = results_frame(episodes, 3, [HitsAt(3), MRR()], seed=0)
    merged = frame.merge(expected, on=["turn", "metric"], suffixes=("", "_run"))
    assert len(merged) == 6
    assert (merged["mean"] == merged["mean_run"]).all() and (merged["ci_low"] == merged["ci_low_run"]).all()


def test_markdown_has_a_row_per_config_and_turn_and_bolds_only_real_winners(tmp_path):
    good = _run("rec=good|x", [make_episode(i, [1, 1, 1]) for i in range(4)], tmp_path)
    bad = _run("rec=bad", [make_episode(i, [1, 9, 9]) for i in range(4)], tmp_path)
    frames = tables.config_frames([good, bad], ["hits@1", "mrr"])
    text = tables.results_markdown(tables.combined_frame(frames), ["hits@1", "mrr"], ["a note"])
    rows = [line for line in text.splitlines() if line.startswith("| rec=")]
    assert len(rows) == 6
    assert rows[0].startswith("| rec=good\\|x | 1 | 4 | 1.000")  # pipes in labels escaped
    assert "**" not in rows[0]  # turn 1: both configs at 1.0, no winner
    assert "**1.000 [1.00, 1.00]**" in rows[1]
    assert "> a note" in text


def test_logs_without_rankings_give_a_note_not_a_crash(tmp_path):
    episodes = [make_episode(i, [], termination=TerminationReason.seeker_quit) for i in range(3)]
    run = _run("dialogues", episodes, tmp_path)
    frames = tables.config_frames([run])
    combined = tables.combined_frame(frames)
    assert not tables.has_scores(combined)
    assert "nothing to score" in tables.results_markdown(combined, tables.metric_order(frames))
    assert tables.excluded_notes(frames) == [
        "dialogues: 3 episode(s) not scored (crashed or without evaluation records)"]


def test_unknown_metric_is_a_user_error(tmp_path):
    run = _run("a", [make_episode(0, [1])], tmp_path)
    with pytest.raises(CrsimError, match="unknown metric 'ndcg'"):
        tables.config_frames([run], ["mrr", "ndcg"])
    frames = tables.config_frames([run], ["hits@3", "mrr", "hits@3"])
    assert tables.metric_order(frames) == ["hits@3", "mrr"]


def test_the_runs_configured_metrics_are_the_default(tmp_path):
    config = {"max_turns": 2, "seed": 0, "environment": {"_target_": "x", "metrics": [
        {"_target_": "simulators.metrics.RecallAt", "k": 2}, {"_target_": "simulators.metrics.MRR"}]}}
    run = LoggedRun(tmp_path / "episodes.jsonl", "r", [make_episode(0, [3, 2])], config=config)
    frames = tables.config_frames([run])
    assert tables.metric_order(frames) == ["recall@2", "mrr"]
    assert frames["r"].set_index(["turn", "metric"]).loc[(2, "recall@2"), "mean"] == 1.0


def test_combined_frame_of_nothing_has_the_columns():
    assert list(tables.combined_frame({}).columns) == ["config", "turn", "metric", "mean", "ci_low", "ci_high", "n",
                                                       "higher_is_better"]
    assert not tables.has_scores(pd.DataFrame(columns=["n"]))
