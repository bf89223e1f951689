"""The TRACER customer answers per its preference, including aspects its product lacks."""

from __future__ import annotations

import asyncio

from agents.customers.tracer import build
from environments.models import Turn
from environments.shopping.preference import Feature, Interest, Preference
from environments.shopping.views import CustomerView


def view(asked: tuple[str, ...], dialogue: tuple[Turn, ...] = (Turn(index=0, role="customer", text="Hi"),
                                                               Turn(index=1, role="seller", text="Which?"))):
    preference = Preference(category="mugs", product_id="m1", features=[
        Feature(aspect="color", value="red", interest=Interest.wanted),
        Feature(aspect="material", value="glass", interest=Interest.unwanted),
        Feature(aspect="size", interest=Interest.optional)])
    return CustomerView(2, dialogue, preference, asked, None, 7)


def test_answers_state_each_stance_and_the_tracker_reports_them():
    agent = build(question_rate=0.0)
    move, _ = asyncio.run(agent.respond(view(("color", "material")), agent.init_state(view(()))))
    assert "red" in move.text and "glass" in move.text and set(move.expressed) == {"color", "material"}
    assert move.metadata["stances"] == {"color": "wanted", "material": "unwanted"}


def test_an_aspect_the_product_lacks_gets_no_preference():
    agent = build(question_rate=0.0)
    move, _ = asyncio.run(agent.respond(view(("lid",)), {}))
    assert "lid" in move.text and move.expressed == ("lid",) and move.metadata["stances"] == {"lid": "optional"}


def test_opening_names_the_category_and_questions_are_remembered():
    agent = build(question_rate=1.0)
    opening, _ = asyncio.run(agent.respond(view((), ()), {}))
    assert "mugs" in opening.text and not opening.expressed
    move, state = asyncio.run(agent.respond(view(("color",)), {}))
    assert move.question == "color" and move.expressed == () and state["questioned"] == ["color"]
    again, _ = asyncio.run(agent.respond(view(("color",)), state))
    assert again.question is None and again.expressed == ("color",)
