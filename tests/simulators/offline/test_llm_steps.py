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

    from agents.steps.summarize import SummarizeInput, SummarizeReviewsStep

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
    assert "judge" in missing and "seeker_answer" not in missing
    assert json.dumps([r.row() for r in results])  # rows are plain JSON


def test_the_pick_check_reads_names_as_the_curator_does():
    from agents.steps.playlist import PickInput, Picks
    from environments.base import ItemCard
    from simulators.offline.llm_steps import CHECKS

    shown = [ItemCard("t1", "Blue Moon", "", {"artist": "A"}), ItemCard("t2", "Red Sky", "", {"artist": "B"})]
    inputs = PickInput(dialogue=(), playlist=(), shown=shown, count=2, fallback=Picks(response="ok"))
    check = CHECKS["playlist_pick"]
    assert check(Picks(add=["1", "Red Sky"], response="here"), inputs) is True
    assert check(Picks(add=["Green Field"], response="here"), inputs) is False
