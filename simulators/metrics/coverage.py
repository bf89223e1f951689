"""Preference Coverage (PEPPER §3.3.1): how many of a user's targets has the dialogue surfaced so far?

Recall@(t, K) looks at one turn's top K, so a recommender that keeps repeating the same
list scores the same every turn, and one that explores looks erratic. PEPPER's
Preference Coverage is cumulative instead:

    PC_t@K = |(P_1 ∪ ... ∪ P_t) ∩ Y| / |Y|

with P_x the top K at turn x and Y the user's targets (averaged over users by the results
table). It never decreases within an episode, by construction. PCIR_t = PC_t − PC_{t−1}
(PC_0 = 0) is how much turn t added, so the PCIR of an episode sums to its last PC;
`pcir_avg@K` is the running mean PC_t / t (PEPPER's PCIR_avg at the last turn).

A target counts as surfaced at turn x when its recorded rank is at most K, which needs
every target's rank every turn (`TurnEvaluation.ranks`), not only the logged top.
`group` restricts Y to a named subset of the targets (`Episode.target_groups`, e.g. the
`selected` half a target-biased seeker was told about and the `residual` rest).
"""

from __future__ import annotations

from environments.models import Episode, TurnEvaluation
from simulators.metrics.base import Metric
from simulators.metrics.ranking import _check_k


def _targets(episode: Episode, group: str | None) -> list[str]:
    return list(episode.targets) if group is None else list(episode.target_groups.get(group, []))


def coverage(episode: Episode, k: int, up_to_turn: int, group: str | None = None) -> float | None:
    """PC of one episode after `up_to_turn` (None: no targets, or nothing ranked by then)."""
    targets = set(_targets(episode, group))
    records = [r for r in episode.evaluations if r.turn <= up_to_turn and r.ranks]
    if not targets or not records:
        return None
    found = {rank.item_id for record in records for rank in record.ranks if rank.rank <= k}
    return len(found & targets) / len(targets)


class PreferenceCoverage(Metric):
    """`pc@K` (or `pc_<group>@K`): share of the targets ranked in the top K at any turn so far."""

    def __init__(self, k: int, group: str | None = None):
        self.k = _check_k(k)
        self.group = group
        self.name = f"pc@{self.k}" if group is None else f"pc_{group}@{self.k}"

    def value(self, record: TurnEvaluation, episode: Episode) -> float | None:
        return coverage(episode, self.k, record.turn, self.group) if record.ranks else None


class CoverageIncrease(Metric):
    """`pcir@K`: PC_t − PC_{t−1}, what turn t added (0 after an episode ended early)."""

    def __init__(self, k: int):
        self.k = _check_k(k)
        self.name = f"pcir@{self.k}"
        self._pc = PreferenceCoverage(k)

    def value(self, record: TurnEvaluation, episode: Episode) -> float | None:
        now = self._pc.value(record, episode)
        if now is None:
            return None
        return now - (coverage(episode, self.k, record.turn - 1) or 0.0)

    def per_turn(self, episode: Episode, max_turns: int) -> dict[int, float]:
        """Differences of the carried-forward PC, so that the values sum to the last PC."""
        pc = self._pc.per_turn(episode, max_turns)
        return {turn: value - pc.get(turn - 1, 0.0) for turn, value in pc.items()}


class AverageCoverageIncrease(Metric):
    """`pcir_avg@K`: mean PCIR over turns 1..t, i.e. PC_t / t."""

    def __init__(self, k: int):
        self.k = _check_k(k)
        self.name = f"pcir_avg@{self.k}"
        self._pc = PreferenceCoverage(k)

    def value(self, record: TurnEvaluation, episode: Episode) -> float | None:
        now = self._pc.value(record, episode)
        return None if now is None else now / record.turn

    def per_turn(self, episode: Episode, max_turns: int) -> dict[int, float]:
        return {turn: value / turn for turn, value in self._pc.per_turn(episode, max_turns).items()}


def selected_coverage(k: int) -> PreferenceCoverage:
    """`pc_selected@K`: coverage of the targets a target-biased seeker was initialised from."""
    return PreferenceCoverage(k, "selected")


def residual_coverage(k: int) -> PreferenceCoverage:
    """`pc_residual@K`: coverage of the other targets."""
    return PreferenceCoverage(k, "residual")
