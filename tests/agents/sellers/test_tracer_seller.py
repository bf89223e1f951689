"""The TRACER seller and customer together through the orchestrator, offline."""

from __future__ import annotations

from crsim_testing import run_shopping_offline as run_offline
from crsim_testing import small_shopping_setup as small_setup

from environments.models import TerminationReason


def test_every_episode_ends_in_a_purchase_of_a_fitting_product():
    setup = small_setup()
    episodes = run_offline(setup, 12)
    for episode in episodes:
        assert episode.error is None and episode.termination is TerminationReason.purchased
        final = episode.profile["final_product"]
        prefs = episode.profile["preference"]
        wanted = {f["aspect"]: f["value"] for f in prefs["features"] if f["interest"] == "wanted"}
        unwanted = {f["aspect"]: f["value"] for f in prefs["features"] if f["interest"] == "unwanted"}
        assert setup.shop.satisfies(setup.catalog.item_index[final], wanted, unwanted)
        assert episode.turns[0].role == "customer" and prefs["category"] in episode.turns[0].text
        seller = [t for t in episode.turns if t.role == "seller"]
        rec = next(k for k, t in enumerate(seller) if t.metadata["mode"] == "recommend")
        assert len(seller) - rec <= 3 and seller[-1].metadata["close"]  # closes within three seller turns
        asked = [a for t in seller for a in t.metadata["asked"]]
        planned = [a["aspect"] for step in episode.profile["plan"] for a in step["aspects"]]
        assert set(asked) == set(planned)  # it asks exactly the planned aspects
        assert all(len(t.metadata["asked"]) <= 2 for t in seller)
        for turn in seller:  # hints are named in the question
            if turn.metadata["mode"] == "ask":
                assert any(word in turn.text for word in ("options", "choices", "pick", "choose", "such as",
                                                          "we have"))


def test_the_customer_asks_what_aspects_mean_and_the_seller_explains_then_reasks():
    episodes = run_offline(small_setup(), 4, question_rate=1.0)
    for episode in episodes:
        assert episode.termination is TerminationReason.purchased
        turns = episode.turns
        questions = [k for k, t in enumerate(turns) if t.role == "customer" and t.metadata.get("question")]
        assert questions
        for k in questions:
            aspect = turns[k].metadata["question"]
            assert aspect not in turns[k].metadata["expressed"] and "?" in turns[k].text
            assert turns[k + 1].metadata["mode"] == "explain" and turns[k + 1].metadata["asked"] == [aspect]
            later = [t for t in turns[k + 2:] if t.role == "customer"]
            assert aspect in later[0].metadata["expressed"]  # answered after the explanation
        assert len({turns[k].metadata["question"] for k in questions}) == len(questions)  # never twice


def test_offline_transcripts_are_deterministic_and_phrase_banks_differ():
    setup = small_setup()
    first = [e.model_dump_json() for e in run_offline(setup, 3)]
    assert first == [e.model_dump_json() for e in run_offline(setup, 3)]
    other = run_offline(setup, 3, bank="b")
    texts_a = {t.text for e in run_offline(setup, 3) for t in e.turns}
    texts_b = {t.text for e in other for t in e.turns}
    assert not texts_a & texts_b
    # same preferences and plans either way: only the wording changes
    assert [e.profile["plan"] for e in other] == [e.profile["plan"] for e in run_offline(setup, 3)]
