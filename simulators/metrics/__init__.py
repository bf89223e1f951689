"""Metrics as plug-ins: protocol (`base`), ranking, coverage (PEPPER) and set metrics, and config.

`Metric` objects turn an episode's per-turn evaluation records into per-turn values;
results tables, sweep summaries, paired comparisons, plots and the HTML report are
generic over them and only ever see their names and directions.
"""

from simulators.metrics.base import Metric, check_unique, episode_metrics, is_scorable
from simulators.metrics.coverage import (
    AverageCoverageIncrease, CoverageIncrease, PreferenceCoverage, residual_coverage, selected_coverage,
)
from simulators.metrics.config import (
    build_metrics, default_metrics, higher_is_better, metric_from_name, run_metrics, select_metrics,
)
from simulators.metrics.ranking import MRR, AvgPosition, HitsAt, NDCGAt, RecallAt
from simulators.metrics.sets import SetF1, SetPrecision, SetRecall
from simulators.metrics.shopping import Purchased, RecommendationFit, ResultCount

__all__ = [
    "MRR", "AverageCoverageIncrease", "AvgPosition", "CoverageIncrease", "PreferenceCoverage",
    "residual_coverage", "selected_coverage", "HitsAt", "Metric", "NDCGAt", "Purchased", "RecallAt", "RecommendationFit", "ResultCount",
    "SetF1", "SetPrecision", "SetRecall", "build_metrics", "check_unique", "default_metrics", "episode_metrics",
    "higher_is_better", "is_scorable", "metric_from_name", "run_metrics", "select_metrics",
]
