"""Ranking agreement: Kendall's tau between offline, simulated and people's orders, by hand and end to end."""

from pathlib import Path

import pandas as pd
import pytest

from crsim_testing import import_redial_fixture
from environments.errors import CrsimError
from environments.models import Episode, TargetRank, TerminationReason, TurnEvaluation
from environments.single_target.grounded import before_target
from simulators.cli.validate import main
from simulators.results.runlog import load_runs
from simulators.validity.ranking import (
    agreement_rows, format_agreement, kendall_agreement, offline_scores, people_overrides, simulated_scores,
)


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


def test_people_column_and_its_taus_by_hand():
    conversations = ["c1", "c2", "c3", "c4"]
    offline = {"a": dict.fromkeys(conversations, 0.3), "b": dict.fromkeys(conversations, 0.2),
               "c": dict.fromkeys(conversations, 0.1)}
    simulated = {"a": dict.fromkeys(conversations, 0.0), "b": dict.fromkeys(conversations, 0.5),
                 "c": dict.fromkeys(conversations, 0.9)}
    people = {"a": dict.fromkeys(conversations, 1.0), "b": dict.fromkeys(conversations, 0.5),
              "c": {"c1": 0.0, "c2": 0.0, "c3": 0.0, "c4": 0.0, "c5": 1.0}}  # c5: people's run only, left out
    without = kendall_agreement(offline, simulated, n_resamples=50)
    agreement = kendall_agreement(offline, simulated, people, n_resamples=50)
    assert (agreement.tau, agreement.low, agreement.high) == (without.tau, without.low, without.high) == (-1, -1, -1)
    assert agreement.conversations == 4 and agreement.people == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert agreement.offline_people.value == 1.0 and agreement.people_simulated.value == -1.0
    assert agreement.offline_people.low <= 1.0 <= agreement.offline_people.high
    assert not without.people and without.offline_people is None and without.people_simulated is None
    lines = format_agreement(agreement)
    assert "people hit@10" in lines[1] and lines[2].split() == ["a", "0.300", "0.000", "1.000"]
    assert "tau with offline +1.00" in lines[-1] and "with simulated -1.00" in lines[-1]
    assert "people" not in "\n".join(format_agreement(without))
    row = agreement_rows(agreement)[0]
    assert row["people"] == 1.0 and row["tau_offline_people"] == 1.0 and row["tau_people_simulated"] == -1.0
    assert "people" not in agreement_rows(without)[0] and "tau_offline_people" not in agreement_rows(without)[0]


def test_the_people_run_gets_no_seeker_overrides():
    overrides = ["environment.seeker_knows=history", "seeker.dont_know_rate=0", "+seeker.x=1",
                 "llm@seeker.llm=qwen2.5-1.5b", "recommender.k=3", "environment.top_k=5", "concurrency=2"]
    assert people_overrides(overrides) == ["recommender.k=3", "environment.top_k=5", "concurrency=2"]


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


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return import_redial_fixture(tmp_path_factory, n_train=30, n_test=8)


def test_one_command_runs_all_three_sides(corpus: Path, tmp_path: Path, capsys):
    # the simulated seeker's overrides (a history-knowing seeker) must not reach the people's run
    assert main(["ranking", str(corpus), "--recommender", "popularity", "random", "--max-turns", "2",
                 "--seeker", "target_free", "--set", "environment.seeker_knows=history",
                 "--out", str(tmp_path / "out")]) == 0
    frame = pd.read_csv(tmp_path / "out" / "ranking.csv")
    assert set(frame.recommender) == {"popularity", "random"} and frame.conversations.iloc[0] >= 2
    assert -1.0 <= frame.tau.iloc[0] <= 1.0 and frame.tau_low.iloc[0] <= frame.tau.iloc[0] <= frame.tau_high.iloc[0]
    assert frame.people.between(0, 1).all()
    for column in ("tau_offline_people", "tau_people_simulated"):
        assert (frame[f"{column}_low"] <= frame[column]).all() and (frame[column] <= frame[f"{column}_high"]).all()
    assert (tmp_path / "out" / "offline" / "popularity" / "episodes.jsonl").is_file()
    printed = capsys.readouterr().out
    assert "Kendall's tau" in printed and "people hit@10" in printed
    people = [e for run in load_runs(tmp_path / "out" / "people") for e in run.episodes]
    assert people and all(e.error is None and set(e.profile) == {"conversation_id", "turns"} for e in people)
    real = {e.id: e for e in map(Episode.model_validate_json, (corpus / "dialogues.jsonl").read_text().splitlines())}
    for episode in people:  # the person's own turns, in order, after the opening, until the target was named
        said = [t.text for t in episode.turns if t.role == "seeker" and t.text]
        conversation = real[episode.profile["conversation_id"]]
        first = next(i for i, t in enumerate(conversation.turns) if t.role == "seeker" and t.text.strip())
        person = [t.text for t in conversation.turns if t.role == "seeker" and t.text.strip()]
        assert said == person[:1 + before_target(conversation, episode.targets[0], first)]


def test_no_people_skips_the_third_run(corpus: Path, tmp_path: Path, capsys):
    assert main(["ranking", str(corpus), "--recommender", "popularity", "random", "--max-turns", "2",
                 "--no-people", "--out", str(tmp_path / "out")]) == 0
    frame = pd.read_csv(tmp_path / "out" / "ranking.csv")
    assert "people" not in frame.columns and "tau_offline_people" not in frame.columns
    assert not (tmp_path / "out" / "people").exists()
    assert "people hit" not in capsys.readouterr().out
