"""The metric protocol: an episode's evaluation records in, one value per turn out.

A metric is a small object with a display `name`, a direction (`higher_is_better`) and
`per_turn(episode, max_turns)`. Most metrics only look at one turn's `TurnEvaluation`
at a time, so the base class does the rest: `value(record, episode)` gives the value of
one record (None when the record says nothing about this metric, e.g. a set metric on a
turn that ranked), and `per_turn` carries the last value forward to later turns.

Carry-forward: an episode that stopped before `max_turns` (the seeker accepted an item,
quit, or ran out of budget) keeps its last value for the remaining turns. For an
accepted episode this is the point: the seeker stopped because the item was found, so
the state it left is the one that counts; dropping it would shrink later turns to the
hard cases and make metrics fall with more turns for no real reason. The same holds for
gaps between recorded turns. Turns before the first record have no state to report and
are absent (the caller sees a smaller n there). If two records share a turn, the later
one wins.

Metrics are chosen per environment (`metrics:` in its config, a list of `_target_`s), so
each protocol brings its own; see `simulators.metrics.config`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence

from environments.models import Episode, TerminationReason, TurnEvaluation


class Metric(ABC):
    """A per-turn measure of an episode (see the module docstring)."""

    name: str = "metric"
    higher_is_better: bool = True

    @abstractmethod
    def value(self, record: TurnEvaluation, episode: Episode) -> float | None:
        """This metric for one turn's record; None when the record does not inform it."""

    def per_turn(self, episode: Episode, max_turns: int) -> dict[int, float]:
        """Values at turns 1..`max_turns`, carried forward (see the module docstring)."""
        at: dict[int, float] = {}
        for record in episode.evaluations:
            if 1 <= record.turn <= max_turns:
                value = self.value(record, episode)
                if value is not None:
                    at[record.turn] = value
        values: dict[int, float] = {}
        current: float | None = None
        for turn in range(1, max_turns + 1):
            current = at.get(turn, current)
            if current is not None:
                values[turn] = current
        return values

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def is_scorable(episode: Episode) -> bool:
    """Whether an episode contributes to metrics at all.

    Crashed episodes are left out rather than scored as failures: a crash says something
    about the code or the language model backend, not about the recommender, and mixing
    the two would make a flaky endpoint look like a bad ranking. Callers count them apart.
    """
    return (
        episode.termination is not TerminationReason.error
        and episode.error is None
        and bool(episode.evaluations)
    )


def episode_metrics(episode: Episode, max_turns: int, metrics: Sequence[Metric]) -> dict[int, dict[str, float]]:
    """turn -> metric name -> value for one episode; {} if it is not scorable."""
    if max_turns < 1:
        raise ValueError(f"max_turns must be at least 1, got {max_turns}")
    if not is_scorable(episode):
        return {}
    result: dict[int, dict[str, float]] = {}
    for metric in metrics:
        for turn, value in metric.per_turn(episode, max_turns).items():
            result.setdefault(turn, {})[metric.name] = value
    return dict(sorted(result.items()))


def check_unique(metrics: Iterable[Metric]) -> list[Metric]:
    """The metrics as a list; two with the same name would overwrite each other's column."""
    metrics = list(metrics)
    names = [m.name for m in metrics]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"metric names must be unique, repeated: {repeated}")
    return metrics
