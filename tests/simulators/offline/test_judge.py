"""Judges against people: the statistics on numbers worked out by hand, and `crsim eval judge`
end to end against the OpenAI-compatible stub server on a small CRS Arena import.

The fixture (tests/crsarena_fixture.py) has six conversations of three CRSs; the stub grades
them as scripted there, so every figure below is known in advance:

- overall (0-4), the five labelled conversations: judge x = 0, 1, 2, 3, 4 against people
  y = 1, 0, 3, 2, 4. Deviations from the mean 2: (-2, -1, 0, 1, 2) and (-1, -2, 1, 0, 2); sum of
  products 8, sums of squares 10 and 10: Pearson = 8 / 10 = 0.8. The ranks are the values plus
  one, so Spearman = 0.8 too.
- relevance, six labelled recommender turns: people 0, 1, 2, 2, 0, 1, judge 0, 1, 2, 1, 0, 2.
  Means 1; products 1, 0, 1, 0, 1, 0 (sum 3); sums of squares 4 and 4: Pearson = 0.75. Average
  ranks are 2 x value + 1.5 on both sides, so Spearman = 0.75.
- satisfaction, all six conversations: judge 0, 1, 2, 3, 4, 4 against satisfied 0, 0, 0, 1, 0, 1.
  Means 7/3 and 1/3; sum of products 7/3, sums of squares 40/3 and 4/3:
  Pearson = (7/3) / sqrt(160/9) = 7 / sqrt(160) = 0.55340. Ranks of the judge's grades are 1, 2,
  3, 4, 5.5, 5.5 (mean 3.5): sum of products with satisfied 2.5, sum of squares 17:
  Spearman = 2.5 / sqrt(17 x 4/3) = 0.52511.
- CRS means, judge: kbrd_opendialkg (0 + 1) / 2 = 0.5, barcor_redial (2 + 4) / 2 = 3,
  chatgpt_redial (3 + 4) / 2 = 3.5. People: overall 0.5, 3 (d3 only), 3 = (2 + 4) / 2; satisfied
  share 0, 0.5, 0.5. Both pairs with kbrd are concordant, barcor-chatgpt is tied for people:
  tau-b = (2 - 0) / sqrt(3 x 2) = 0.81650.
- Elo (K = 16, from 1000): kbrd loses to barcor: 992 / 1008. chatgpt (1000) beats kbrd (992):
  expected 1 / (1 + 10^(-8/400)) = 0.511511, chatgpt 1007.8158, kbrd 984.1842. chatgpt ties
  barcor (1008): chatgpt 1007.8201, barcor 1007.9958. So barcor > chatgpt > kbrd, against the
  judge's chatgpt > barcor > kbrd: two concordant pairs, one discordant: tau = 1/3.
"""

from __future__ import annotations

import json
import math
import re

import pandas as pd
import pytest
from crsarena_fixture import JUDGE_OVERALL, RELEVANCE, import_release
from openai_stub_server import OpenAIStubServer, crsim_responder, step_of

from simulators.cli.eval_judge import main
from simulators.offline.judge.correlation import correlate, elo, kendall_tau, pearson, spearman

ELO_VOTES = [{"crs1": "kbrd_opendialkg", "crs2": "barcor_redial", "vote": "barcor_redial"},
             {"crs1": "chatgpt_redial", "crs2": "kbrd_opendialkg", "vote": "chatgpt_redial"},
             {"crs1": "chatgpt_redial", "crs2": "barcor_redial", "vote": "tie"}]


def test_correlations_on_hand_computed_numbers():
    assert pearson([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) == pytest.approx(0.8)
    assert spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]) == pytest.approx(0.8)
    # with ties: x = 0, 0, 1, 2 and y = 1, 2, 2, 4. Deviations (-.75, -.75, .25, 1.25) and
    # (-1.25, -.25, -.25, 1.75): products sum to 3.25, squares to 2.75 and 4.75, so
    # Pearson = 3.25 / sqrt(13.0625) = 0.89923. Average ranks (1.5, 1.5, 3, 4) and (1, 2.5, 2.5, 4):
    # deviations from 2.5 give 3.75 over sqrt(4.5 x 4.5): Spearman = 0.83333.
    assert pearson([0, 0, 1, 2], [1, 2, 2, 4]) == pytest.approx(3.25 / math.sqrt(2.75 * 4.75))
    assert spearman([0, 0, 1, 2], [1, 2, 2, 4]) == pytest.approx(3.75 / 4.5)
    assert pearson([0, 1, 2, 3, 4, 4], [0, 0, 0, 1, 0, 1]) == pytest.approx(7 / math.sqrt(160))
    assert spearman([0, 1, 2, 3, 4, 4], [0, 0, 0, 1, 0, 1]) == pytest.approx(2.5 / math.sqrt(17 * 4 / 3))
    assert math.isnan(pearson([1, 2], [2, 1])) and math.isnan(pearson([1, 1, 1], [1, 2, 3]))  # too few; constant


def test_bootstrap_intervals_hold_the_estimate_and_resample_conversations():
    c = correlate([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], resamples=500, seed=1)
    assert (c.n, c.pearson, c.spearman) == (5, pytest.approx(0.8), pytest.approx(0.8))
    assert c.pearson_ci[0] < 0.8 <= c.pearson_ci[1] <= 1.0
    assert correlate([1, 2, 3, 4, 5], [2, 1, 4, 3, 5], resamples=500, seed=1) == c  # seeded
    turns = correlate([0, 1, 2, 2, 0, 1], [0, 1, 2, 1, 0, 2], ["d1", "d1", "d2", "d3", "d4", "d5"], resamples=300)
    assert (turns.n, turns.pearson, turns.spearman) == (6, pytest.approx(0.75), pytest.approx(0.75))
    assert turns.pearson_ci[0] <= 0.75 <= turns.pearson_ci[1]
    empty = correlate([1, 2], [1, 2])
    assert empty.n == 2 and math.isnan(empty.pearson) and math.isnan(empty.spearman_ci[0])


def test_kendall_and_elo_on_hand_computed_numbers():
    ratings = elo(ELO_VOTES)
    assert ratings == {"kbrd_opendialkg": pytest.approx(984.1842, abs=1e-3),
                       "barcor_redial": pytest.approx(1007.9958, abs=1e-3),
                       "chatgpt_redial": pytest.approx(1007.8201, abs=1e-3)}
    judge = [0.5, 3.0, 3.5]  # kbrd, barcor, chatgpt
    assert kendall_tau(judge, [0.5, 3.0, 3.0]) == pytest.approx(2 / math.sqrt(6))
    assert kendall_tau(judge, [ratings[c] for c in ("kbrd_opendialkg", "barcor_redial", "chatgpt_redial")]) == \
        pytest.approx(1 / 3)


# ------------------------------------------------------------------------- the command
def scripted_judge(request):
    """The fixture's grades: overall by the conversation's marker, relevance by the response graded."""
    step = step_of(request)
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    if step == "judge_dialogue_overall":
        conv = re.search(r"User: (D\d) ", user).group(1).lower()
        return json.dumps({"score": JUDGE_OVERALL[conv], "reason": "scripted"})
    if step == "judge_relevance":
        graded = user.split("The recommender's response to grade:")[1]
        score = next((judge for text, (_human, judge) in RELEVANCE.items() if text in graded), 0)
        return json.dumps({"score": score, "reason": "scripted"})
    raise AssertionError(f"unexpected step {step}")


def _llm(stub):
    return ["--llm", "openai", f"base_url={stub.url}", "model=stub-judge", "cache=false", "max_retries=0"]


@pytest.fixture
def arena(tmp_path):
    return import_release(tmp_path / "release", tmp_path / "arena")


def _value(frame, human, statistic, subset="all"):
    row = frame[(frame.source == "judge") & (frame.human == human) & (frame.statistic == statistic)
                & (frame.subset == subset)]
    assert len(row) == 1, (human, statistic, subset)
    return row.iloc[0]


def test_eval_judge_against_the_stub_server(arena, tmp_path, capsys):
    out = tmp_path / "judged"
    with OpenAIStubServer(scripted_judge) as stub:
        status = main([str(arena), *_llm(stub), "--labels", "dialogue_overall", "relevance", "satisfaction",
                       "--resamples", "200", "--out", str(out), "--no-progress"])
        requests = stub.count
    printed = capsys.readouterr()
    assert status == 0, printed.err
    assert requests == 6 + 7  # an overall grade per conversation, a relevance grade per recommender turn
    assert len((out / "llm_calls.jsonl").read_text().splitlines()) == 13
    frame = pd.read_csv(out / "correlations.csv")
    overall = _value(frame, "dialogue_overall", "pearson")
    assert (overall.level, overall.judge, overall.n) == ("dialogue", "dialogue_overall", 5)
    assert overall.value == pytest.approx(0.8) and overall.ci_low <= 0.8 <= overall.ci_high
    assert _value(frame, "dialogue_overall", "spearman").value == pytest.approx(0.8)
    relevance = _value(frame, "relevance", "pearson")
    assert (relevance.level, relevance.n, relevance.value) == ("turn", 6, pytest.approx(0.75))
    assert _value(frame, "relevance", "spearman").value == pytest.approx(0.75)
    assert _value(frame, "satisfaction", "pearson").value == pytest.approx(7 / math.sqrt(160))
    assert _value(frame, "satisfaction", "spearman").value == pytest.approx(2.5 / math.sqrt(17 * 4 / 3))
    assert _value(frame, "dialogue_overall", "pearson", "redial").n == 3  # d3, d4, d5
    assert _value(frame, "satisfied_share", "kendall_tau").value == pytest.approx(2 / math.sqrt(6))
    assert _value(frame, "human_overall_mean", "kendall_tau").value == pytest.approx(2 / math.sqrt(6))
    elo_row = _value(frame, "elo", "kendall_tau")
    assert (elo_row.value, elo_row.n, elo_row.level) == (pytest.approx(1 / 3), 3, "system")
    published = frame[frame.source.str.startswith("published")]
    face = published[(published.evaluator == "FACE") & (published.statistic == "pearson")]
    assert dict(zip(face.subset, face.value)) == {"redial": 0.712, "opendialkg": 0.766}
    assert set(published.evaluator) == {"LLM-Direct", "G-Eval", "FACE"}
    ranking = pd.read_csv(out / "ranking.csv").set_index("crs")
    assert ranking.loc["chatgpt_redial", "judge_mean"] == pytest.approx(3.5)
    assert ranking.loc["barcor_redial", "elo"] == pytest.approx(1007.9958, abs=1e-3)
    scores = pd.read_csv(out / "scores.csv")
    assert len(scores) == 6 and scores.judge_dialogue_overall.tolist() == [0, 1, 2, 3, 4, 4]
    assert len(pd.read_csv(out / "turn_scores.csv")) == 7
    assert "published: FACE" in printed.out and "Kendall tau-b" in printed.out
    assert "0.800 [" in printed.out and "0.750 [" in printed.out


def test_pepper_rubric_judge_runs_and_a_constant_judge_correlates_with_nothing(arena, tmp_path, capsys):
    out = tmp_path / "pepper"
    with OpenAIStubServer(crsim_responder()) as stub:  # always 4, 3, 2
        status = main([str(arena), *_llm(stub), "--judge", "pepper", "--labels", "dialogue_overall",
                       "--resamples", "50", "--out", str(out), "--no-progress"])
        assert stub.count == 6 * 3
    assert status == 0, capsys.readouterr().err
    scores = pd.read_csv(out / "scores.csv")
    assert scores.judge_pepper_mean.tolist() == [3.0] * 6
    frame = pd.read_csv(out / "correlations.csv")
    mine = frame[(frame.source == "judge") & (frame.level == "dialogue")]
    assert set(mine.judge) == {"pepper_mean", "proactiveness", "coherence", "personalization"}
    assert mine.value.isna().all()  # constant grades: no correlation, never a made-up number


@pytest.mark.parametrize("llm", [[], ["--llm", "offline"]])
def test_offline_there_is_no_judge(arena, llm, capsys):
    assert main([str(arena), *llm]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("crsim: error: a judge needs a language model")


def test_labels_and_llm_options_are_checked(arena, capsys):
    with OpenAIStubServer(scripted_judge) as stub:
        assert main([str(arena), *_llm(stub), "--labels", "fluency"]) == 2
        assert "--labels: no human label 'fluency'" in capsys.readouterr().err
        assert main([str(arena), *_llm(stub), "--judge", "pepper", "--labels", "relevance"]) == 2
        assert "need --judge aspects" in capsys.readouterr().err
        assert stub.count == 0
    assert main([str(arena), "--llm", "nope"]) == 2
    assert "available: litellm, local, offline, openai, qwen2.5-0.5b, qwen2.5-1.5b, replay" in capsys.readouterr().err


def test_every_grade_failing_is_an_error(arena, tmp_path, capsys):
    with OpenAIStubServer(lambda _request: "not json at all") as stub:
        status = main([str(arena), *_llm(stub), "--labels", "dialogue_overall", "--out", str(tmp_path / "x"),
                       "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("crsim: error: every one of the judge's 6 grades failed")


def test_a_sample_spreads_over_every_crs_and_follows_the_seed(arena):
    from simulators.offline.judge.grading import load_arena

    everything = load_arena(arena).episodes
    crs_of = {e.id: e.profile["crs"] for e in everything}
    three = load_arena(arena, sample=3).episodes
    assert sorted(crs_of[e.id] for e in three) == sorted(set(crs_of.values()))  # one of each of the three CRSs
    assert [e.id for e in three] == [e.id for e in everything if e.id in {t.id for t in three}]  # file order
    draws = {tuple(e.id for e in load_arena(arena, sample=3, seed=seed).episodes) for seed in range(8)}
    assert len(draws) > 1  # the seed picks which conversation of a CRS
    assert {e.id for e in load_arena(arena, sample=100).episodes} == {
        e.id for e in everything if e.profile.get("labels") or e.profile.get("satisfied") is not None}
