"""Ranking metrics on known ranks, one target and many, and carry-forward."""

from __future__ import annotations

import math

import pytest

from crsim_testing import make_episode

from environments.models import Episode, TargetRank, TerminationReason, TurnEvaluation
from simulators.metrics import MRR, AvgPosition, HitsAt, RecallAt, default_metrics, episode_metrics, is_scorable

NAMES = ["hits@1", "hits@5", "hits@10", "mrr", "avg_position"]


def test_default_metric_names_and_directions() -> None:
    metrics = default_metrics()
    assert [m.name for m in metrics] == NAMES
    assert [m.higher_is_better for m in metrics] == [True, True, True, True, False]


@pytest.mark.parametrize(
    ("rank", "expected"),
    [
        (1, {"hits@1": 1.0, "hits@5": 1.0, "hits@10": 1.0, "mrr": 1.0, "avg_position": 1.0}),
        (5, {"hits@1": 0.0, "hits@5": 1.0, "hits@10": 1.0, "mrr": 0.2, "avg_position": 5.0}),
        (10, {"hits@1": 0.0, "hits@5": 0.0, "hits@10": 1.0, "mrr": 0.1, "avg_position": 10.0}),
        (11, {"hits@1": 0.0, "hits@5": 0.0, "hits@10": 0.0, "mrr": 1 / 11, "avg_position": 11.0}),
    ],
)
def test_single_target_values(rank: int, expected: dict[str, float]) -> None:
    result = episode_metrics(make_episode(0, [rank]), 1, default_metrics())
    assert result[1] == pytest.approx(expected)
    assert list(result[1]) == NAMES


def many_targets(ranks: dict[str, int], n_targets: int | None = None) -> Episode:
    targets = list(ranks) + [f"unranked{k}" for k in range((n_targets or len(ranks)) - len(ranks))]
    record = TurnEvaluation(turn=1, n_candidates=500,
                            ranks=[TargetRank(item_id=t, rank=r, n_better=r - 1, n_tied=1) for t, r in ranks.items()])
    return Episode(id="e", index=0, config_hash="h", seed=0, environment="test", targets=targets,
                   evaluations=[record], termination=TerminationReason.max_turns)


def test_many_targets_use_the_best_rank_the_mean_rank_and_the_share_in_the_top_k() -> None:
    episode = many_targets({"a": 3, "b": 12, "c": 40, "d": 7})
    metrics = [HitsAt(1), HitsAt(5), MRR(), AvgPosition(), RecallAt(10), RecallAt(50)]
    values = episode_metrics(episode, 1, metrics)[1]
    assert values == pytest.approx({"hits@1": 0.0, "hits@5": 1.0, "mrr": 1 / 3, "avg_position": (3 + 12 + 40 + 7) / 4,
                                    "recall@10": 2 / 4, "recall@50": 1.0})


def test_recall_counts_targets_without_a_rank_as_misses() -> None:
    episode = many_targets({"a": 2, "b": 9}, n_targets=5)
    assert episode_metrics(episode, 1, [RecallAt(10)])[1]["recall@10"] == pytest.approx(2 / 5)


def test_cut_offs_must_be_positive_integers() -> None:
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError):
            HitsAt(bad)  # type: ignore[arg-type]
    assert RecallAt(20).name == "recall@20"


def test_per_turn_values() -> None:
    result = episode_metrics(make_episode(0, [20, 7, 1]), 3, default_metrics())
    assert sorted(result) == [1, 2, 3]
    assert result[1]["avg_position"] == 20.0
    assert result[2]["hits@10"] == 1.0 and result[2]["hits@5"] == 0.0
    assert result[3]["mrr"] == 1.0


def test_accepted_episode_carries_last_ranking_forward() -> None:
    episode = make_episode(0, [8, 1], termination=TerminationReason.accepted)
    result = episode_metrics(episode, 5, default_metrics())
    assert sorted(result) == [1, 2, 3, 4, 5]
    for turn in (2, 3, 4, 5):
        assert result[turn]["hits@1"] == 1.0
        assert result[turn]["avg_position"] == 1.0
    assert result[1]["avg_position"] == 8.0


def test_gaps_carry_forward_and_turns_before_first_record_are_absent() -> None:
    result = episode_metrics(make_episode(0, [30, 4], turns=[2, 4]), 5, default_metrics())
    assert sorted(result) == [2, 3, 4, 5]
    assert result[3]["avg_position"] == 30.0
    assert result[5]["avg_position"] == 4.0


def test_records_beyond_max_turns_are_ignored() -> None:
    result = episode_metrics(make_episode(0, [9, 3, 1]), 2, default_metrics())
    assert sorted(result) == [1, 2]
    assert result[2]["avg_position"] == 3.0


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
    assert episode_metrics(episode, 3, default_metrics()) == {}


def test_ndcg_discounts_by_rank_and_normalises_by_the_best_possible_ranking() -> None:
    from simulators.metrics import NDCGAt, metric_from_name

    # targets a (rank 1), b (rank 3), one unranked target; ideal: three targets at ranks 1-3
    episode = many_targets({"a": 1, "b": 3}, n_targets=3)
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    values = episode_metrics(episode, 1, [NDCGAt(5), NDCGAt(2), NDCGAt(1)])[1]
    assert values["ndcg@5"] == pytest.approx((1 + 1 / math.log2(4)) / ideal)
    assert values["ndcg@2"] == pytest.approx(1 / (1 + 1 / math.log2(3)))  # b is outside the top 2
    assert values["ndcg@1"] == 1.0
    assert episode_metrics(many_targets({"a": 1, "b": 2}), 1, [NDCGAt(10)])[1]["ndcg@10"] == pytest.approx(1.0)
    assert metric_from_name("ndcg@15").name == "ndcg@15" and metric_from_name("ndcg@15").higher_is_better
