"""Set metrics: how well the item set a protocol builds (a playlist) covers the targets.

They read `TurnEvaluation.item_set` — the set after the turn — against the episode's
targets (the goal set). An empty set has precision 0 (it curates nothing yet) rather
than an undefined value, so every turn of every episode counts the same.
"""

from __future__ import annotations

from environments.models import Episode, TurnEvaluation
from simulators.metrics.base import Metric


def _overlap(record: TurnEvaluation, episode: Episode) -> tuple[int, int, int] | None:
    """(items in the set that are targets, set size, number of targets), None without a set."""
    if record.item_set is None:
        return None
    chosen = set(record.item_set.items)
    return len(chosen & set(episode.targets)), len(chosen), len(set(episode.targets))


class SetPrecision(Metric):
    name = "set_precision"

    def value(self, record: TurnEvaluation, episode: Episode) -> float | None:
        counts = _overlap(record, episode)
        if counts is None:
            return None
        hits, size, _ = counts
        return hits / size if size else 0.0


class SetRecall(Metric):
    name = "set_recall"

    def value(self, record: TurnEvaluation, episode: Episode) -> float | None:
        counts = _overlap(record, episode)
        if counts is None or not counts[2]:
            return None
        hits, _, targets = counts
        return hits / targets


class SetF1(Metric):
    name = "set_f1"

    def value(self, record: TurnEvaluation, episode: Episode) -> float | None:
        counts = _overlap(record, episode)
        if counts is None or not counts[2]:
            return None
        hits, size, targets = counts
        return 2.0 * hits / (size + targets) if hits else 0.0
