"""The LLM step report: real inputs captured from an offline run, every outcome classified from
the calls a real HTTP server on 127.0.0.1 answered."""

from __future__ import annotations

import json

from agents.llm import backends
from agents.steps.base import capture_steps
from openai_stub_server import Reply, crsim_responder, first_n, openai_stub  # noqa: F401
from simulators.offline.llm_steps import collect_inputs, measure_step, step_report

SMALL = ["environment.world.n_items=200", "environment.world.n_users=80", "environment.world.min_reviews_per_item=4",
         "environment.target_pool_size=20"]


def test_capture_sees_the_inputs_of_every_run_step():
    import asyncio

    from agents.steps.seeker.summarize import SummarizeInput, SummarizeReviewsStep

    step = SummarizeReviewsStep(None)
    with capture_steps() as captured:
        asyncio.run(step.run(SummarizeInput(("Great food.", "Loud room."), "restaurants")))
    assert captured == [(step, SummarizeInput(("Great food.", "Loud room."), "restaurants"))]


def test_report_classifies_first_try_repair_and_fallback(openai_stub):
    inputs = collect_inputs(["single_target"], per_step=2, overrides=SMALL)
    assert {"seeker_answer", "clarify_question"} <= set(inputs) and all(len(v) <= 2 for v in inputs.values())
    import asyncio

    def llm():  # a client per event loop: an async client is bound to the loop it first ran on
        return backends.openai("stub-model", base_url=openai_stub.url, timeout=5, max_retries=0)

    openai_stub.responder = crsim_responder()
    good = asyncio.run(measure_step("clarify_question", inputs["clarify_question"], llm()))
    assert good.inputs == len(inputs["clarify_question"]) and good.first_try == good.inputs and good.fell_back == 0

    openai_stub.responder = first_n(1, Reply(content="no json here"), crsim_responder())
    repaired = asyncio.run(measure_step("clarify_question", inputs["clarify_question"][:1], llm()))
    assert (repaired.first_try, repaired.after_repair, repaired.fell_back) == (0, 1, 0) and repaired.calls == 2

    openai_stub.responder = lambda _request: Reply(content="still no json")
    broken = asyncio.run(measure_step("clarify_question", inputs["clarify_question"][:1], llm()))
    assert broken.fell_back == 1 and broken.row()["fell_back"] == 1.0


def test_the_whole_report_names_what_it_could_not_exercise(openai_stub):
    llm = backends.openai("stub-model", base_url=openai_stub.url, timeout=5, max_retries=0)
    results, missing = step_report(llm, sources=["single_target"], per_step=1, overrides=SMALL)
    assert {r.step for r in results} >= {"seeker_answer", "summarize_reviews"}
    assert "crag_rerank" in missing and "seeker_answer" not in missing
    assert json.dumps([r.row() for r in results])  # rows are plain JSON


def test_the_pick_check_reads_names_as_the_curator_does():
    from agents.steps.playlist.steps import PickInput, Picks
    from environments.base import ItemCard
    from simulators.offline.llm_steps import CHECKS

    shown = [ItemCard("t1", "Blue Moon", "", {"artist": "A"}), ItemCard("t2", "Red Sky", "", {"artist": "B"})]
    inputs = PickInput(dialogue=(), playlist=(), shown=shown, count=2, fallback=Picks(response="ok"))
    check = CHECKS["playlist_pick"]
    assert check(None, Picks(add=["1", "Red Sky"], response="here"), inputs) is True
    assert check(None, Picks(add=["Green Field"], response="here"), inputs) is False


def test_the_judges_are_fed_from_the_run_though_no_offline_run_calls_them():
    inputs = collect_inputs(["single_target"], per_step=3, overrides=SMALL)
    assert "judge" not in inputs  # only the pepper source feeds them
    from simulators.offline import llm_step_inputs

    captured: list = []
    setup, episodes = llm_step_inputs.run_offline(["recommender=bm25", "seeker=target_biased", *SMALL], 3, 2, 0)
    llm_step_inputs._judges(setup, episodes, captured)
    names = [llm_step_inputs.step_name(step) for step, _ in captured]
    assert names.count("judge") == 3 and names.count("judge_relevance") == 3
    criteria = {step.criterion for step, _ in captured if llm_step_inputs.step_name(step) == "judge"}
    assert len(criteria) == 3  # the criteria taken in turn, not one of them three times
    relevance = next(i for s, i in captured if s.name == "judge_relevance")
    assert relevance.response and not relevance.dialogue.endswith(relevance.response)


def test_a_link_reflection_passes_only_when_it_picks_the_title_the_name_was_made_from():
    from agents.steps.crag.entity_linking import LinkCandidates
    from agents.steps.crag.steps import LinkDecision, LinkDecisions, ReflectLinksInput
    from environments.search.titles import TitleMatch
    from simulators.offline import llm_step_checks, llm_step_inputs

    titles = ["Alien (1979)", "Aliens (1986)"]
    found = LinkCandidates("alien", fuzzy=TitleMatch(0, "alien", 90.0), bm25=TitleMatch(1, "aliens", 5.0))
    inputs = ReflectLinksInput("I loved alien.", [found], titles, "movies")
    llm_step_checks.TRUE_TITLES[id(inputs)] = ["Alien (1979)"]
    check = llm_step_checks.CHECKS["crag_link_reflect"]
    assert check(None, LinkDecisions(decisions=[LinkDecision(name="alien", method="fuzzy")]), inputs) is True
    assert check(None, LinkDecisions(decisions=[LinkDecision(name="alien", method="bm25")]), inputs) is False
    assert check(None, LinkDecisions(decisions=[LinkDecision(name="alien", method="none")]), inputs) is False
    assert llm_step_inputs._as_people_write("The Big Sleep (1946)") == ["big sleep", "big slep"]


def test_steps_an_offline_run_bypasses_are_still_captured():
    """The playlist seeker's rule-based turns and a snippet cache hit hand their inputs to the report."""
    from agents.recommenders.sniprec.units import SnippetCache
    from agents.steps.sniprec.snippets import ItemSnippetStep
    from environments.models import Review

    reviews = [Review(id="r1", item_id="i1", user_id="u1", rating=5, text="Great food. Quiet room.")]
    with capture_steps() as captured:
        SnippetCache(ItemSnippetStep(None)).extract(reviews, "restaurant", {"i1": "Place 1"}, {}, progress=False)
    assert [(s.name, i.review) for s, i in captured] == [("snippet_item", "Great food. Quiet room.")]
    with capture_steps() as again:  # a cache hit: the step does not run, the input is still seen
        SnippetCache(ItemSnippetStep(None)).extract(reviews, "restaurant", {"i1": "Place 1"}, {}, progress=False)
    assert len(again) == 1


def test_a_clarifying_question_about_a_candidate_fails_its_check():
    from agents.steps.recommender.clarify import ClarifyingQuestion, ClarifyInput
    from environments.models import Item
    from simulators.offline.llm_steps import CHECKS

    candidates = [Item(id="i05", title="Place 05"), Item(id="i07", title="Golden Supper Club")]
    inputs = ClarifyInput(dialogue=(), candidates=candidates, asked_aspects=(), item_noun="restaurants", turn=1)
    check = CHECKS["clarify_question"]
    assert check(None, ClarifyingQuestion(question="What cuisine do you feel like?"), inputs) is True
    assert check(None, ClarifyingQuestion(question="What is the cuisine of Place 05?"), inputs) is False
    assert check(None, ClarifyingQuestion(question="Is the golden supper club cheap?"), inputs) is False
    assert check(None, ClarifyingQuestion(question="Tell me your budget."), inputs) is False


def test_generated_titles_pass_only_when_the_catalog_has_them():
    from agents.steps.crag.steps import RecommendInput, Titles
    from simulators.offline import llm_step_checks

    inputs = RecommendInput((), (), "none", 2, "movies", ("Ember Falls X (2001)",))
    llm_step_checks.CATALOG_TITLES[id(inputs)] = frozenset({llm_step_checks.bare_title("Ember Falls X (2001)")})
    check = llm_step_checks.CHECKS["crag_infer"]
    assert check(None, Titles(titles=["ember falls x"]), inputs) is True
    assert check(None, Titles(titles=["Ember Falls X", "The Shawshank Redemption"]), inputs) is False
    assert check(None, Titles(titles=[]), inputs) is False


def test_a_reflection_passes_when_seen_items_get_the_reaction_their_rating_says():
    from types import SimpleNamespace

    from agents.steps.pepper.reflect import ItemReaction, Reflection
    from simulators.offline.llm_steps import CHECKS

    inputs = SimpleNamespace(own_reviews={"m1": (5.0, "Loved it."), "m2": (1.0, "Awful."), "m3": (3.0, "Fine.")})
    check = CHECKS["pepper_reflect"]

    def reflection(**reactions):
        return Reflection(reactions=[ItemReaction(item_id=i, seen=True, reaction=r, reason="")
                                     for i, r in reactions.items()])

    assert check(None, reflection(m1="like", m2="dislike", m3="dislike"), inputs) is True  # a 3 may go either way
    assert check(None, reflection(m1="dislike", m2="dislike"), inputs) is False
    assert check(None, reflection(m4="like"), inputs) is None  # nothing seen was shown
