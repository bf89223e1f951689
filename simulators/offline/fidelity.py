"""Fidelity report: does a world (or catalog) discriminate between recommenders like real data?

Reads finished runs (one per recommender, same world and seeds) and puts side by side,
per turn: each recommender's Hits@K with its CI, and on a world the exact-match oracle
on the same dialogues (`environments.worlds.oracle`); the seeker's agreement with its
target's truth; whether any seeker utterance repeats a catalog review sentence; and the
catalog's shape statistics. `scripts/bench_fidelity.py` runs the sweeps and writes this
as JSON and a table.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from environments.catalog import Catalog
from environments.models import Episode, Role
from environments.worlds.oracle import ExactMatchOracle, claim_holds
from environments.worlds.truth import ItemTruth
from simulators.results.stats import bootstrap_ci

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_NON_WORD = re.compile(r"[^a-z0-9]+")


class Curve(BaseModel):
    """A metric per turn: mean and 95% CI."""

    name: str
    mean: list[float]
    ci_low: list[float]
    ci_high: list[float]
    n: int


class Agreement(BaseModel):
    claims: int
    true_share: float
    likes: int
    likes_true_share: float
    dislikes: int
    dislikes_true_share: float


class FidelityReport(BaseModel):
    catalog: str
    k: int
    curves: list[Curve]
    agreement: Agreement | None = None
    verbatim_review_sentences: int = Field(description="Seeker utterances containing a catalog review sentence.")
    seeker_utterances: int
    stats: dict = Field(default_factory=dict)


def curve_from_results(results_csv: Path, name: str, metric: str) -> Curve:
    """One metric's per-turn mean and CI from a run's `results.csv`."""
    rows = [row for row in csv.DictReader(results_csv.open()) if row["metric"] == metric]
    rows.sort(key=lambda row: int(row["turn"]))
    return Curve(name=name, mean=[float(r["mean"]) for r in rows], ci_low=[float(r["ci_low"]) for r in rows],
                 ci_high=[float(r["ci_high"]) for r in rows], n=max((int(r["n"]) for r in rows), default=0))


def claims_before(episode: Episode, turn_index: int) -> list[list[object]]:
    """Every claim the seeker stated before transcript turn `turn_index`."""
    return [claim for turn in episode.turns[:turn_index] if turn.role == Role.seeker
            for claim in turn.metadata.get("claims") or []]


def oracle_curve(episodes: Sequence[Episode], items: dict[str, ItemTruth], candidates: Sequence[str],
                 k: int, name: str = "oracle") -> Curve:
    """Expected Hits@k of the exact-match oracle at each turn of the logged dialogues, with
    the same percentile-bootstrap interval as the results tables."""
    oracle = ExactMatchOracle(items, candidates)
    per_turn: dict[int, list[float]] = {}
    for episode in episodes:
        if episode.error or not episode.targets:
            continue
        for evaluation in episode.evaluations:
            claims = claims_before(episode, evaluation.source_turn)
            per_turn.setdefault(evaluation.turn, []).append(oracle.hit_probability(claims, episode.targets[0], k))
    intervals = [bootstrap_ci(per_turn[turn]) for turn in sorted(per_turn)]
    return Curve(name=name, mean=[round(m, 4) for m, _, _ in intervals], ci_low=[round(lo, 4) for _, lo, _ in intervals],
                 ci_high=[round(hi, 4) for _, _, hi in intervals], n=max(map(len, per_turn.values()), default=0))


def seeker_agreement(episodes: Iterable[Episode], items: dict[str, ItemTruth]) -> Agreement:
    """Share of stated claims true of the target (likes: it has it; dislikes: it lacks it)."""
    likes = [0, 0]
    dislikes = [0, 0]
    for episode in episodes:
        if not episode.targets or episode.targets[0] not in items:
            continue
        target = items[episode.targets[0]]
        for claim in claims_before(episode, len(episode.turns)):
            tally = likes if float(str(claim[2])) > 0 else dislikes
            tally[0] += 1
            tally[1] += claim_holds(target, claim)
    total = likes[0] + dislikes[0]
    return Agreement(claims=total, true_share=_share(likes[1] + dislikes[1], total), likes=likes[0],
                     likes_true_share=_share(likes[1], likes[0]), dislikes=dislikes[0],
                     dislikes_true_share=_share(dislikes[1], dislikes[0]))


def verbatim_review_sentences(episodes: Iterable[Episode], catalog: Catalog, min_words: int = 3) -> tuple[int, int]:
    """(seeker utterances containing a review sentence of >= `min_words` words, utterances).

    Every run of words of an utterance is looked up among the catalog's normalised
    review sentences, so "containing" means anywhere in the utterance, not only whole.
    """
    review_sentences = {_normal(s) for review in catalog.reviews for s in _SENTENCE_END.split(review.text)
                        if len(s.split()) >= min_words}
    found = total = 0
    for episode in episodes:
        for turn in episode.turns:
            if turn.role == Role.seeker:
                total += 1
                words = _normal(turn.text).split()
                found += any(" ".join(words[i:j]) in review_sentences
                             for i in range(len(words)) for j in range(i + min_words, len(words) + 1))
    return found, total


def _normal(text: str) -> str:
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def format_report(report: FidelityReport) -> str:
    """A per-turn table of Hits@k (oracle first) and the seeker and catalog checks."""
    width = max(len(c.name) for c in report.curves) if report.curves else 8
    turns = max((len(c.mean) for c in report.curves), default=0)
    lines = [f"{report.catalog}: Hits@{report.k} per turn (95% CI)",
             " " * width + "".join(f"   turn {t + 1:<14}" for t in range(turns))]
    for curve in report.curves:
        cells = "".join(f"   {m:.3f} [{lo:.2f}, {hi:.2f}]" for m, lo, hi in zip(curve.mean, curve.ci_low, curve.ci_high))
        lines.append(f"{curve.name:<{width}}{cells}   (n={curve.n})")
    if report.agreement:
        a = report.agreement
        lines.append(f"seeker agreement with its target: {a.true_share:.3f} of {a.claims} claims "
                     f"(likes {a.likes_true_share:.3f} of {a.likes}, dislikes {a.dislikes_true_share:.3f} of {a.dislikes})")
    lines.append(f"seeker utterances repeating a review sentence: {report.verbatim_review_sentences} "
                 f"of {report.seeker_utterances}")
    return "\n".join(lines)
