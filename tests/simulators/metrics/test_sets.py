"""Set precision / recall / F1 against hand-computed values, and records without a set."""

from __future__ import annotations

import pytest

from environments.models import Episode, ItemSetState, TargetRank, TerminationReason, TurnEvaluation
from simulators.metrics import SetF1, SetPrecision, SetRecall, episode_metrics

SET_METRICS = [SetPrecision(), SetRecall(), SetF1()]


def episode(*sets: list[str] | None, targets: tuple[str, ...] = ("a", "b", "c", "d")) -> Episode:
    records = [TurnEvaluation(turn=t, item_set=None if items is None else ItemSetState(items=items),
                              ranks=[TargetRank(item_id="a", rank=1, n_better=0, n_tied=1)] if items is None else [])
               for t, items in enumerate(sets, start=1)]
    return Episode(id="e", index=0, config_hash="h", seed=0, environment="test", targets=list(targets),
                   evaluations=records, termination=TerminationReason.set_complete)


def test_precision_recall_f1() -> None:
    values = episode_metrics(episode(["a", "x"], ["a", "b", "c", "x", "y"]), 2, SET_METRICS)
    assert values[1] == pytest.approx({"set_precision": 0.5, "set_recall": 0.25, "set_f1": 2 * 1 / (2 + 4)})
    assert values[2] == pytest.approx({"set_precision": 3 / 5, "set_recall": 3 / 4, "set_f1": 2 * 3 / (5 + 4)})


def test_an_empty_set_scores_zero_and_a_record_without_a_set_carries_the_last_one() -> None:
    values = episode_metrics(episode([], None, ["d"]), 3, SET_METRICS)
    assert values[1] == {"set_precision": 0.0, "set_recall": 0.0, "set_f1": 0.0}
    assert values[2] == values[1]  # turn 2 ranked but built no set: the set state carries
    assert values[3]["set_precision"] == 1.0 and values[3]["set_recall"] == 0.25
