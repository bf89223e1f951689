"""One bootstrap for every interval that resamples clusters (`stats.cluster_bootstrap`, read by
`stats.percentile_interval`), drawing and reading exactly what the hand-written loops it
replaced did.

The pinned figures below were computed by those loops (crsim at commit 4814350, before the
helper: a loop per call site in simulators/validity and simulators/offline/judge) on the
same inputs, and are compared to the last bit (as hex): the same seed, the same draw order,
the same percentiles. A change of draw batch, generator or percentile shows up here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from environments.models import Episode, TerminationReason
from simulators.offline.judge.correlation import correlate
from simulators.offline.judge.grading import Judged
from simulators.offline.judge.report import ranking
from simulators.results.stats import cluster_bootstrap, percentile_interval
from simulators.validity.classifier import _grouped_auc_draws
from simulators.validity.figures import _distinct, ratio_ci
from simulators.validity.ranking import kendall_agreement
from simulators.validity.reactions import Reaction, reaction_figures


def hexed(values: object) -> object:
    """Floats as hex, the exact bits; anything else as it is."""
    if isinstance(values, (tuple, list)):
        return tuple(hexed(v) for v in values)
    if isinstance(values, dict):
        return {k: hexed(v) for k, v in values.items()}
    if isinstance(values, (float, np.floating)):
        return float(values).hex()
    return values


# ------------------------------------------------------------------------------ the helper
def test_one_resample_per_call_draws_what_a_loop_of_integers_calls_drew():
    weights = np.arange(1, 8)
    rng = np.random.default_rng(3)
    by_hand = [float(rng.integers(0, 7, 7) @ weights) for _ in range(20)]
    drawn = cluster_bootstrap(lambda index: float(index @ weights), 7, n_resamples=20, seed=3)
    assert drawn.tolist() == by_hand


def test_a_vectorized_statistic_sees_the_same_resamples():
    """Drawn as matrix rows (one generator call for many resamples) they are the resamples one
    call each would draw, so vectorizing a statistic changes no figure."""
    weights = np.arange(1, 8)
    matrix = cluster_bootstrap(lambda index: index @ weights, 7, n_resamples=250, seed=0, vectorized=True)
    one_by_one = cluster_bootstrap(lambda index: float(index @ weights), 7, n_resamples=250, seed=0)
    rng = np.random.default_rng(0)
    in_hundreds = np.concatenate([rng.integers(0, 7, size=(rows, 7)) @ weights for rows in (100, 100, 50)])
    assert matrix.tolist() == one_by_one.tolist() == in_hundreds.tolist()


def test_without_replacement_it_draws_subsamples_as_choice_did():
    rng = np.random.default_rng(5)
    by_hand = [tuple(rng.choice(9, 4, replace=False)) for _ in range(6)]
    drawn = cluster_bootstrap(lambda index: float(index[0] * 1000 + index[1] * 100 + index[2] * 10 + index[3]), 9,
                              n_resamples=6, seed=5, sample_size=4, replace=False)
    assert drawn.tolist() == [float(a * 1000 + b * 100 + c * 10 + d) for a, b, c, d in by_hand]


def test_a_generator_in_use_goes_on_from_where_it_stands():
    rng = np.random.default_rng(1)
    rng.random(3)
    again = np.random.default_rng(1)
    again.random(3)
    assert cluster_bootstrap(lambda i: float(i[0]), 5, n_resamples=10, seed=rng).tolist() == \
        [float(again.integers(0, 5, 5)[0]) for _ in range(10)]


def test_several_statistics_are_one_column_each():
    drawn = cluster_bootstrap(lambda index: (float(index.min()), float(index.max())), 6, n_resamples=40, seed=2)
    assert drawn.shape == (40, 2) and (drawn[:, 0] <= drawn[:, 1]).all()
    assert cluster_bootstrap(lambda index: 0.0, 0).size == 0 and cluster_bootstrap(lambda i: 0.0, 4, n_resamples=0).size == 0


def test_the_interval_leaves_undefined_resamples_out_or_passes_them_on():
    values = [0.1, float("nan"), 0.4, 0.2, 0.9, float("nan"), 0.5]
    low, high = percentile_interval(values)
    assert (low, high) == tuple(np.percentile([0.1, 0.4, 0.2, 0.9, 0.5], [2.5, 97.5]))
    assert all(math.isnan(v) for v in percentile_interval(values, undefined="propagate"))
    assert all(math.isnan(v) for v in percentile_interval([]))
    assert all(math.isnan(v) for v in percentile_interval([float("nan")]))
    assert percentile_interval([0.2, 0.3, 0.4], point=0.9) == (pytest.approx(0.205), 0.9)
    assert percentile_interval(np.linspace(0, 1, 101), confidence=0.9) == (pytest.approx(0.05), pytest.approx(0.95))


# ------------------------------------------------------- the call sites, pinned to the old loops
def test_validity_ratios_resample_dialogues():
    assert hexed(ratio_ci([3, 0, 2, 5, 1, 4, 0], [2, 1, 0, 3, 1, 2, 2], seed=0, n_resamples=250)) == (
        "0x1.5d1745d1745d1p+0", "0x1.2c962fc962fcap-1", "0x1.221a54d880bb5p+1", 11)
    # most resamples of these three dialogues have no denominator: they are left out
    assert hexed(ratio_ci([1, 3, 0], [1, 0, 0], seed=2, n_resamples=300)) == (
        "0x1.0000000000000p+2", "0x1.0000000000000p+0", "0x1.c000000000000p+2", 1)


TEXTS = ["i want a film", "something scary please", "a film with ghosts", "yes", "no not that one",
         "i liked the first one", "something like alien", "ok", "scary but funny", "thanks"]


def test_distinct_n_draws_equal_size_samples_without_replacement():
    one, two = _distinct(TEXTS, 1, 5, 3), _distinct(TEXTS, 2, 5, 3)
    assert hexed((one.value, one.low, one.high, one.n)) == (
        "0x1.d3c9f470149fap-1", "0x1.8e38e38e38e39p-1", "0x1.0000000000000p+0", 5)
    assert hexed((two.value, two.low, two.high, two.n)) == (
        "0x1.f69965dd1d964p-1", "0x1.c8641fdb97531p-1", "0x1.0000000000000p+0", 5)
    none = _distinct(["yes", "no", "ok thanks", "sure"], 2, 2, 0)  # a sample without a word pair: NaN
    assert all(math.isnan(v) for v in (none.value, none.low, none.high)) and none.n == 2


def test_reaction_kappa_resamples_conversations():
    pairs = [Reaction("c1", "i1", "like", "like"), Reaction("c1", "i2", "dislike", "none"),
             Reaction("c2", "i3", "like", "like"), Reaction("c3", "i4", "like", "dislike"),
             Reaction("c3", "i5", "dislike", "dislike"), Reaction("c4", "i6", "like", "none"),
             Reaction("c5", "i7", "dislike", "like"), Reaction("c5", "i8", "like", "like"),
             Reaction("c5", "i9", "like", "like")]
    figures = reaction_figures(pairs, seed=1)
    assert hexed(figures.accuracy) == ("0x1.1c71c71c71c72p-1", "0x1.5555555555555p-2", "0x1.6db6db6db6db7p-1")
    assert hexed(figures.kappa) == ("0x1.9999999999998p-3", "-0x1.9db22d0e56046p-4", "0x1.79435e50d7944p-2")


def test_ranking_agreement_resamples_shared_conversations():
    offline = {"bm25": {"c1": 0.2, "c2": 0.5, "c3": 0.0, "c4": 0.9, "c5": 0.4},
               "dense": {"c1": 0.3, "c2": 0.1, "c3": 0.6, "c4": 0.7, "c5": 0.2},
               "popularity": {"c1": 0.0, "c2": 0.2, "c3": 0.1, "c4": 0.3, "c5": 0.0}}
    simulated = {"bm25": {"c1": 1.0, "c2": 0.0, "c3": 0.0, "c4": 1.0, "c5": 1.0},
                 "dense": {"c1": 1.0, "c2": 1.0, "c3": 0.0, "c4": 0.0, "c5": 1.0},
                 "popularity": {"c1": 0.0, "c2": 0.0, "c3": 1.0, "c4": 0.0, "c5": 0.0}}
    agreement = kendall_agreement(offline, simulated, seed=2, n_resamples=200)
    assert hexed((agreement.tau, agreement.low, agreement.high)) == (
        "0x1.a20bd700c2c3ep-1", "-0x1.a46524d3f1188p-1", "0x1.0000000000000p+0")


def test_classifier_auc_resamples_dialogues_and_skips_one_class_draws():
    labels = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1])
    scores = np.array([0.1, 0.4, 0.35, 0.8, 0.2, 0.5, 0.7, 0.45, 0.9, 0.3, 0.65, 0.6])
    groups = np.array(["0:a", "0:a", "0:b", "0:b", "0:c", "0:c", "1:d", "1:d", "1:d", "1:e", "1:f", "1:f"])
    draws = _grouped_auc_draws(labels, scores, groups, np.random.default_rng(4))
    assert np.isnan(draws).any()
    assert hexed(percentile_interval(draws)) == ("0x1.1d41d41d41d42p-2", "0x1.f22f22f22f22fp-1")


def test_judge_correlations_resample_pairs_in_one_draw_or_conversations_one_by_one():
    x, y = [0, 1, 2, 2, 3, 4, 4], [1, 0, 2, 3, 3, 2, 4]
    plain = correlate(x, y, resamples=301, seed=5)
    assert hexed((plain.pearson_ci, plain.spearman_ci)) == (
        ("0x1.83a6afee49893p-3", "0x1.f4e11ae2542efp-1"), ("-0x1.0fa6291e172a2p-4", "0x1.faf49e6699615p-1"))
    clustered = correlate(x, y, ["d1", "d1", "d2", "d3", "d3", "d4", "d5"], resamples=200, seed=5)
    assert hexed((clustered.pearson_ci, clustered.spearman_ci)) == (
        ("-0x1.2d340071ad2b9p-2", "0x1.d1ebb264b4aa8p-1"), ("-0x1.2e3abb1104430p-2", "0x1.e160811608115p-1"))


def test_judge_ranking_taus_resample_conversations():
    def judged(index: int, crs: str, grade: float | None, satisfied: int, overall: float) -> Judged:
        episode = Episode(id=f"e{index}", index=index, config_hash="h", seed=0, environment="crsarena",
                          termination=TerminationReason.accepted,
                          profile={"crs": crs, "satisfied": satisfied, "labels": {"dialogue_overall": overall}})
        return Judged(episode, dialogue={"overall": grade})

    rows = [("kbrd", 0.0, 0, 1.0), ("kbrd", 2.0, 0, 0.0), ("kbrd", 1.0, 1, 2.0), ("barcor", 3.0, 1, 3.0),
            ("barcor", 2.0, 0, 2.0), ("barcor", 4.0, 1, 4.0), ("chatgpt", 4.0, 1, 3.0), ("chatgpt", 3.0, 1, 4.0),
            ("chatgpt", None, 0, 1.0), ("unicrs", 1.0, 0, 1.0), ("unicrs", 2.0, 1, 2.0)]
    votes = [{"crs1": "kbrd", "crs2": "barcor", "vote": "barcor"},
             {"crs1": "chatgpt", "crs2": "unicrs", "vote": "chatgpt"}, {"crs1": "unicrs", "crs2": "kbrd", "vote": "tie"}]
    result = ranking([judged(i, *row) for i, row in enumerate(rows)], "overall", votes, resamples=200, seed=6)
    assert result is not None
    assert hexed(result.taus) == {
        "satisfied_share": ("0x1.d363d1848dcbfp-1", ("-0x1.6b70593892837p-1", "0x1.0000000000000p+0"), 4),
        "human_overall_mean": ("0x1.5555555555557p-1", ("0x1.5555555555556p-2", "0x1.0000000000000p+0"), 4),
        "elo": ("0x1.a20bd700c2c3fp-1", ("0x1.a20bd700c2c3ep-1", "0x1.fffffffffffffp-1"), 4)}
