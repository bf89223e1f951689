"""Judges against people: an LLM judge's grades of real conversations beside the people's labels.

`crsim eval judge DIR` (`simulators/cli/eval_judge.py`) grades the conversations of a CRS Arena
import (`crsim data import crsarena ... --eval-labels crs_arena_eval.json`) and measures how
far the grades follow what people said:

- per human label aspect, Pearson and Spearman between judge grades and the annotators'
  aggregated labels (CRSArena-Eval), at the dialogue level and, for `relevance` and
  `interestingness`, over recommender turns; on all conversations and on the ReDial and
  OpenDialKG subsets (by the CRS's training data), each with a percentile bootstrap 95% CI that
  resamples conversations (a turn-level resample takes all turns of each drawn conversation);
- the judge's overall grade against the person's own satisfaction (CRSArena-Dial: satisfied 1,
  frustrated 0; a point-biserial Pearson);
- the ranking of the CRSs by mean judge grade against their ranking by people (share of
  satisfied conversations, mean human overall label, and Elo from the pairwise votes the way
  CRS Arena computed it: K = 16 from 1000, votes in file order), as Kendall's tau-b;
- the published evaluators' correlations on the same data as reference rows (FACE paper).

Judges: `aspects` (`agents/steps/aspect_judge.py`: one prompt per CRSArena-Eval aspect, on its
scale) and `pepper` (PEPPER's rubric judge, `agents/steps/judge.py`: proactiveness, coherence,
personalization 1-5; its mean is compared with every dialogue-level label).
"""

from __future__ import annotations

import asyncio
import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from environments.errors import CrsimError
from environments.models import Episode, Role

SATISFACTION = "satisfaction"
PEPPER_MEAN = "pepper_mean"
MIN_N = 3  # fewer pairs than this: no correlation
ELO_K, ELO_INITIAL = 16, 1000.0

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


# --------------------------------------------------------------------------------- the data
@dataclass
class ArenaData:
    """The conversations to grade and the votes between CRSs (`votes.jsonl`, may be empty)."""

    directory: Path
    episodes: list[Episode]
    votes: list[dict[str, Any]]

    def human_labels(self) -> tuple[list[str], list[str]]:
        """(dialogue-level, turn-level) label names present, in first-seen order."""
        dialogue: dict[str, None] = {}
        turn: dict[str, None] = {}
        for episode in self.episodes:
            if episode.profile.get("satisfied") is not None:
                dialogue[SATISFACTION] = None
            dialogue.update(dict.fromkeys(episode.profile.get("labels") or {}))
            for t in episode.turns:
                turn.update(dict.fromkeys(t.metadata.get("labels") or {}))
        return list(dialogue), list(turn)


def load_arena(directory: Path, split: str | None = None, limit: int | None = None) -> ArenaData:
    """The conversations of a CRS Arena import (only `split`, e.g. `closed`, when given; the first `limit`)."""
    import orjson

    from simulators.validity.turns import corpus_episodes

    episodes = [e for e in corpus_episodes(directory, split)]
    if not any(e.profile.get("labels") or e.profile.get("satisfied") is not None for e in episodes):
        raise CrsimError(f"{directory}: no conversation carries human labels or satisfaction "
                         "(import CRS Arena with `crsim data import crsarena ... --eval-labels crs_arena_eval.json`)")
    if limit is not None:
        episodes = episodes[:limit]
    votes_path = Path(directory).expanduser() / "votes.jsonl"
    votes = [orjson.loads(line) for line in votes_path.read_bytes().splitlines() if line.strip()] \
        if votes_path.is_file() else []
    return ArenaData(Path(directory), episodes, votes)


def render_dialogue(turns: Sequence[Any]) -> str:
    """'User: ...' / 'Recommender: ...' lines, as PEPPER's judge reads a conversation (empty turns left out)."""
    return "\n".join(f"{'User' if t.role == Role.seeker else 'Recommender'}: {t.text}" for t in turns if t.text.strip())


# ---------------------------------------------------------------------------------- judges
@dataclass(frozen=True, slots=True)
class Comparison:
    level: str  # "dialogue" or "turn"
    judge: str  # the judge's score name
    human: str  # the human label name (or SATISFACTION)


@dataclass
class Judged:
    """One conversation's grades: dialogue-level {score: value}, turn-level {turn index: {score: value}}."""

    episode: Episode
    dialogue: dict[str, float | None] = field(default_factory=dict)
    turns: dict[int, dict[str, float | None]] = field(default_factory=dict)
    calls: list[Any] = field(default_factory=list)


class AspectsJudge:
    """One prompt per CRSArena-Eval aspect (`agents/steps/aspect_judge.py`)."""

    name = "aspects"

    def __init__(self, llm: Any, aspects: Sequence[str]):
        from agents.steps.aspect_judge import ASPECTS, AspectJudgeStep

        self.steps = {a: AspectJudgeStep(llm, a) for a in aspects}
        self.dialogue_scores = [a for a in aspects if ASPECTS[a].level == "dialogue"]
        self.turn_scores = [a for a in aspects if ASPECTS[a].level == "turn"]
        self.overall = "dialogue_overall" if "dialogue_overall" in aspects else (
            self.dialogue_scores[0] if self.dialogue_scores else None)

    def comparisons(self, dialogue_labels: Sequence[str], turn_labels: Sequence[str]) -> list[Comparison]:
        rows = [Comparison("dialogue", a, a) for a in self.dialogue_scores if a in dialogue_labels]
        rows += [Comparison("turn", a, a) for a in self.turn_scores if a in turn_labels]
        if self.overall is not None and SATISFACTION in dialogue_labels:
            rows.append(Comparison("dialogue", self.overall, SATISFACTION))
        return rows

    async def grade(self, episode: Episode) -> Judged:
        from agents.steps.aspect_judge import AspectInput

        judged = Judged(episode)
        whole = AspectInput(render_dialogue(episode.turns))
        for aspect in self.dialogue_scores:
            judged.dialogue[aspect] = (await self.steps[aspect].run(whole)).score  # type: ignore[attr-defined]
        for index, turn in enumerate(episode.turns):
            if turn.role != Role.recommender or not self.turn_scores:
                continue
            inputs = AspectInput(render_dialogue(episode.turns[:index]), turn.text)
            judged.turns[index] = {a: (await self.steps[a].run(inputs)).score  # type: ignore[attr-defined]
                                   for a in self.turn_scores}
        return judged


class PepperRubricJudge:
    """PEPPER's rubric judge (`agents/steps/judge.JudgeStep`): proactiveness, coherence,
    personalization 1-5 and their mean; CRS Arena has no stated preferences ('(not known)')."""

    name = "pepper"
    turn_scores: tuple[str, ...] = ()

    def __init__(self, llm: Any):
        from agents.steps.judge import CRITERIA, JudgeStep

        self.steps = {c: JudgeStep(llm, c) for c in CRITERIA}
        self.dialogue_scores = [*CRITERIA, PEPPER_MEAN]
        self.overall = PEPPER_MEAN

    def comparisons(self, dialogue_labels: Sequence[str], turn_labels: Sequence[str]) -> list[Comparison]:
        rows = [Comparison("dialogue", PEPPER_MEAN, label) for label in dialogue_labels]
        if "dialogue_overall" in dialogue_labels:
            rows += [Comparison("dialogue", c, "dialogue_overall") for c in self.steps]
        return rows

    async def grade(self, episode: Episode) -> Judged:
        from agents.steps.judge import JudgeInput

        inputs = JudgeInput(dialogue=render_dialogue(episode.turns), preferences="")
        judged = Judged(episode)
        for criterion, step in self.steps.items():
            judged.dialogue[criterion] = (await step.run(inputs)).score
        got = [v for c in self.steps if (v := judged.dialogue[c]) is not None]
        judged.dialogue[PEPPER_MEAN] = sum(got) / len(got) if got else None
        return judged


def build_judge(kind: str, llm: Any, labels: Sequence[str] | None, data: ArenaData) -> tuple[Any, list[Comparison]]:
    """The judge and the comparisons it is scored on; `labels` narrows the human labels (None: all)."""
    from agents.steps.aspect_judge import ASPECTS

    dialogue_labels, turn_labels = data.human_labels()
    present = [*dialogue_labels, *turn_labels]
    if labels:
        unknown = [label for label in labels if label not in present]
        if unknown:
            raise CrsimError(f"--labels: no human label {', '.join(map(repr, unknown))} in {data.directory} "
                             f"(present: {', '.join(present) or 'none'})")
        dialogue_labels = [label for label in dialogue_labels if label in labels]
        turn_labels = [label for label in turn_labels if label in labels]
    if kind == "pepper":
        if turn_labels and labels:
            raise CrsimError(f"--judge pepper grades whole conversations; turn-level labels "
                             f"({', '.join(turn_labels)}) need --judge aspects")
        judge: Any = PepperRubricJudge(llm)
    elif kind == "aspects":
        wanted = [a for a in ASPECTS if a in dialogue_labels or a in turn_labels]
        if SATISFACTION in dialogue_labels and "dialogue_overall" not in wanted:
            wanted.append("dialogue_overall")  # satisfaction is compared with the overall grade
        if not wanted:
            raise CrsimError(f"--judge aspects has a prompt for {', '.join(ASPECTS)} and satisfaction; "
                             f"{data.directory} has none of them")
        judge = AspectsJudge(llm, wanted)
    else:
        raise CrsimError(f"unknown judge '{kind}' (known: aspects, pepper)")
    comparisons = judge.comparisons(dialogue_labels, turn_labels)
    if not comparisons:
        raise CrsimError(f"nothing to compare: the judge '{kind}' grades none of the labels asked for")
    return judge, comparisons


async def grade_all(judge: Any, episodes: Sequence[Episode], concurrency: int = 8,
                    on_done: Callable[[Judged], None] | None = None) -> list[Judged]:
    """Grade every conversation (at most `concurrency` at once), recording each one's LLM calls."""
    from agents.llm.recording import CallRecorder, recording

    gate = asyncio.Semaphore(concurrency)

    async def one(episode: Episode) -> Judged:
        async with gate:
            with recording(CallRecorder()) as recorder:
                judged = await judge.grade(episode)
            judged.calls = list(recorder.records)
        if on_done is not None:
            on_done(judged)
        return judged

    return list(await asyncio.gather(*(one(e) for e in episodes)))


# ------------------------------------------------------------------------------- statistics
def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of each row of x with the same row of y (NaN where either is constant)."""
    dx = x - x.mean(axis=-1, keepdims=True)
    dy = y - y.mean(axis=-1, keepdims=True)
    denominator = np.sqrt((dx * dx).sum(axis=-1) * (dy * dy).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (dx * dy).sum(axis=-1) / denominator
    return np.where(denominator > 1e-12, np.clip(r, -1.0, 1.0), np.nan)


def _ranks(values: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(values, axis=-1)  # average ranks for ties


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    if len(x) < MIN_N:
        return math.nan
    return float(_pearson_rows(np.asarray(x, float), np.asarray(y, float)))


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's r of the average ranks (Spearman's rho with ties handled as scipy does)."""
    if len(x) < MIN_N:
        return math.nan
    return float(_pearson_rows(_ranks(np.asarray(x, float)), _ranks(np.asarray(y, float))))


@dataclass(frozen=True, slots=True)
class Correlation:
    n: int
    pearson: float
    pearson_ci: tuple[float, float]
    spearman: float
    spearman_ci: tuple[float, float]


def correlate(x: Sequence[float], y: Sequence[float], clusters: Sequence[Any] | None = None, *,
              resamples: int = 1000, seed: int = 0) -> Correlation:
    """Pearson and Spearman of paired values with percentile bootstrap 95% CIs.

    `clusters` (one key per pair, e.g. the conversation of a turn) are what is resampled: each
    bootstrap sample draws as many clusters as there are, with replacement, and takes all
    their pairs. Without clusters each pair is its own. Resamples whose correlation is
    undefined (constant values) are left out of the percentiles."""
    xs, ys = np.asarray(x, float), np.asarray(y, float)
    n = len(xs)
    nan2 = (math.nan, math.nan)
    if n < MIN_N:
        return Correlation(n, math.nan, nan2, math.nan, nan2)
    point_p, point_s = pearson(xs, ys), spearman(xs, ys)
    rng = np.random.default_rng(seed)
    keys = list(clusters) if clusters is not None else list(range(n))
    groups: dict[Any, list[int]] = defaultdict(list)
    for i, key in enumerate(keys):
        groups[key].append(i)
    members = [np.asarray(g) for g in groups.values()]
    if all(len(m) == 1 for m in members):
        order = np.concatenate(members)
        draws = order[rng.integers(0, len(order), size=(resamples, len(order)))]
        p = _pearson_rows(xs[draws], ys[draws])
        s = _pearson_rows(_ranks(xs[draws]), _ranks(ys[draws]))
    else:
        p, s = np.empty(resamples), np.empty(resamples)
        for b in range(resamples):
            picked = rng.integers(0, len(members), size=len(members))
            index = np.concatenate([members[i] for i in picked])
            p[b], s[b] = pearson(xs[index], ys[index]), spearman(xs[index], ys[index])

    def interval(values: np.ndarray) -> tuple[float, float]:
        values = values[~np.isnan(values)]
        if not len(values):
            return nan2
        low, high = np.percentile(values, [2.5, 97.5])
        return float(low), float(high)

    return Correlation(n, point_p, interval(p), point_s, interval(s))


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b (ties in either ranking handled); NaN with fewer than two systems."""
    from scipy.stats import kendalltau

    if len(x) < 2:
        return math.nan
    tau = kendalltau(x, y).statistic
    return float(tau) if tau is not None else math.nan


def elo(votes: Sequence[dict[str, Any]], k: float = ELO_K, initial: float = ELO_INITIAL) -> dict[str, float]:
    """Elo ratings from pairwise votes in the given order (CRS Arena's computation: both sides
    start at `initial`, a tie scores 0.5, each vote moves both ratings by k x surprise)."""
    ratings: dict[str, float] = defaultdict(lambda: initial)
    for vote in votes:
        a, b, winner = vote["crs1"], vote["crs2"], vote["vote"]
        ra, rb = ratings[a], ratings[b]
        expected_a = 1 / (1 + 10 ** ((rb - ra) / 400))
        expected_b = 1 / (1 + 10 ** ((ra - rb) / 400))
        score_a = 1.0 if winner == a else 0.0 if winner == b else 0.5
        ratings[a] = ra + k * (score_a - expected_a)
        ratings[b] = rb + k * (1 - score_a - expected_b)
    return dict(ratings)


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
    boot: dict[str, list[float]] = {measure: [] for measure in measures}
    rng = np.random.default_rng(seed)
    for _ in range(resamples if measures else 0):  # resample conversations; Elo (from the votes) stays
        again = _per_crs([judged[i] for i in rng.integers(0, len(judged), size=len(judged))], score)
        for measure, (_tau, crss) in measures.items():
            pairs = [(again[c]["judge_mean"], ratings[c] if measure == "elo" else again[c][measure])
                     for c in crss if c in again]
            pairs = [(a, b) for a, b in pairs if not (math.isnan(a) or math.isnan(b))]
            if len(pairs) >= 2:
                value = kendall_tau([a for a, _ in pairs], [b for _, b in pairs])
                if not math.isnan(value):
                    boot[measure].append(value)
    taus = {}
    for measure, (tau, crss) in measures.items():
        values = boot[measure]
        ci = (float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))) if values \
            else (math.nan, math.nan)
        taus[measure] = (tau, ci, len(crss))
    return Ranking(frame, taus, score)


def ranking_rows(result: Ranking, judge_name: str) -> list[dict[str, Any]]:
    """Kendall rows for the correlations CSV (level `system`)."""
    return [{"source": "judge", "evaluator": judge_name, "level": "system", "human": measure,
             "judge": f"mean {result.judge_score}", "subset": "all", "statistic": "kendall_tau", "value": tau,
             "ci_low": ci[0], "ci_high": ci[1], "n": n} for measure, (tau, ci, n) in result.taus.items()]
