"""The rule-based CQG extractor reads stances from the dialogue and the catalog vocabulary."""

from __future__ import annotations

from agents.steps.tracer.query import QueryInput, extract_offline
from environments.models import Turn

VALUES = {"lipstick": {"color": ["red", "nude", "dynamite red"], "finish_type": ["matte", "glossy"],
                       "brand": ["rougeva", "gocheapo"], "waterproof": ["yes", "no"]},
          "shampoo": {"scent": ["coconut"]}}


def dialogue(*texts: str) -> tuple[Turn, ...]:
    return tuple(Turn(index=k, role="customer" if k % 2 == 0 else "seller", text=t) for k, t in enumerate(texts))


def extract(*texts: str):
    return extract_offline(QueryInput(dialogue(*texts), tuple(VALUES), VALUES))


def test_category_values_negation_and_indifference_from_generic_cues():
    query = extract(
        "Hi, I want a lipstick.", "Which color? We have red, nude or dynamite red.",
        "Dynamite red please.", "And the brand and finish type? Rougeva, Gocheapo; matte or glossy.",
        "I would never buy Gocheapo. The finish type does not matter to me.",
        "Should it be waterproof?", "No preference on waterproof. What is matte?", "Great, the Rougeva Red.")
    assert query.category == "lipstick"
    assert [(v.aspect, v.value) for v in query.wanted] == [("color", "dynamite red")]  # longest value wins
    assert [(v.aspect, v.value) for v in query.unwanted] == [("brand", "gocheapo")]
    assert sorted(query.optional) == ["finish_type", "waterproof"]  # questions are not statements


def test_flag_values_need_their_aspect_and_later_statements_override():
    query = extract("I need lipstick.", "Waterproof?", "waterproof: no.", "Colour?", "Red. Actually, not red.")
    assert [(v.aspect, v.value) for v in query.wanted] == [("waterproof", "no")]
    assert [(v.aspect, v.value) for v in query.unwanted] == [("color", "red")]
    assert extract("lipstick", "Hmm?", "no").wanted == []  # a bare "no" names no aspect


def test_wording_outside_its_cues_is_missed():
    # "keep ... out of it" carries no generic negation cue: read as wanted (the second phrase bank shows this)
    query = extract("Lipstick for me.", "Which brand?", "Please keep Gocheapo out of it.")
    assert [(v.aspect, v.value) for v in query.wanted] == [("brand", "gocheapo")] and not query.unwanted
