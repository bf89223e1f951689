"""CPCD's turn-level scoring protocol, as the public evaluator (`eval.py` of the release) applies it.

Per conversation, at CPCD turn t (0-based):
- gold is the goal playlist;
- the *seed set* holds the first three tracks liked at every earlier turn (a system has
  seen them, so they count neither as predictions nor as gold);
- tracks are compared by cluster id (near-duplicate recordings share one), each cluster
  counted once, in order of first occurrence; a track without a cluster id is its own;
- a turn whose gold is all in the seed set is skipped. The seed set only grows, so the
  skipped turns are always the last ones and the scored turns are turns 0..m-1.
Metrics at each k (hit, MAP, MRR, precision, recall; definitions in `turn_metrics`)
are averaged three ways: *macro* (over a conversation's scored turns, then over
conversations with at least one), *micro* (over all scored turns) and per turn
(`Turn i` = the i-th scored turn, over conversations that reach it; the first
`MAX_TURNS` only, though micro counts every turn).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

METRICS = ("hit", "map", "mrr", "precision", "recall")  # the evaluator's (alphabetical) order
DEFAULT_KS = (1, 5, 10, 20, 100)
MAX_TURNS = 10  # per-turn columns the evaluator writes
SEEDS_PER_TURN = 3  # liked tracks per earlier turn that join the seed set
OWN_CLUSTER = "track:"  # prefix of the cluster of a track that has no cluster id


def running_mean(values: Iterable[float]) -> float:
    """The mean as the evaluator accumulates it (m += (x - m) / n), NaN for no values.

    Same operations in the same order give the same floats, so a written four-decimal
    cell cannot round differently from the evaluator's (0.01875 summed and divided
    prints 0.0188; accumulated this way, 0.0187).
    """
    mean, count = 0.0, 0
    for value in values:
        count += 1
        mean += (value - mean) / count
    return mean if count else float("nan")


def cluster_key(track_id: str, cluster_id: str | None) -> str:
    return cluster_id or OWN_CLUSTER + track_id


def clusters(track_ids: Iterable[str], cluster_of: Mapping[str, str]) -> list[str]:
    """Cluster ids of `track_ids`, each once, in order of first occurrence."""
    return list(dict.fromkeys(cluster_of.get(t) or OWN_CLUSTER + t for t in track_ids))


@dataclass(frozen=True)
class TurnTask:
    """What the evaluator scores at one turn: the seed clusters to drop and the gold left."""

    turn: int
    seeds: frozenset[str]
    gold: tuple[str, ...]


def turn_tasks(liked_by_turn: Sequence[Sequence[str]], goal: Sequence[str],
               cluster_of: Mapping[str, str]) -> list[TurnTask]:
    """The scored turns of one conversation (turns with no gold left are left out)."""
    gold = clusters(goal, cluster_of)
    seeds: set[str] = set()
    tasks = []
    for turn in range(len(liked_by_turn)):
        if turn > 0:
            seeds.update(clusters(liked_by_turn[turn - 1][:SEEDS_PER_TURN], cluster_of))
        left = tuple(c for c in gold if c not in seeds)
        if left:
            tasks.append(TurnTask(turn, frozenset(seeds), left))
    return tasks


def metric_names(ks: Sequence[int]) -> list[str]:
    return [f"{metric}@{k}" for metric in METRICS for k in ks]


def turn_metrics(preds: Sequence[str], gold: Iterable[str], ks: Sequence[int]) -> dict[str, float]:
    """Every metric at every k for one turn: `preds` and `gold` are clusters, seeds already removed."""
    gold = set(gold)
    if len(preds) < max(ks):
        raise ValueError(f"{len(preds)} predictions left after removing seeds, fewer than k = {max(ks)}")
    hits = np.fromiter((p in gold for p in preds[:max(ks)]), dtype=bool)
    values: dict[str, float] = {}
    for k in ks:
        top = hits[:k]
        found = int(top.sum())
        ranks = np.flatnonzero(top) + 1
        values[f"hit@{k}"] = float(found > 0)
        values[f"map@{k}"] = float((np.arange(1, found + 1) / ranks).sum() / min(len(gold), k))
        values[f"mrr@{k}"] = float(1.0 / ranks[0]) if found else 0.0
        values[f"precision@{k}"] = found / k
        values[f"recall@{k}"] = found / len(gold)
    return values


def score_ranking(ranking: Sequence[str], task: TurnTask, cluster_of: Mapping[str, str],
                  ks: Sequence[int]) -> dict[str, float]:
    """Metrics for a ranked list of track ids at one turn (clusters deduplicated, seeds dropped)."""
    preds = [c for c in clusters(ranking, cluster_of) if c not in task.seeds]
    return turn_metrics(preds, task.gold, ks)


@dataclass
class Aggregate:
    """Macro, micro and per-turn means of every metric over conversations."""

    ks: tuple[int, ...]
    per_conversation: list[dict[str, list[float]]] = field(default_factory=list)

    def add(self, turn_values: Sequence[Mapping[str, float]]) -> None:
        """One conversation's scored turns, in order (a conversation with none is not counted)."""
        if turn_values:
            self.per_conversation.append({name: [v[name] for v in turn_values] for name in metric_names(self.ks)})

    @property
    def conversations(self) -> int:
        return len(self.per_conversation)

    def macro_values(self, name: str) -> list[float]:
        """Per-conversation means of one metric (what the macro average averages)."""
        return [sum(c[name]) / len(c[name]) for c in self.per_conversation]

    def row(self, name: str) -> tuple[float, float, list[float]]:
        """(macro, micro, per-turn means) of one metric; NaN where nothing was scored."""
        micro = running_mean(v for c in self.per_conversation for v in c[name])
        turns = [running_mean(c[name][i] for c in self.per_conversation if len(c[name]) > i)
                 for i in range(MAX_TURNS)]
        return running_mean(self.macro_values(name)), micro, turns

    def counts(self) -> tuple[int, int, list[int]]:
        """(conversations, scored turns, conversations reaching each turn)."""
        lengths = [len(next(iter(c.values()))) for c in self.per_conversation]
        return len(lengths), sum(lengths), [sum(n > i for n in lengths) for i in range(MAX_TURNS)]
