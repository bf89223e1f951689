"""Metric values on known ranks, carry-forward and exclusion of unscorable episodes."""

from __future__ import annotations

import pytest

from crsim_testing import make_episode

from environments.models import Episode, TerminationReason
from simulators.metrics import (
    METRICS,
    episode_metrics,
    hits_cutoff,
    is_scorable,
    metric_names,
    metric_value,
    rank_metrics,
)


def test_metric_order() -> None:
    assert METRICS == ("hits@1", "hits@5", "hits@10", "mrr", "avg_position")
    assert metric_names((3, 50)) == ("hits@3", "hits@50", "mrr", "avg_position")


@pytest.mark.parametrize(
    ("rank", "expected"),
    [
        (1, {"hits@1": 1.0, "hits@5": 1.0, "hits@10": 1.0, "mrr": 1.0, "avg_position": 1.0}),
        (5, {"hits@1": 0.0, "hits@5": 1.0, "hits@10": 1.0, "mrr": 0.2, "avg_position": 5.0}),
        (10, {"hits@1": 0.0, "hits@5": 0.0, "hits@10": 1.0, "mrr": 0.1, "avg_position": 10.0}),
        (11, {"hits@1": 0.0, "hits@5": 0.0, "hits@10": 0.0, "mrr": 1 / 11, "avg_position": 11.0}),
    ],
)
def test_rank_metrics(rank: int, expected: dict[str, float]) -> None:
    assert rank_metrics(rank) == pytest.approx(expected)
    assert list(rank_metrics(rank)) == list(METRICS)


def test_hits_names_are_parsed() -> None:
    assert hits_cutoff("hits@25") == 25
    assert hits_cutoff("mrr") is None
    assert hits_cutoff("hits@0") is None
    assert metric_value("hits@25", 25) == 1.0
    assert metric_value("hits@25", 26) == 0.0
    with pytest.raises(ValueError, match="unknown metric"):
        metric_value("ndcg", 1)
    with pytest.raises(ValueError, match="1-based"):
        metric_value("mrr", 0)
    with pytest.raises(ValueError):
        metric_names((0,))


def test_episode_metrics_per_turn() -> None:
    result = episode_metrics(make_episode(0, [20, 7, 1]), max_turns=3)
    assert sorted(result) == [1, 2, 3]
    assert result[1]["avg_position"] == 20.0
    assert result[2]["hits@10"] == 1.0 and result[2]["hits@5"] == 0.0
    assert result[3]["mrr"] == 1.0


def test_accepted_episode_carries_last_ranking_forward() -> None:
    episode = make_episode(0, [8, 1], termination=TerminationReason.accepted)
    result = episode_metrics(episode, max_turns=5)
    assert sorted(result) == [1, 2, 3, 4, 5]
    for turn in (2, 3, 4, 5):
        assert result[turn]["hits@1"] == 1.0
        assert result[turn]["avg_position"] == 1.0
    assert result[1]["avg_position"] == 8.0


def test_gaps_carry_forward_and_turns_before_first_ranking_are_absent() -> None:
    result = episode_metrics(make_episode(0, [30, 4], turns=[2, 4]), max_turns=5)
    assert sorted(result) == [2, 3, 4, 5]
    assert result[3]["avg_position"] == 30.0
    assert result[5]["avg_position"] == 4.0


def test_rankings_beyond_max_turns_are_ignored() -> None:
    result = episode_metrics(make_episode(0, [9, 3, 1]), max_turns=2)
    assert sorted(result) == [1, 2]
    assert result[2]["avg_position"] == 3.0


def test_custom_ks() -> None:
    result = episode_metrics(make_episode(0, [3]), max_turns=1, ks=(2, 3))
    assert list(result[1]) == ["hits@2", "hits@3", "mrr", "avg_position"]
    assert result[1]["hits@2"] == 0.0 and result[1]["hits@3"] == 1.0


@pytest.mark.parametrize(
    "episode",
    [
        make_episode(0, [1, 1], termination=TerminationReason.error),
        make_episode(0, [1], error="Traceback ..."),
        make_episode(0, []),
    ],
)
def test_unscorable_episodes_are_excluded(episode: Episode) -> None:
    assert not is_scorable(episode)
    assert episode_metrics(episode, max_turns=3) == {}
