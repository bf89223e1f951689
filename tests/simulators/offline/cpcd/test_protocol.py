"""CPCD's scoring protocol, checked against values worked out by hand.

Popularity trained on `protocol_files`' six conversations ranks, track by track,
a1 a2 b c d e f g h i j; by cluster (a1 = a2 = cA) that is A b c d e f g h i j.

d1 (goal a2 c f; liked a2, then c, then f):
  turn 0, no seeds:       preds A b c d e, gold A c f -> hits at 1 and 3
  turn 1, seeds {A}:      preds b c d e f, gold c f   -> hits at 2 and 5
  turn 2, seeds {A, c}:   preds b d e f g, gold f     -> hit at 4
d2 (goal b d; liked b d at turn 0): turn 0 preds A b c d e, hits at 2 and 4; turns 1
  and 2 have no gold left (b, d are seeds) and are skipped.
d3 (goal e g h i; liked g h i e at turn 0): only the first three (g h i) become seeds,
  so e stays gold; hit at 5 in turns 0 and 1.
d4 (goal a1 a2 j: cluster A once): turn 0 gold A j, hit at 1; turn 1 seeds {A} (the
  liked a1 removes a2 from the gold too), gold j, which popularity ranks 10th.

hit@1 per turn: d1 1 0 0, d2 0, d3 0 0, d4 1 0: macro (1/3 + 0 + 0 + 1/2) / 4 = 5/24,
micro 2/8. The other rows are worked out the same way below.
"""

from __future__ import annotations

import csv
import json

import pytest

from simulators.cli.eval import main
from simulators.offline.cpcd.protocol import (
    Aggregate, TurnTask, clusters, running_mean, score_ranking, turn_metrics, turn_tasks,
)

# (macro, micro) per metric at k = 1 and 5, from the per-turn values in the module docstring.
EXPECTED = {
    "hit@1": (5 / 24, 2 / 8), "map@1": (5 / 24, 2 / 8), "mrr@1": (5 / 24, 2 / 8), "precision@1": (5 / 24, 2 / 8),
    # recall@1: d1 1/3 0 0, d4 1/2 0
    "recall@1": ((1 / 9 + 1 / 4) / 4, (1 / 3 + 1 / 2) / 8),
    # every scored turn hits within 5 except d4's second
    "hit@5": ((1 + 1 + 1 + 1 / 2) / 4, 7 / 8),
    # AP@5: d1 (1 + 2/3)/3, (1/2 + 2/5)/2, (1/4)/1; d2 (1/2 + 2/4)/2; d3 (1/5)/4, 1/5; d4 1/2, 0
    "map@5": (((5 / 9 + 0.45 + 0.25) / 3 + 0.5 + (0.05 + 0.2) / 2 + 0.25) / 4,
              (5 / 9 + 0.45 + 0.25 + 0.5 + 0.05 + 0.2 + 0.5 + 0) / 8),
    # first hit at 1 2 4 | 2 | 5 5 | 1 none
    "mrr@5": (((1 + 1 / 2 + 1 / 4) / 3 + 1 / 2 + 1 / 5 + 1 / 2) / 4, (1 + .5 + .25 + .5 + .2 + .2 + 1 + 0) / 8),
    # hits within 5: 2 2 1 | 2 | 1 1 | 1 0
    "precision@5": ((1 / 3 + 2 / 5 + 1 / 5 + 1 / 10) / 4, (2 + 2 + 1 + 2 + 1 + 1 + 1 + 0) / 5 / 8),
    # gold left: 3 2 1 | 2 | 4 1 | 2 1
    "recall@5": (((2 / 3 + 1 + 1) / 3 + 1 + (1 / 4 + 1) / 2 + (1 / 2 + 0) / 2) / 4,
                 (2 / 3 + 1 + 1 + 1 + 1 / 4 + 1 + 1 / 2 + 0) / 8),
}
TURN_0_HIT_1 = (1 + 0 + 0 + 1) / 4


def read_scores(path):
    with open(path, newline="") as handle:
        return {row[0]: [float(v) for v in row[1:]] for row in csv.reader(handle) if row[0] != "metric"}


def test_popularity_on_the_fixture_gives_the_hand_computed_table(protocol_files, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["cpcd", "--dialogs", str(protocol_files["dialogs"]), "--tracks", str(protocol_files["tracks"]),
                 "--retriever", "popularity", "--train", str(protocol_files["train"]), "--k", "1,5",
                 "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    scores = read_scores(out / "scores.csv")
    assert list(scores) == ["hit@1", "counts", "hit@5", "map@1", "map@5", "mrr@1", "mrr@5",
                            "precision@1", "precision@5", "recall@1", "recall@5"]  # the evaluator's row order
    for name, (macro, micro) in EXPECTED.items():
        assert scores[name][:2] == pytest.approx([macro, micro], abs=5.1e-5), name  # four decimals
    # counts: 4 conversations, 8 scored turns (d2's last two skipped), 4 / 3 / 1 reach turns 0 / 1 / 2
    assert scores["counts"] == [4, 8, 4, 3, 1, 0, 0, 0, 0, 0, 0, 0]
    assert scores["hit@1"][2:5] == [TURN_0_HIT_1, 0.0, 0.0]
    report = json.loads((out / "run.json").read_text())
    rows = {row["name"]: row for row in report["metrics"]}
    for name, (macro, micro) in EXPECTED.items():
        assert rows[name]["macro"] == pytest.approx(macro) and rows[name]["micro"] == pytest.approx(micro), name
        low, high = rows[name]["macro_ci"]
        assert low <= rows[name]["macro"] <= high
    assert report["settings"]["retriever_settings"] == {"liked_tracks_in_train": 6, "liked_candidates": 6}
    printed = capsys.readouterr().out
    assert "4 conversations, 8 scored turns" in printed and "0.2083" in printed  # hit@1 macro, 5/24


def test_turn_tasks_seed_the_first_three_likes_per_turn_by_cluster():
    cluster_of = {"a1": "cA", "a2": "cA", "b": "cb", "c": "cc", "d": "cd"}
    tasks = turn_tasks([["a1", "b", "c", "d"], [], ["b"]], ["a2", "b", "d", "x"], cluster_of)
    assert tasks == [TurnTask(0, frozenset(), ("cA", "cb", "cd", "track:x")),
                     TurnTask(1, frozenset({"cA", "cb", "cc"}), ("cd", "track:x")),
                     TurnTask(2, frozenset({"cA", "cb", "cc"}), ("cd", "track:x"))]
    assert turn_tasks([["a1"], ["b"]], ["a2"], cluster_of) == [TurnTask(0, frozenset(), ("cA",))]
    assert turn_tasks([["a1"]], [], cluster_of) == []
    assert clusters(["a1", "y", "a2", "y", "b"], cluster_of) == ["cA", "track:y", "cb"]


def test_a_ranking_is_deduplicated_and_stripped_of_seeds_before_the_cut():
    cluster_of = {"a1": "cA", "a2": "cA", "b": "cb", "c": "cc", "d": "cd", "e": "ce"}
    task = TurnTask(1, frozenset({"cb"}), ("cc", "ce"))
    # a2 repeats a1's cluster, b is a seed: the top 2 are then A and c
    values = score_ranking(["a1", "a2", "b", "c", "d", "e"], task, cluster_of, [2, 4])
    assert values == {"hit@2": 1.0, "hit@4": 1.0, "map@2": 0.25, "map@4": (1 / 2 + 2 / 4) / 2,
                      "mrr@2": 0.5, "mrr@4": 0.5, "precision@2": 0.5, "precision@4": 0.5,
                      "recall@2": 0.5, "recall@4": 1.0}
    with pytest.raises(ValueError, match="fewer than k = 5"):
        score_ranking(["a1", "a2", "b", "c", "d", "e"], task, cluster_of, [5])
    assert turn_metrics(["x", "y"], ["z"], [2])["map@2"] == 0.0


def test_macro_averages_conversations_micro_averages_turns_and_turn_columns_stop_at_ten():
    aggregate = Aggregate((1,))
    aggregate.add([turn_metrics(["g"], ["g"], [1])] * 12)  # 12 scored turns, all hits
    aggregate.add([turn_metrics(["x"], ["g"], [1])])  # 1 scored turn, a miss
    aggregate.add([])  # nothing scored: not counted
    macro, micro, turns = aggregate.row("hit@1")
    assert (macro, micro) == (0.5, 12 / 13)
    assert turns[0] == 0.5 and turns[1:] == [1.0] * 9 and len(turns) == 10
    assert aggregate.counts() == (2, 13, [2] + [1] * 9)
    assert running_mean([0.0125] * 3 + [0.0375]) == pytest.approx(0.01875)
