"""Metrics for protocols that narrow a result set and end on a recommendation (TRACER).

- `results`: products still matching what the customer revealed (`n_candidates`); lower
  is better — how far the search has narrowed by each turn.
- `fit`: whether the product the seller recommended satisfies the customer's preference
  (the environment records it as an `ItemMention` with attitude `like`, else `dislike`).
- `purchased`: whether the customer has bought it (the item set holds it).
"""

from __future__ import annotations

from environments.models import Episode, TurnEvaluation
from simulators.metrics.base import Metric


class ResultCount(Metric):
    name = "results"
    higher_is_better = False

    def value(self, record: TurnEvaluation, episode: Episode) -> float | None:
        return float(record.n_candidates) if record.n_candidates else None


class RecommendationFit(Metric):
    name = "fit"

    def value(self, record: TurnEvaluation, episode: Episode) -> float | None:
        rated = [m for m in record.mentions if m.attitude in ("like", "dislike")]
        return float(rated[-1].attitude == "like") if rated else None


class Purchased(Metric):
    name = "purchased"

    def value(self, record: TurnEvaluation, episode: Episode) -> float | None:
        return float(bool(record.item_set and record.item_set.items))
