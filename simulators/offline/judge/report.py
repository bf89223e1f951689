"""The tables `crsim eval judge` prints and writes: correlations per aspect and subset beside
the published evaluators, and the CRSs ranked by the judge against their ranking by people."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from environments.models import Episode
from simulators.offline.judge.correlation import correlate, elo, kendall_tau
from simulators.offline.judge.grading import SATISFACTION, Comparison, Judged
from simulators.results.stats import cluster_bootstrap, percentile_interval

#: Published correlations with CRSArena-Eval's dialogue-level overall label (Joko et al., 2025,
#: "FACE: A Fine-grained Reference Free Evaluator for Conversational Recommender Systems",
#: arXiv:2506.00314; the figures released in github.com/informagi/face,
#: meta_eval_interface/baselines.json): {evaluator: {subset: (Pearson, Spearman)}}.
PUBLISHED_OVERALL: dict[str, dict[str, tuple[float, float]]] = {
    "LLM-Direct": {"redial": (0.564, 0.522), "opendialkg": (0.655, 0.557)},
    "G-Eval": {"redial": (0.577, 0.577), "opendialkg": (0.656, 0.642)},
    "FACE": {"redial": (0.712, 0.668), "opendialkg": (0.766, 0.679)},
}
PUBLISHED_SOURCE = "published (Joko et al. 2025, FACE, arXiv:2506.00314)"

COLUMNS = ["source", "evaluator", "level", "human", "judge", "subset", "statistic", "value", "ci_low", "ci_high",
           "n"]



# ------------------------------------------------------------------------------ the report
def _subset(episode: Episode) -> str:
    return str(episode.profile.get("crs_dataset") or "")


def human_value(episode: Episode, label: str) -> float | None:
    if label == SATISFACTION:
        value = episode.profile.get("satisfied")
    else:
        value = (episode.profile.get("labels") or {}).get(label)
    return None if value is None else float(value)


def pairs_for(judged: Sequence[Judged], comparison: Comparison, subset: str | None
              ) -> tuple[list[float], list[float], list[str]]:
    """(judge values, human values, conversation ids) of every pair with both values."""
    xs, ys, keys = [], [], []
    for j in judged:
        if subset is not None and _subset(j.episode) != subset:
            continue
        if comparison.level == "dialogue":
            x, y = j.dialogue.get(comparison.judge), human_value(j.episode, comparison.human)
            if x is not None and y is not None:
                xs.append(float(x)), ys.append(y), keys.append(j.episode.id)
            continue
        for index, grades in j.turns.items():
            x = grades.get(comparison.judge)
            y = (j.episode.turns[index].metadata.get("labels") or {}).get(comparison.human)
            if x is not None and y is not None:
                xs.append(float(x)), ys.append(float(y)), keys.append(j.episode.id)
    return xs, ys, keys


def correlation_frame(judged: Sequence[Judged], comparisons: Sequence[Comparison], judge_name: str, *,
                      resamples: int = 1000, seed: int = 0) -> Any:
    """One row per (comparison, subset, statistic), then the published reference rows."""
    import pandas as pd

    subsets = [None, *sorted({s for j in judged if (s := _subset(j.episode))})]
    rows = []
    for comparison in comparisons:
        for subset in subsets:
            xs, ys, keys = pairs_for(judged, comparison, subset)
            if subset is not None and not xs:
                continue
            c = correlate(xs, ys, keys if comparison.level == "turn" else None, resamples=resamples, seed=seed)
            for statistic, value, (low, high) in (("pearson", c.pearson, c.pearson_ci),
                                                   ("spearman", c.spearman, c.spearman_ci)):
                rows.append({"source": "judge", "evaluator": judge_name, "level": comparison.level,
                             "human": comparison.human, "judge": comparison.judge, "subset": subset or "all",
                             "statistic": statistic, "value": value, "ci_low": low, "ci_high": high, "n": c.n})
    for evaluator, by_subset in PUBLISHED_OVERALL.items():
        for subset, (p, s) in by_subset.items():
            for statistic, value in (("pearson", p), ("spearman", s)):
                rows.append({"source": PUBLISHED_SOURCE, "evaluator": evaluator, "level": "dialogue",
                             "human": "dialogue_overall", "judge": evaluator, "subset": subset,
                             "statistic": statistic, "value": value, "ci_low": math.nan, "ci_high": math.nan,
                             "n": math.nan})
    return pd.DataFrame(rows, columns=COLUMNS)


@dataclass
class Ranking:
    """Per CRS: conversations, mean judge grade and the people's measures; Kendall's tau-b of each."""

    frame: Any  # crs, dialogues, judge_mean, satisfied_share, human_overall_mean, elo
    taus: dict[str, tuple[float, tuple[float, float], int]]  # people's measure -> (tau, CI, systems)
    judge_score: str


PEOPLE_MEASURES = {"satisfied_share": "share of satisfied conversations (CRSArena-Dial)",
                   "human_overall_mean": "mean human dialogue_overall (CRSArena-Eval)",
                   "elo": "Elo from pairwise votes (CRSArena-Dial)"}


def _per_crs(judged: Sequence[Judged], score: str) -> dict[str, dict[str, float]]:
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for j in judged:
        crs = j.episode.profile.get("crs")
        if not crs:
            continue
        sums[crs]["dialogues"].append(1.0)
        if j.dialogue.get(score) is not None:
            sums[crs]["judge_mean"].append(float(j.dialogue[score]))  # type: ignore[arg-type]
        if (s := human_value(j.episode, SATISFACTION)) is not None:
            sums[crs]["satisfied_share"].append(s)
        if (o := human_value(j.episode, "dialogue_overall")) is not None:
            sums[crs]["human_overall_mean"].append(o)
    return {crs: {"dialogues": float(len(v["dialogues"])),
                  **{k: (sum(v[k]) / len(v[k]) if v[k] else math.nan)
                     for k in ("judge_mean", "satisfied_share", "human_overall_mean")}}
            for crs, v in sums.items()}


def ranking(judged: Sequence[Judged], score: str | None, votes: Sequence[dict[str, Any]], *,
            resamples: int = 1000, seed: int = 0) -> Ranking | None:
    """The CRSs ranked by mean judge grade (`score`) beside the people's rankings; None without CRSs."""
    import pandas as pd

    if score is None:
        return None
    table = _per_crs(judged, score)
    if not table:
        return None
    ratings = elo(votes) if votes else {}
    frame = pd.DataFrame([{"crs": crs, **values, "elo": ratings.get(crs, math.nan)}
                          for crs, values in sorted(table.items())])
    measures = {}
    for measure in PEOPLE_MEASURES:
        valid = frame[frame["judge_mean"].notna() & frame[measure].notna()]
        if len(valid) >= 2:
            measures[measure] = (kendall_tau(valid["judge_mean"].tolist(), valid[measure].tolist()),
                                 list(valid["crs"]))

    def taus_again(index: np.ndarray) -> list[float]:
        """Each measure's tau on resampled conversations (Elo, from the votes, stays as it is)."""
        again = _per_crs([judged[i] for i in index], score)
        values = []
        for measure, (_tau, crss) in measures.items():
            pairs = [(again[c]["judge_mean"], ratings[c] if measure == "elo" else again[c][measure])
                     for c in crss if c in again]
            pairs = [(a, b) for a, b in pairs if not (math.isnan(a) or math.isnan(b))]
            values.append(kendall_tau([a for a, _ in pairs], [b for _, b in pairs]) if len(pairs) >= 2 else math.nan)
        return values

    taus = {}
    if measures:
        draws = cluster_bootstrap(taus_again, len(judged), n_resamples=resamples, seed=seed).reshape(-1, len(measures))
        taus = {measure: (tau, percentile_interval(draws[:, column]), len(crss))
                for column, (measure, (tau, crss)) in enumerate(measures.items())}
    return Ranking(frame, taus, score)


def ranking_rows(result: Ranking, judge_name: str) -> list[dict[str, Any]]:
    """Kendall rows for the correlations CSV (level `system`)."""
    return [{"source": "judge", "evaluator": judge_name, "level": "system", "human": measure,
             "judge": f"mean {result.judge_score}", "subset": "all", "statistic": "kendall_tau", "value": tau,
             "ci_low": ci[0], "ci_high": ci[1], "n": n} for measure, (tau, ci, n) in result.taus.items()]
