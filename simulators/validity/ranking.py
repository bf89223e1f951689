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
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from environments.errors import CrsimError
from environments.models import Episode
from simulators.results.stats import cluster_bootstrap, percentile_interval

K = 10
N_RESAMPLES = 1000

Scores = dict[str, dict[str, float]]  # recommender -> conversation id -> score


@dataclass(frozen=True, slots=True)
class Agreement:
    tau: float
    low: float
    high: float
    conversations: int
    offline: dict[str, float]  # recommender -> mean over the shared conversations
    simulated: dict[str, float]


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


def kendall_agreement(offline: Scores, simulated: Scores, *, seed: int = 0,
                      n_resamples: int = N_RESAMPLES) -> Agreement:
    """τ between the recommenders' mean scores on the conversations every one was scored on by both sides."""
    from scipy.stats import kendalltau

    names = sorted(set(offline) & set(simulated))
    if len(names) < 2:
        raise CrsimError("ranking agreement needs at least two recommenders scored by both sides")
    shared = sorted(set.intersection(*(set(offline[n]) & set(simulated[n]) for n in names)))
    if len(shared) < 2:
        raise CrsimError("the offline evaluation and the simulation share fewer than two conversations")
    a = np.array([[offline[n][c] for c in shared] for n in names])
    b = np.array([[simulated[n][c] for c in shared] for n in names])

    def tau(columns: np.ndarray) -> float:
        value = kendalltau(a[:, columns].mean(axis=1), b[:, columns].mean(axis=1)).statistic
        return float(value) if np.isfinite(value) else 0.0  # every recommender tied on one side: no order

    value = tau(np.arange(len(shared)))
    low, high = percentile_interval(cluster_bootstrap(tau, len(shared), n_resamples=n_resamples, seed=seed),
                                    point=value)
    return Agreement(value, low, high, len(shared),
                     dict(zip(names, a.mean(axis=1).round(4).tolist())),
                     dict(zip(names, b.mean(axis=1).round(4).tolist())))


def run_both(corpus: Path, recommenders: Sequence[str], out: Path, *, split: str, train_split: str,
             seeker: str, max_turns: int, limit: int | None, overrides: Sequence[str] = ()) -> tuple[Scores, Scores]:
    """Run `crsim eval dialogues` and a grounded `crsim run -m` sweep for `recommenders`; read both back."""
    from simulators.engine.logs import read_episodes
    from simulators.results.runlog import load_runs

    from environments.catalog import load_catalog_dir
    from environments.single_target.grounded import load_conversations

    crsim = str(Path(sys.executable).with_name("crsim"))
    offline_dir, sweep_dir = out / "offline", out / "simulated"
    episodes = len(load_conversations(load_catalog_dir(corpus), split, limit))  # one per grounded conversation
    _call([crsim, "eval", "dialogues", str(corpus), "--recommender", *recommenders, "--test-split", split,
           "--train-split", train_split, "--out", str(offline_dir), "--no-progress",
           *(["--limit", str(limit)] if limit else [])])
    _call([crsim, "run", "-m", "environment=grounded", f"environment.catalog={corpus}", f"environment.split={split}",
           f"recommender={','.join(recommenders)}", f"seeker={seeker}", f"max_turns={max_turns}",
           f"episodes={episodes}", *([f"environment.limit={limit}"] if limit else []), "progress=false",
           f"hydra.sweep.dir={sweep_dir}", *overrides])
    offline = {name: offline_scores(read_episodes(offline_dir / name / "episodes.jsonl")[0]) for name in recommenders}
    simulated: Scores = {}
    for run in load_runs(sweep_dir):
        simulated[_recommender_of(run.label, recommenders)] = simulated_scores(run.episodes)
    return offline, simulated


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


def format_agreement(agreement: Agreement, k: int = K) -> list[str]:
    lines = [f"Kendall's tau between the two orders: {agreement.tau:+.2f} [{agreement.low:+.2f}, {agreement.high:+.2f}] "
             f"over {agreement.conversations} conversations (1: same order, 0: unrelated, -1: reversed)"]
    lines.append(f"{'recommender':<16} {'offline recall@' + str(k):>18} {'simulated hit@' + str(k):>18}")
    for name in sorted(agreement.offline, key=lambda n: -agreement.offline[n]):
        lines.append(f"{name:<16} {agreement.offline[name]:>18.3f} {agreement.simulated[name]:>18.3f}")
    return lines


def agreement_rows(agreement: Agreement) -> list[Mapping[str, object]]:
    return [{"recommender": n, "offline": agreement.offline[n], "simulated": agreement.simulated[n],
             "tau": agreement.tau, "tau_low": agreement.low, "tau_high": agreement.high,
             "conversations": agreement.conversations} for n in agreement.offline]
