"""Which metrics a run uses: the environment config's `metrics:` list, built from `_target_`s.

Each protocol names its metrics next to its environment (`conf/environment/*.yaml`), so
a new protocol brings new metrics without touching `simulators/`. Runs logged before
metrics were configurable (and imported dialogues) get the single-target set they were
scored with. The built-in parametric names (`hits@K`, `recall@K`, ...) also resolve from
the name alone, for `crsim report --metrics hits@3` and for reading a results table that
does not say which direction its metrics go.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from environments.errors import CrsimError
from simulators.metrics.base import Metric, check_unique
from simulators.metrics.coverage import (
    AverageCoverageIncrease, CoverageIncrease, PreferenceCoverage, residual_coverage, selected_coverage,
)
from simulators.metrics.ranking import MRR, AvgPosition, HitsAt, NDCGAt, RecallAt
from simulators.metrics.sets import SetF1, SetPrecision, SetRecall

_PARAMETRIC: dict[str, Any] = {"hits": HitsAt, "recall": RecallAt, "ndcg": NDCGAt, "pc": PreferenceCoverage,
                               "pc_selected": selected_coverage, "pc_residual": residual_coverage,
                               "pcir": CoverageIncrease, "pcir_avg": AverageCoverageIncrease}
_PLAIN: dict[str, type[Metric]] = {"mrr": MRR, "avg_position": AvgPosition, "set_precision": SetPrecision,
                                   "set_recall": SetRecall, "set_f1": SetF1}
_NAME = re.compile(r"^([a-z_]+)@([1-9][0-9]*)$")


def default_metrics() -> list[Metric]:
    """hits@1, hits@5, hits@10, MRR, average position: the single-target protocol's set."""
    return [HitsAt(1), HitsAt(5), HitsAt(10), MRR(), AvgPosition()]


def metric_from_name(name: str) -> Metric | None:
    """A built-in metric from its display name ('hits@3', 'mrr'); None for any other name."""
    match = _NAME.match(name)
    if match and match.group(1) in _PARAMETRIC:
        return _PARAMETRIC[match.group(1)](int(match.group(2)))
    return _PLAIN[name]() if name in _PLAIN else None


def higher_is_better(name: str) -> bool:
    """Direction of a built-in metric by name (True for names crsim does not know)."""
    metric = metric_from_name(name)
    return True if metric is None else metric.higher_is_better


def build_metrics(specs: Sequence[Any] | None) -> list[Metric]:
    """Metric objects from config entries (dicts with `_target_`); defaults when None."""
    if specs is None:
        return default_metrics()
    from hydra.utils import instantiate

    metrics = []
    for position, spec in enumerate(specs):
        target = spec.get("_target_") if isinstance(spec, Mapping) else None
        if not target:
            raise CrsimError(f"environment.metrics[{position}]: expected a mapping with a _target_, got {spec!r}")
        try:
            metric = instantiate(spec)
        except Exception as exc:  # Hydra wraps import and argument errors
            raise CrsimError(f"environment.metrics[{position}] ({target}): {str(exc).splitlines()[0]}") from None
        if not isinstance(metric, Metric):
            raise CrsimError(f"environment.metrics[{position}]: {target} built a {type(metric).__name__}, "
                             "not a simulators.metrics.Metric")
        metrics.append(metric)
    if not metrics:
        raise CrsimError("environment.metrics is empty: name at least one metric")
    try:
        return check_unique(metrics)
    except ValueError as exc:
        raise CrsimError(f"environment.metrics: {exc}") from None


def run_metrics(config: Mapping[str, Any] | None) -> list[Metric]:
    """The metrics a logged run was configured with (its `config.yaml`), else the defaults."""
    environment = (config or {}).get("environment")
    specs = environment.get("metrics") if isinstance(environment, Mapping) else None
    return build_metrics(specs)


def select_metrics(available: Sequence[Metric], names: Sequence[str] | None) -> list[Metric]:
    """`names` resolved against `available` (then the built-in names); all when None."""
    if names is None:
        return list(available)
    if not names:
        raise CrsimError("no metrics given")
    by_name = {m.name: m for m in available}
    chosen = []
    for name in dict.fromkeys(names):
        metric = by_name.get(name) or metric_from_name(name)
        if metric is None:
            known = ", ".join(by_name) or "none"
            raise CrsimError(f"unknown metric {name!r}; this run has: {known} "
                             "(and any hits@K, recall@K, ndcg@K, pc@K, pc_selected@K, pc_residual@K, pcir@K, pcir_avg@K, mrr, "
                             "avg_position, set_precision/recall/f1)")
        chosen.append(metric)
    return chosen
