"""Metrics from config: `_target_` lists, names, selection and clear errors."""

from __future__ import annotations

import pytest

from environments.errors import CrsimError
from simulators.metrics import (
    AvgPosition, HitsAt, RecallAt, build_metrics, higher_is_better, metric_from_name, run_metrics, select_metrics,
)


def test_built_from_targets_in_order() -> None:
    metrics = build_metrics([{"_target_": "simulators.metrics.RecallAt", "k": 20},
                             {"_target_": "simulators.metrics.AvgPosition"}])
    assert [m.name for m in metrics] == ["recall@20", "avg_position"]


def test_a_run_without_configured_metrics_gets_the_single_target_set() -> None:
    assert [m.name for m in run_metrics({"environment": {"_target_": "x"}})] == \
        ["hits@1", "hits@5", "hits@10", "mrr", "avg_position"]
    assert [m.name for m in run_metrics(None)][:1] == ["hits@1"]


@pytest.mark.parametrize(("specs", "message"), [
    ([{"k": 3}], r"metrics\[0\]: expected a mapping with a _target_"),
    ([{"_target_": "simulators.metrics.HitsAt", "k": 0}], r"metrics\[0\] \(simulators.metrics.HitsAt\)"),
    ([{"_target_": "collections.OrderedDict"}], "not a simulators.metrics.Metric"),
    ([{"_target_": "simulators.metrics.MRR"}, {"_target_": "simulators.metrics.MRR"}], "repeated"),
    ([], "is empty"),
])
def test_bad_metric_configs_are_one_line_errors(specs: list, message: str) -> None:
    with pytest.raises(CrsimError, match=message):
        build_metrics(specs)


def test_names_resolve_to_built_in_metrics_and_directions() -> None:
    assert isinstance(metric_from_name("hits@25"), HitsAt) and metric_from_name("hits@25").k == 25
    assert isinstance(metric_from_name("recall@5"), RecallAt)
    assert isinstance(metric_from_name("avg_position"), AvgPosition)
    assert metric_from_name("hits@0") is None and metric_from_name("ndcg") is None
    assert higher_is_better("mrr") and not higher_is_better("avg_position") and higher_is_better("custom")


def test_selection_by_name_keeps_the_order_asked_for() -> None:
    available = [HitsAt(10), AvgPosition()]
    assert [m.name for m in select_metrics(available, ["avg_position", "hits@3"])] == ["avg_position", "hits@3"]
    assert select_metrics(available, None) == available
    with pytest.raises(CrsimError, match="unknown metric 'ndcg'; this run has: hits@10, avg_position"):
        select_metrics(available, ["ndcg"])
