"""TRACER's language steps through a real OpenAI-compatible server on 127.0.0.1.

The stub recognises each shopping prompt by its system message (`STEP_MARKERS`) and
answers with the JSON the step expects (`SCRIPTED`); the tracker's answer is computed
from the prompt, as a model reading it would, so episodes still converge.
"""

from __future__ import annotations

import asyncio
import json
import re

from crsim_testing import run_shopping_offline, small_shopping_setup
from openai_stub_server import Reply, crsim_responder

from agents.llm import backends
from agents.steps.tracer.dialogue import (
    CustomerUtteranceInput,
    CustomerUtteranceStep,
    MentionedFeatures,
    SellerUtteranceInput,
    SellerUtteranceStep,
    Stance,
    TrackInput,
    TrackStateStep,
    Utterance,
    seller_task,
    stance_worded,
)
from agents.steps.tracer.single_pass import PlannedFeature, SinglePassInput, SinglePassStep
from environments.models import TerminationReason
from simulators.evaluators.shopping import ShoppingEvaluator


def echo_tracker(request: dict) -> str:
    """Say every listed remaining feature was mentioned (the customer's STUB names them all)."""
    prompt = request["messages"][-1]["content"]
    block = prompt.split("Remaining features", 1)[1]
    return json.dumps({"mentioned": re.findall(r"^(?:<<<)?- ([a-z_ ]+):", block, flags=re.MULTILINE)})  # fenced data


def echo_task(request: dict) -> str:
    """Word the move as the prompt states it (`Your next message must: <<<...>>>`)."""
    task = re.search(r"Your next message must: <<<(.*?)>>>", request["messages"][-1]["content"], flags=re.S)
    said = re.sub(r" \(the product has: .*\)$", "", task.group(1))  # a copied feature list is refused
    return json.dumps({"utterance": f"STUB: {said}."})


def model(stub):
    return backends.openai("stub-model", base_url=stub.url, timeout=5, max_retries=0)


def test_seller_customer_and_tracker_talk_through_the_server(openai_stub):
    openai_stub.responder = crsim_responder({"shopping_track_state": echo_tracker, "shopping_seller": echo_task,
                                             "shopping_customer": echo_task})
    setup = small_shopping_setup()
    episode = run_shopping_offline(setup, 1, llm=model(openai_stub), question_rate=0.0)[0]
    assert episode.error is None and episode.termination is TerminationReason.purchased
    steps = {c.step for c in episode.llm_calls}
    assert steps == {"shopping_seller", "shopping_customer", "shopping_track_state"}
    assert all(c.ok for c in episode.llm_calls) and openai_stub.count == len(episode.llm_calls)
    seller = [t.text for t in episode.turns if t.role == "seller"]
    assert all(text.startswith("STUB: ") for text in seller) and seller[0].startswith("STUB: ask the customer what")
    final = episode.profile["final_product"]
    assert episode.evaluations[-1].item_set.items == [final]  # the plan still converged on a fitting product


def test_a_tracker_that_hears_nothing_keeps_the_aspects_pending(openai_stub):
    """Wanted and unwanted values the tracker does not hear stay pending (an aspect the customer
    does not care about and names is heard anyway: the tracker's check)."""
    setup = small_shopping_setup()
    episode = run_shopping_offline(setup, 1, llm=model(openai_stub), question_rate=0.0, max_turns=4)[0]
    assert episode.termination is TerminationReason.max_turns  # nothing decisive revealed: no recommendation
    customer = [t.metadata for t in episode.turns if t.role == "customer"]
    decisive = {a for m in customer for a, interest in (m.get("stances") or {}).items() if interest != "optional"}
    heard = {a for m in customer for a in m.get("expressed") or []}
    assert decisive and not heard & decisive


def test_a_repeated_or_off_topic_move_is_refused_and_worded_offline(openai_stub):
    """The default stub says one thing every time (the customer's prompt, naming the seller,
    gets the seller's line): the seller's question repeats the customer's opening or names no
    aspect, the customer's answer states no stance or repeats itself; each is asked once more
    and then worded offline, so the dialogue still moves on."""
    setup = small_shopping_setup()
    episode = run_shopping_offline(setup, 1, llm=model(openai_stub), question_rate=0.0, max_turns=3)[0]
    seller = [c for c in episode.llm_calls if c.step == "shopping_seller"]
    assert not any(c.ok for c in seller) and all("you copied a message" in c.error or "must ask" in c.error for c in seller)
    customer = [c for c in episode.llm_calls if c.step == "shopping_customer"]
    assert customer[0].ok  # the opening states nothing to check
    assert customer[1:] and not any(c.ok for c in customer[1:])
    assert not any("STUB" in t.text for t in episode.turns[1:])


def test_stances_are_worded_by_value_and_the_tracker_reads_display_names():
    price = Stance("price", "wanted", "between $60 and $120")
    wireless = Stance("wireless_charging", "wanted", "yes")
    color = Stance("color", "optional")
    assert stance_worded("Something between $60 and $120, please.", price)
    assert not stance_worded("The price doesn't matter to me.", price)  # the aspect, the wrong stance
    assert stance_worded("Something in the $60 to $120 range.", price)  # a numeric value by its numbers
    assert not stance_worded("Around $60, please.", price)
    review = Stance("customer_review", "wanted", "higher than 4 stars")
    assert stance_worded("A rating of 4 stars or more.", review) and not stance_worded("4.5 stars, please.", review)
    assert stance_worded("I'd like wireless charging.", wireless) and stance_worded("Any color is fine.", color)
    step, inputs = TrackStateStep(), TrackInput("The wireless charging doesn't matter.", (wireless, color))
    assert "- wireless charging: wants yes" in step.prompt_variables(inputs)["remaining"]
    heard = step.accept(MentionedFeatures(mentioned=["Wireless charging", "size"]), inputs)
    assert heard.mentioned == ["wireless_charging"]


def test_broken_answers_fall_back_to_the_offline_wording(openai_stub):
    openai_stub.responder = crsim_responder({"shopping_seller": lambda _r: Reply(content="not json at all {")})
    setup = small_shopping_setup()
    episode = run_shopping_offline(setup, 1, llm=model(openai_stub), question_rate=0.0, max_turns=2)[0]
    failed = [c for c in episode.llm_calls if c.step == "shopping_seller"]
    assert failed and not any(c.ok for c in failed)
    assert all(t.text and "STUB" not in t.text for t in episode.turns if t.role == "seller")


def test_single_pass_and_query_extraction_through_the_server(openai_stub):
    step = SinglePassStep(model(openai_stub))
    features = [PlannedFeature("color", "wanted", "red", ("red", "nude"), 0)]
    script = asyncio.run(step.run(SinglePassInput("lipstick", features, "Rougeva Red Lipstick", {}, 3)))
    assert [t.text for t in script.turns][:2] == ["STUB: I need a lipstick.", "STUB: which colour?"]
    assert [t.role for t in script.turns] == ["customer", "seller"] * 2 + ["customer"]
    assert sum(t.recommend for t in script.turns) == 1  # the last seller turn, as the title is not named


def test_single_pass_raises_the_token_cap_and_bounds_the_script(openai_stub):
    capped = backends.openai("stub-model", base_url=openai_stub.url, timeout=5, max_retries=0, max_tokens=256,
                             structured_output="json_schema")
    step = SinglePassStep(capped)
    features = [PlannedFeature("color", "wanted", "red", ("red", "nude"), 0)]
    asyncio.run(step.run(SinglePassInput("lipstick", features, "Rougeva Red Lipstick", {}, 3)))
    sent = openai_stub.completions[0].json
    assert sent["max_tokens"] == sent["max_completion_tokens"] == SinglePassStep.completion_tokens > 256
    schema = sent["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["turns"]["maxItems"] == 2 * len(features) + 6
    setup = small_shopping_setup()
    episodes = run_shopping_offline(setup, 3)
    before = openai_stub.count
    frame = ShoppingEvaluator(llm=model(openai_stub), dense=False).evaluate(episodes, setup)
    assert openai_stub.count - before == 3
    extracted = frame[(frame.task == "CQG") & (frame.source == "extracted query")].iloc[0]
    assert extracted.F1 < 0.5  # the stub's fixed answer is (mostly) wrong for beauty dialogues


def test_the_tracker_may_not_miss_an_aspect_the_customer_names_as_not_mattering():
    step = TrackStateStep()
    inputs = TrackInput("The form factor doesn't matter to me.", (Stance("form_factor", "optional"),
                                                                   Stance("price", "wanted", "under $50")))
    assert "does not care" in step.prompt_variables(inputs)["remaining"]
    assert "does not care about: form factor" in step.check(MentionedFeatures(mentioned=[]), inputs)
    assert step.check(MentionedFeatures(mentioned=["form factor"]), inputs) is None


def test_a_pasted_feature_list_or_talk_about_the_customer_is_refused_and_extra_wishes_dropped():
    details = "brand: Voltaro; capacity: 26800 mah"
    inputs = SellerUtteranceInput("recommend", (), "portable chargers", product="Voltaro Charger",
                                  product_details=details)
    step = SellerUtteranceStep()
    assert "the product has: brand: Voltaro" in seller_task(inputs)
    pasted = Utterance(utterance=f"I recommend the Voltaro Charger ({details}) because it fits.")
    assert "feature list" in step.check(pasted, inputs)
    third_person = Utterance(utterance="The Voltaro Charger fits the customer's budget.")
    assert '"you"' in step.check(third_person, inputs)
    assert step.check(Utterance(utterance="Try the Voltaro Charger: Voltaro, as you wanted."), inputs) is None
    customer = CustomerUtteranceStep()
    asked = CustomerUtteranceInput("answer", (), "headphones", stances=(Stance("brand", "optional"),))
    said = Utterance(utterance="I don't care about the brand. I just want good battery life.")
    assert customer.check(said, asked) is None
    assert customer.accept(said, asked).utterance == "I don't care about the brand."
