"""Ranking agreement: does simulation order recommenders the way the real dialogues do?

For a list of recommenders, one side is their offline evaluation on a corpus's logged
dialogues (`crsim eval dialogues`: did the recommender rank the items the real recommender
then named, recall@K per evaluated turn, averaged per conversation); the other is their
success under simulation with grounded seekers on the same conversations (`environment=
grounded`: is the target in the top K after the last turn). Kendall's τ between the two
orders, over the conversations both sides scored, with a bootstrap CI that resamples those
conversations. This is the figure that matters for choosing a recommender by simulation:
a simulator whose users differ from people is still useful if it ranks systems as people
would.

A third column (unless `people=False`) scores the recommenders on the people's own words:
the same grounded sweep with `seeker=people` (`environment.seeker_knows=transcript`: the
seeker says the person's later turns again, in order, and quits when they run out), with
the simulated column's definition (the target in the top K after the last turn, the same
`max_turns`). It shows what the people revealed beside what the simulated seeker reveals;
τ of the offline order with the people's order, and of the people's order with the
simulated one, come with the same bootstrap (the same resampled conversations).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from environments.errors import CrsimError
from environments.models import Episode
from simulators.results.stats import cluster_bootstrap, percentile_interval

K = 10
N_RESAMPLES = 1000

Scores = dict[str, dict[str, float]]  # recommender -> conversation id -> score
PEOPLE_SEEKER = "people"
# `--set` overrides that concern the simulated seeker only, never passed to the people's run.
SEEKER_KEYS, SEEKER_PREFIXES = ("seeker", "environment.seeker_knows"), ("seeker.", "llm@seeker")


class Tau(NamedTuple):
    value: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class Agreement:
    tau: float  # offline order vs simulated order
    low: float
    high: float
    conversations: int
    offline: dict[str, float]  # recommender -> mean over the shared conversations
    simulated: dict[str, float]
    people: dict[str, float] = field(default_factory=dict)  # empty: no people's run
    offline_people: Tau | None = None  # offline order vs the people's order
    people_simulated: Tau | None = None  # the people's order vs the simulated order


class RankingScores(NamedTuple):
    offline: Scores
    simulated: Scores
    people: Scores | None  # None: the people's run was skipped


def offline_scores(episodes: Sequence[Episode], k: int = K) -> dict[str, float]:
    """Conversation id -> mean recall@k over its evaluated turns (`crsim eval dialogues` episodes)."""
    per: dict[str, list[float]] = {}
    for episode in episodes:
        conversation = episode.profile.get("dialogue")
        if conversation is None or not episode.evaluations or not episode.targets:
            continue
        ranks = episode.evaluations[-1].ranks
        per.setdefault(str(conversation), []).append(sum(r.rank <= k for r in ranks) / len(episode.targets))
    return {c: float(np.mean(v)) for c, v in per.items()}


def simulated_scores(episodes: Sequence[Episode], k: int = K) -> dict[str, float]:
    """Conversation id -> 1 when a target is in the top k after the episode's last turn (grounded runs)."""
    out = {}
    for episode in episodes:
        conversation = episode.profile.get("conversation_id")
        if conversation is None or not episode.evaluations:
            continue
        out[str(conversation)] = float(min((r.rank for r in episode.evaluations[-1].ranks), default=k + 1) <= k)
    return out


def kendall_agreement(offline: Scores, simulated: Scores, people: Scores | None = None, *, seed: int = 0,
                      n_resamples: int = N_RESAMPLES) -> Agreement:
    """τ between the recommenders' mean scores on the conversations every one was scored on by every side.

    With `people` (the people's run) the recommenders and conversations are those all three
    sides scored, and τ offline–people and people–simulated come too, from the same resamples."""
    from scipy.stats import kendalltau

    sides = [offline, simulated] + ([people] if people is not None else [])
    names = sorted(set.intersection(*(set(side) for side in sides)))
    if len(names) < 2:
        sides_named = "all three sides" if people is not None else "both sides"
        raise CrsimError(f"ranking agreement needs at least two recommenders scored by {sides_named}")
    shared = sorted(set.intersection(*(set(side[n]) for side in sides for n in names)))
    if len(shared) < 2:
        what = "the simulation and the people's run" if people is not None else "the simulation"
        raise CrsimError(f"the offline evaluation and {what} share fewer than two conversations")
    matrices = [np.array([[side[n][c] for c in shared] for n in names]) for side in sides]
    pairs = [(0, 1)] + ([(0, 2), (2, 1)] if people is not None else [])

    def taus(columns: np.ndarray) -> list[float]:
        means = [m[:, columns].mean(axis=1) for m in matrices]
        values = [kendalltau(means[i], means[j]).statistic for i, j in pairs]
        return [float(v) if np.isfinite(v) else 0.0 for v in values]  # every recommender tied on one side: no order

    points = taus(np.arange(len(shared)))
    draws = cluster_bootstrap(taus, len(shared), n_resamples=n_resamples, seed=seed).reshape(-1, len(pairs))
    found = [Tau(point, *percentile_interval(draws[:, j], point=point)) for j, point in enumerate(points)]
    means = [dict(zip(names, m.mean(axis=1).round(4).tolist())) for m in matrices]
    main = found[0]
    if people is None:
        return Agreement(main.value, main.low, main.high, len(shared), means[0], means[1])
    return Agreement(main.value, main.low, main.high, len(shared), means[0], means[1], means[2], found[1], found[2])


def run_both(corpus: Path, recommenders: Sequence[str], out: Path, *, split: str, train_split: str,
             seeker: str, max_turns: int, limit: int | None, overrides: Sequence[str] = (),
             people: bool = True) -> RankingScores:
    """Run `crsim eval dialogues` and a grounded `crsim run -m` sweep for `recommenders` (into
    `out/offline`, `out/simulated`) and, with `people`, the same sweep with `seeker=people`
    (`out/people`); read them back. `overrides` are for the simulated run; the people's run
    gets those that do not concern the seeker (`people_overrides`)."""
    from simulators.engine.logs import read_episodes
    from simulators.results.runlog import load_runs

    from environments.catalog import load_catalog_dir
    from environments.single_target.grounded import load_conversations

    crsim = str(Path(sys.executable).with_name("crsim"))
    offline_dir, sweep_dir, people_dir = out / "offline", out / "simulated", out / "people"
    episodes = len(load_conversations(load_catalog_dir(corpus), split, limit))  # one per grounded conversation
    _call([crsim, "eval", "dialogues", str(corpus), "--recommender", *recommenders, "--test-split", split,
           "--train-split", train_split, "--out", str(offline_dir), "--no-progress",
           *(["--limit", str(limit)] if limit else [])])
    grounded = ["environment=grounded", f"environment.catalog={corpus}", f"environment.split={split}",
                f"recommender={','.join(recommenders)}", f"max_turns={max_turns}", f"episodes={episodes}",
                *([f"environment.limit={limit}"] if limit else []), "progress=false"]
    _call([crsim, "run", "-m", *grounded, f"seeker={seeker}", f"hydra.sweep.dir={sweep_dir}", *overrides])
    if people:
        _call([crsim, "run", "-m", *grounded, f"seeker={PEOPLE_SEEKER}", "environment.seeker_knows=transcript",
               f"hydra.sweep.dir={people_dir}", *people_overrides(overrides)])
    offline = {name: offline_scores(read_episodes(offline_dir / name / "episodes.jsonl")[0]) for name in recommenders}

    def swept(directory: Path) -> Scores:
        return {_recommender_of(run.label, recommenders): simulated_scores(run.episodes)
                for run in load_runs(directory)}

    return RankingScores(offline, swept(sweep_dir), swept(people_dir) if people else None)


def people_overrides(overrides: Sequence[str]) -> list[str]:
    """The simulated run's overrides without those about its seeker: the seeker group and its
    keys, the seeker's language model, and `environment.seeker_knows` (the people's run says
    the person's transcript, always)."""
    def about_seeker(override: str) -> bool:
        key = override.lstrip("+~").split("=", 1)[0].strip()
        return key in SEEKER_KEYS or key.startswith(SEEKER_PREFIXES)

    return [o for o in overrides if not about_seeker(o)]


def _recommender_of(label: str, recommenders: Sequence[str]) -> str:
    for part in label.split(","):
        key, _, value = part.partition("=")
        if key == "recommender" and value in recommenders:
            return value
    raise CrsimError(f"cannot tell which recommender the sweep job '{label}' ran")


def _call(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise CrsimError(f"{' '.join(command[1:3])} failed: {last}")


def _tau_text(tau: Tau) -> str:
    return f"{tau.value:+.2f} [{tau.low:+.2f}, {tau.high:+.2f}]"


def format_agreement(agreement: Agreement, k: int = K) -> list[str]:
    lines = [f"Kendall's tau between the offline and simulated orders: {agreement.tau:+.2f} "
             f"[{agreement.low:+.2f}, {agreement.high:+.2f}] over {agreement.conversations} conversations "
             "(1: same order, 0: unrelated, -1: reversed)"]
    people = bool(agreement.people)
    lines.append(f"{'recommender':<16} {'offline recall@' + str(k):>18} {'simulated hit@' + str(k):>18}"
                 + (f" {'people hit@' + str(k):>18}" if people else ""))
    for name in sorted(agreement.offline, key=lambda n: -agreement.offline[n]):
        lines.append(f"{name:<16} {agreement.offline[name]:>18.3f} {agreement.simulated[name]:>18.3f}"
                     + (f" {agreement.people[name]:>18.3f}" if people else ""))
    if agreement.offline_people is not None and agreement.people_simulated is not None:
        lines.append(f"people hit@{k} (the people's own seeker turns said again): tau with offline "
                     f"{_tau_text(agreement.offline_people)}, with simulated {_tau_text(agreement.people_simulated)}")
    return lines


def agreement_rows(agreement: Agreement) -> list[Mapping[str, object]]:
    rows = []
    for n in agreement.offline:
        row: dict[str, object] = {"recommender": n, "offline": agreement.offline[n],
                                  "simulated": agreement.simulated[n]}
        if agreement.people:
            row["people"] = agreement.people[n]
        row.update({"tau": agreement.tau, "tau_low": agreement.low, "tau_high": agreement.high})
        for column, tau in (("tau_offline_people", agreement.offline_people),
                            ("tau_people_simulated", agreement.people_simulated)):
            if tau is not None:
                row.update({column: tau.value, f"{column}_low": tau.low, f"{column}_high": tau.high})
        row["conversations"] = agreement.conversations
        rows.append(row)
    return rows
