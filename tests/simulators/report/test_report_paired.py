"""Paired comparisons: matched by episode id, bootstrapped on per-episode differences."""

from __future__ import annotations

import math
from pathlib import Path

from crsim_testing import make_episode
from environments.models import TerminationReason
from simulators.report.paired import paired_frame, paired_markdown, shared_episodes
from simulators.results.runlog import LoggedRun

METRICS = ["hits@1", "mrr", "avg_position"]


def _run(label: str, episodes) -> LoggedRun:
    return LoggedRun(Path(f"/nowhere/{label}/episodes.jsonl"), label, list(episodes),
                     config={"max_turns": 2, "seed": 0})


def _cell(df, turn: int, metric: str):
    return df[(df.turn == turn) & (df.metric == metric)].iloc[0]


def test_identical_configs_differ_by_exactly_zero():
    episodes = [make_episode(i, [1 + i % 5, 1 + i % 3]) for i in range(20)]
    df = paired_frame([_run("a", episodes), _run("b", episodes)], METRICS)
    assert len(df) == 2 * len(METRICS)
    assert (df["diff"] == 0).all() and (df["ci_low"] == 0).all() and (df["ci_high"] == 0).all()
    assert not df["significant"].any() and (df["better"] == "").all()
    assert (df["n_pairs"] == 20).all()


def test_a_clearly_better_config_has_a_ci_above_zero_and_is_named():
    good = [make_episode(i, [1, 1]) for i in range(30)]
    bad = [make_episode(i, [5 + i % 7, 3 + i % 4]) for i in range(30)]
    df = paired_frame([_run("bad", bad), _run("good", good)], METRICS)
    mrr = _cell(df, 2, "mrr")
    assert mrr["diff"] < 0 and mrr["ci_high"] < 0 and mrr["significant"] and mrr["better"] == "good"
    position = _cell(df, 2, "avg_position")  # lower is better: bad - good > 0 still means good wins
    assert position["ci_low"] > 0 and position["better"] == "good"
    assert math.isclose(mrr["diff"], mrr["mean_a"] - mrr["mean_b"])
    assert "B better" in paired_markdown(df, METRICS)


def test_only_shared_scorable_episodes_with_the_same_target_are_paired():
    a = [make_episode(i, [1, 1]) for i in range(5)]
    b = [make_episode(i, [2, 2]) for i in range(1, 7)]  # ep0 only in a, ep5/ep6 only in b
    b[0] = make_episode(1, [2, 2], termination=TerminationReason.error, error="boom")  # ep1 crashed in b
    a[2] = a[2].model_copy(update={"targets": ["x"]})
    b[1] = b[1].model_copy(update={"targets": ["y"]})  # ep2: different targets, not the same episode
    pairs = shared_episodes(_run("a", a), _run("b", b))
    assert [x.id for x, _ in pairs] == ["ep3", "ep4"]
    df = paired_frame([_run("a", a), _run("b", b)], METRICS)
    assert (df["n_pairs"] == 2).all()


def test_a_turn_counts_a_pair_only_when_both_sides_have_a_value():
    a = [make_episode(i, [1, 1]) for i in range(4)]
    b = [make_episode(i, [3], turns=[2]) for i in range(4)]  # b has no ranking at turn 1
    df = paired_frame([_run("a", a), _run("b", b)], ["mrr"])
    assert _cell(df, 1, "mrr")["n_pairs"] == 0 and math.isnan(_cell(df, 1, "mrr")["diff"])
    assert _cell(df, 2, "mrr")["n_pairs"] == 4


def test_one_config_has_nothing_to_compare():
    df = paired_frame([_run("a", [make_episode(0, [1])])], METRICS)
    assert df.empty and list(df.columns)[:4] == ["config_a", "config_b", "turn", "metric"]
    assert "single configuration" in paired_markdown(df, METRICS)
