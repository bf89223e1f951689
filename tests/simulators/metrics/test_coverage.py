"""Preference Coverage, its increase rate and its group variants on known ranks."""

from __future__ import annotations

import numpy as np
import pytest

from environments.models import Episode, TargetRank, TerminationReason, TurnEvaluation
from simulators.metrics import (
    AverageCoverageIncrease, CoverageIncrease, PreferenceCoverage, RecallAt, episode_metrics, metric_from_name,
)

TARGETS = ["a", "b", "c", "d"]


def episode(ranks_per_turn: list[dict[str, int]], groups: dict[str, list[str]] | None = None,
            termination: TerminationReason = TerminationReason.max_turns) -> Episode:
    records = [TurnEvaluation(turn=t, n_candidates=100,
                              ranks=[TargetRank(item_id=i, rank=r, n_better=r - 1, n_tied=1) for i, r in ranks.items()])
               for t, ranks in enumerate(ranks_per_turn, start=1)]
    return Episode(id="e", index=0, config_hash="h", seed=0, environment="multi_target", targets=TARGETS,
                   target_groups=groups or {}, evaluations=records, termination=termination)


def test_coverage_is_cumulative_while_recall_is_per_turn() -> None:
    ep = episode([{"a": 1, "b": 30, "c": 40, "d": 50}, {"a": 30, "b": 2, "c": 40, "d": 50},
                  {"a": 30, "b": 30, "c": 40, "d": 50}])
    pc = PreferenceCoverage(5).per_turn(ep, 3)
    recall = RecallAt(5).per_turn(ep, 3)
    assert pc == {1: 0.25, 2: 0.5, 3: 0.5}
    assert recall == {1: 0.25, 2: 0.25, 3: 0.0}


def test_groups_score_their_own_targets() -> None:
    ep = episode([{"a": 1, "b": 2, "c": 90, "d": 3}], {"selected": ["a", "b"], "residual": ["c", "d"]})
    values = episode_metrics(ep, 1, [metric_from_name("pc_selected@5"), metric_from_name("pc_residual@5")])
    assert values[1] == {"pc_selected@5": 1.0, "pc_residual@5": 0.5}
    assert PreferenceCoverage(5, "missing").per_turn(ep, 1) == {}  # no such group: no value, not zero


def random_episode(rng: np.random.Generator, turns: int, ended_at: int | None = None) -> Episode:
    n = ended_at or turns
    ranks = [{t: int(rng.integers(1, 60)) for t in TARGETS} for _ in range(n)]
    ending = TerminationReason.accepted if ended_at else TerminationReason.max_turns
    return episode(ranks, termination=ending)


@pytest.mark.parametrize("seed", range(20))
def test_coverage_never_decreases_and_increases_sum_to_it(seed: int) -> None:
    rng = np.random.default_rng(seed)
    turns = int(rng.integers(1, 12))
    ended = int(rng.integers(1, turns + 1)) if seed % 2 else None
    ep = random_episode(rng, turns, ended)
    for k in (1, 5, 10, 20, 50):
        pc = PreferenceCoverage(k).per_turn(ep, turns)
        values = [pc[t] for t in sorted(pc)]
        assert all(b >= a for a, b in zip(values, values[1:])), values
        pcir = CoverageIncrease(k).per_turn(ep, turns)
        assert sorted(pcir) == sorted(pc)
        assert sum(pcir.values()) == pytest.approx(pc[turns])
        assert all(v >= 0 for v in pcir.values())
        average = AverageCoverageIncrease(k).per_turn(ep, turns)
        assert average[turns] == pytest.approx(sum(pcir.values()) / turns)


def test_an_episode_that_stopped_keeps_its_coverage_and_adds_nothing() -> None:
    ep = episode([{"a": 1, "b": 90, "c": 90, "d": 90}, {"a": 90, "b": 3, "c": 90, "d": 90}],
                 termination=TerminationReason.accepted)
    assert PreferenceCoverage(5).per_turn(ep, 4) == {1: 0.25, 2: 0.5, 3: 0.5, 4: 0.5}
    assert CoverageIncrease(5).per_turn(ep, 4) == {1: 0.25, 2: 0.25, 3: 0.0, 4: 0.0}


def test_names_resolve_with_their_direction() -> None:
    for name in ("pc@20", "pc_selected@20", "pc_residual@50", "pcir@10", "pcir_avg@10"):
        metric = metric_from_name(name)
        assert metric is not None and metric.name == name and metric.higher_is_better
