"""Ranking agreement: Kendall's tau between offline and simulated orders, by hand and end to end."""

from pathlib import Path

import pandas as pd
import pytest

from crsim_testing import write_redial_fixture
from environments.datasets.redial import RedialOptions, import_redial
from environments.errors import CrsimError
from environments.models import Episode, TargetRank, TerminationReason, TurnEvaluation
from simulators.cli.validate import main
from simulators.validity.ranking import kendall_agreement, offline_scores, simulated_scores


def test_tau_by_hand():
    conversations = ["c1", "c2", "c3", "c4"]
    offline = {"a": dict.fromkeys(conversations, 0.3), "b": dict.fromkeys(conversations, 0.2),
               "c": dict.fromkeys(conversations, 0.1)}
    same = {"a": dict.fromkeys(conversations, 0.9), "b": dict.fromkeys(conversations, 0.5),
            "c": dict.fromkeys(conversations, 0.0)}
    reversed_ = {"a": dict.fromkeys(conversations, 0.0), "b": dict.fromkeys(conversations, 0.5),
                 "c": dict.fromkeys(conversations, 0.9)}
    assert kendall_agreement(offline, same, n_resamples=50).tau == 1.0
    agreement = kendall_agreement(offline, reversed_, n_resamples=50)
    assert agreement.tau == -1.0 and agreement.conversations == 4
    # a and b swapped, c last on both sides: concordant pairs (a,c), (b,c), discordant (a,b) -> (2 - 1) / 3
    swapped = {"a": dict.fromkeys(conversations, 0.5), "b": dict.fromkeys(conversations, 0.9),
               "c": dict.fromkeys(conversations, 0.0)}
    assert abs(kendall_agreement(offline, swapped, n_resamples=50).tau - 1 / 3) < 1e-12
    with pytest.raises(CrsimError, match="two recommenders"):
        kendall_agreement({"a": offline["a"]}, {"a": same["a"]})


def _episode(profile: dict, targets: list[str], ranks: list[int]) -> Episode:
    record = TurnEvaluation(turn=1, source_turn=1, n_candidates=100, top=[],
                            ranks=[TargetRank(item_id=t, rank=r, n_better=r - 1, n_tied=1) for t, r in zip(targets, ranks)])
    return Episode(id="e", index=0, config_hash="x", seed=0, environment="t", targets=targets, profile=profile,
                   evaluations=[record], termination=TerminationReason.max_turns)


def test_scores_per_conversation():
    offline = offline_scores([_episode({"dialogue": "c1"}, ["x", "y"], [3, 40]),
                              _episode({"dialogue": "c1"}, ["z"], [1]),
                              _episode({"dialogue": "c2"}, ["z"], [11])])
    assert offline == {"c1": (0.5 + 1.0) / 2, "c2": 0.0}
    assert simulated_scores([_episode({"conversation_id": "c1"}, ["x"], [10]),
                             _episode({"conversation_id": "c2"}, ["x"], [11])]) == {"c1": 1.0, "c2": 0.0}


def test_one_command_runs_both_sides(tmp_path: Path, capsys):
    raw = write_redial_fixture(tmp_path / "raw", n_train=30, n_test=8)
    corpus = tmp_path / "corpus"
    import_redial([raw / "train_data.jsonl", raw / "test_data.jsonl"], corpus, RedialOptions())
    assert main(["ranking", str(corpus), "--recommender", "popularity", "random", "--max-turns", "2",
                 "--out", str(tmp_path / "out")]) == 0
    frame = pd.read_csv(tmp_path / "out" / "ranking.csv")
    assert set(frame.recommender) == {"popularity", "random"} and frame.conversations.iloc[0] >= 2
    assert -1.0 <= frame.tau.iloc[0] <= 1.0 and frame.tau_low.iloc[0] <= frame.tau.iloc[0] <= frame.tau_high.iloc[0]
    assert (tmp_path / "out" / "offline" / "popularity" / "episodes.jsonl").is_file()
    assert "Kendall's tau" in capsys.readouterr().out
