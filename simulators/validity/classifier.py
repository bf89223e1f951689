"""Distinguishability: can a classifier tell real seeker turns from simulated ones?

A logistic regression on sentence embeddings plus a few lexical features (words,
characters, a question mark, digits, capitals, sentences) is cross-validated with folds
grouped by dialogue (turns of one conversation never sit on both sides of a split: a
simulator's episode could otherwise be recognised by its own other turns), and scored by
ROC AUC on the out-of-fold predictions: 0.5 means the classifier cannot tell them apart,
1.0 that it always can. The interval resamples dialogues of those predictions. Both sets
are cut to the same number of turns first, so the AUC is not a class-size effect.

A classifier near 0.5 is not proof of realism (it only sees what its features see); far
above it is strong evidence that the turns are not like people's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simulators.results.stats import cluster_bootstrap, percentile_interval
from simulators.validity import language
from simulators.validity.figures import Figure

MAX_TURNS = 1000  # per side
FOLDS = 5
N_RESAMPLES = 200


@dataclass(frozen=True, slots=True)
class LabelledTurn:
    text: str
    group: str  # the dialogue it belongs to


def lexical_features(texts: Sequence[str]) -> np.ndarray:
    rows = []
    for text in texts:
        n_chars = max(len(text), 1)
        rows.append([len(language.words(text)), len(text) / 100, float(language.asks(text)),
                     sum(c.isdigit() for c in text) / n_chars, sum(c.isupper() for c in text) / n_chars,
                     len(language.sentences(text)), float(text.rstrip().endswith((".", "!", "?")))])
    return np.asarray(rows, dtype=float)


def distinguishability(real: Sequence[LabelledTurn], simulated: Sequence[LabelledTurn], encoder: Any, *,
                       seed: int = 0, max_turns: int = MAX_TURNS) -> Figure:
    """Cross-validated ROC AUC of real (0) vs simulated (1) turns, with a 95% CI."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedGroupKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from environments.search.embeddings import encode_bulk

    rng = np.random.default_rng(seed)
    size = min(len(real), len(simulated), max_turns)
    if size < FOLDS * 2:
        nan = float("nan")
        return Figure("distinguishability_auc", nan, nan, nan, 2 * size)
    picked = [[side[i] for i in sorted(rng.choice(len(side), size, replace=False))] for side in (real, simulated)]
    turns = picked[0] + picked[1]
    labels = np.array([0] * size + [1] * size)
    groups = np.array([f"{label}:{t.group}" for label, t in zip(labels, turns)])
    texts = [t.text for t in turns]
    features = np.hstack([np.asarray(encode_bulk(encoder, texts), dtype=float), lexical_features(texts)])
    scores = np.zeros(len(texts))
    folds = StratifiedGroupKFold(n_splits=FOLDS, shuffle=True, random_state=seed)
    for train, test in folds.split(features, labels, groups):
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=0.5))
        model.fit(features[train], labels[train])
        scores[test] = model.predict_proba(features[test])[:, 1]
    auc = float(roc_auc_score(labels, scores))
    low, high = percentile_interval(_grouped_auc_draws(labels, scores, groups, rng), point=auc)
    return Figure("distinguishability_auc", auc, low, high, len(texts))


def _grouped_auc_draws(labels: np.ndarray, scores: np.ndarray, groups: np.ndarray,
                       rng: np.random.Generator) -> np.ndarray:
    """ROC AUC on resamples of whole dialogues (NaN where a resample holds one class only)."""
    from sklearn.metrics import roc_auc_score

    names, index = np.unique(groups, return_inverse=True)
    members = [np.flatnonzero(index == g) for g in range(len(names))]

    def auc(picked: np.ndarray) -> float:
        rows = np.concatenate([members[g] for g in picked])
        return float(roc_auc_score(labels[rows], scores[rows])) if len(set(labels[rows])) == 2 else float("nan")

    return cluster_bootstrap(auc, len(members), n_resamples=N_RESAMPLES, seed=rng)
