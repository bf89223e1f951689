"""CQG and CPR on offline TRACER episodes: the extractor beats the baseline, and both are scored
against the plan's true stances, never against what the extractor saw."""

from __future__ import annotations

from crsim_testing import HashEncoder, run_shopping_offline, small_shopping_setup

from agents.steps.tracer.query import AspectValue, ShoppingQuery
from simulators.evaluators.shopping import ShoppingEvaluator, exact_f1, gold_query, linearise, query_items, search_turns


def test_gold_query_items_and_linearisation():
    query = ShoppingQuery(category="mugs", wanted=[AspectValue(aspect="color", value="Red")],
                          unwanted=[AspectValue(aspect="size", value="large")], optional=["lid"])
    assert query_items(query) == {"category=mugs", "+color=red", "-size=large", "?lid"}
    assert linearise(query) == "category mugs. wanted: color Red. unwanted: size large. optional: lid."
    assert exact_f1({"a", "b"}, {"b", "c"}) == 0.5 and exact_f1(set(), {"a"}) == 0.0


def test_cqg_and_cpr_on_offline_dialogues(tmp_path):
    setup = small_shopping_setup()
    episodes = run_shopping_offline(setup, 16)
    for episode in episodes:
        gold = gold_query(episode)
        planned = {a["aspect"] for s in episode.profile["plan"] for a in s["aspects"]}
        assert {v.aspect for v in gold.wanted + gold.unwanted} | set(gold.optional) == planned
        cut = search_turns(episode)
        title = setup.catalog.item(episode.profile["final_product"]).title
        assert title not in " ".join(t.text for t in cut) and title in episode.turns[len(cut)].text
        assert not any(t.items_shown for t in cut)
    evaluator = ShoppingEvaluator(encoder=HashEncoder(), cache_dir=str(tmp_path))
    frame = evaluator.evaluate(episodes, setup)
    cqg = frame[frame.task == "CQG"].set_index("source")
    assert cqg.loc["extracted query", "F1"] > 0.7 > cqg.loc["full dialogue", "F1"]
    assert cqg.loc["extracted query", "R-L"] > cqg.loc["full dialogue", "R-L"]
    cpr = frame[(frame.task == "CPR")].set_index(["source", "ranker", "relevant"])
    assert set(cpr.index.get_level_values("ranker")) == {"BM25", "dense"} and (cpr.n == 16).all()
    assert cpr.loc[("extracted query", "BM25", "result family"), "MRR"] > \
        cpr.loc[("full dialogue", "BM25", "result family"), "MRR"]
    family, final = (cpr.loc[("gold query", "BM25", kind)] for kind in ("result family", "final product"))
    assert family["MRR"] >= final["MRR"] and family["H@100"] >= final["H@100"]  # a superset of relevant items
    assert ((cpr.MRR > 0) & (cpr.MRR <= 1) & (cpr["H@1"] <= cpr["H@10"]) & (cpr["H@10"] <= cpr["H@100"])).all()
    lines = evaluator.summary_lines(frame)
    assert any(line.startswith("CPR full dialogue, BM25: MRR ") for line in lines)
    assert any(line.startswith("CPR extracted query, BM25: MRR ") for line in lines)


def test_the_second_phrase_bank_costs_the_offline_extractor(tmp_path):
    setup = small_shopping_setup()
    scores = {}
    for bank in ("a", "b"):
        frame = ShoppingEvaluator(dense=False, cache_dir=str(tmp_path)).evaluate(
            run_shopping_offline(setup, 12, bank=bank), setup)
        scores[bank] = frame[(frame.task == "CQG") & (frame.source == "extracted query")].F1.iloc[0]
    assert scores["b"] < scores["a"]
