"""SnipRec's offline snippet steps: what a review and an answer become."""

from __future__ import annotations

import asyncio

from agents.steps.sniprec.snippets import (
    ExpandInput, ExpandStep, QuerySnippet, QuerySnippetInput, QuerySnippets, QuerySnippetStep, clauses, expanded,
    offline_item_snippets, offline_query_snippets,
)
from agents.steps.text import singular


def texts(snippets):
    return [s.text for s in snippets]


def test_a_review_becomes_canonical_statements_one_per_clause():
    found = offline_item_snippets("The cozy dining room made us linger. We ordered the duck ramen.", "restaurant")
    assert texts(found) == ["This restaurant has cozy dining room linger.",
                            "This restaurant has ordered duck ramen."]
    assert not any(s.negated for s in found)


def test_what_an_item_lacks_is_a_negated_snippet():
    for review in ("There's no elegant dining room here, in case you were wondering.",
                   "Anyone looking for a local hangout vibe will be disappointed.",
                   "Don't come expecting harbor views."):
        [snippet] = offline_item_snippets(review, "restaurant")
        assert snippet.negated and snippet.text.startswith("This restaurant does not have"), review


def test_a_contrast_is_cut_into_a_lacking_and_a_having_statement():
    found = offline_item_snippets("If you're after cheerful chatter, look elsewhere; this is more about the "
                                  "quiet room.", "restaurant")
    assert [(s.text, s.negated) for s in found] == [("This restaurant does not have cheerful chatter.", True),
                                                  ("This restaurant has quiet room.", False)]


def test_aspects_come_from_the_given_terms_and_sentiment_from_vader():
    [good] = offline_item_snippets("The servers were wonderful and kind.", "restaurant", {"servers": "service"})
    [bad] = offline_item_snippets("The servers were rude and awful.", "restaurant", {"servers": "service"})
    assert good.aspect == bad.aspect == "service"
    assert good.sentiment > 0.3 and bad.sentiment < -0.3


def test_answers_become_signed_query_snippets():
    assert [(q.text, q.preference) for q in offline_query_snippets(
        "I'd love some pizza, but I want to avoid noisy places.", "restaurant")] == [
        ("This restaurant has pizza.", "prefer"), ("This restaurant has noisy places.", "dislike")]
    assert [(q.text, q.sign) for q in offline_query_snippets("Anything but loud, please.", "restaurant")] == [
        ("This restaurant has loud.", -1)]
    assert [(q.text, q.sign) for q in offline_query_snippets("Nothing too pricey.", "restaurant")] == [
        ("This restaurant has pricey.", -1)]
    assert [(q.text, q.sign) for q in offline_query_snippets("Mostly I care about no-fuss counter seating.",
                                                              "restaurant")] == [
        ("This restaurant has no-fuss counter seating.", 1)]  # a "no-" compound is an adjective


def test_an_answer_without_a_preference_gives_no_query_snippet():
    for answer in ("Hmm, I'm not sure, to be honest.", "Not fussed about that.", "I think I mentioned that already."):
        assert offline_query_snippets(answer, "restaurant") == [], answer
    assert texts(offline_query_snippets("Not fussed about that. Somewhere snug and warm.", "restaurant")) == [
        "This restaurant has snug warm."]


def test_known_intents_are_not_repeated():
    step = QuerySnippetStep()
    answer = "Somewhere snug. Also vegan food."
    out = asyncio.run(step.run(QuerySnippetInput("Anything else?", answer, "restaurant",
                                                 known=("This restaurant has snug.",))))
    assert texts(out.snippets) == ["This restaurant has vegan food."]


def test_expansion_adds_paraphrase_support_and_a_flipped_opposite():
    query = QuerySnippet(text="This restaurant has harbor views.")
    step = ExpandStep()
    neighbours = [("This restaurant has harbor views.", 1.0), ("This restaurant has waterfront terrace.", 0.7)]
    expansion = asyncio.run(step.run(ExpandInput(query, "restaurant", ("paraphrase", "support", "opposite"),
                                                 neighbours)))
    assert expansion.paraphrase == "harbor views"
    assert expansion.support == "This restaurant has waterfront terrace."  # not the near copy
    out = expanded(query, expansion)
    assert [(q.text, q.sign, q.negated) for q in out] == [
        ("This restaurant has harbor views.", 1, False), ("harbor views", 1, False),
        ("This restaurant has waterfront terrace.", 1, False),
        ("This restaurant does not have harbor views.", -1, True)]
    only_opposite = asyncio.run(step.run(ExpandInput(query, "restaurant", ("opposite",), neighbours)))
    assert only_opposite.paraphrase is None and only_opposite.support is None and only_opposite.opposite


def test_clause_cutting_and_nouns():
    assert clauses("Anything but loud. Good food but slow service") == ["Anything but loud", "Good food",
                                                                       "slow service"]
    assert [singular(n) for n in ("restaurants", "movies", "businesses", "glass")] == [
        "restaurant", "movie", "business", "glass"]


def test_model_statements_the_answer_does_not_ground_are_dropped():
    """The prompt's own examples (cozy, noisy) copied into an answer that said neither."""
    inputs = QuerySnippetInput("Where?", "For me it's about a downtown location, nothing too loud.", "restaurant",
                               known=("This restaurant is in the city centre.",))
    answer = QuerySnippets(snippets=[
        QuerySnippet(text="This restaurant has a cozy atmosphere."),
        QuerySnippet(text="This restaurant is noisy.", preference="dislike"),
        QuerySnippet(text="This restaurant is downtown."),
        QuerySnippet(text="This restaurant is loud.", preference="dislike"),
        QuerySnippet(text="This restaurant is in the city centre."),
    ])
    kept = QuerySnippetStep().accept(answer, inputs)
    assert [s.text for s in kept.snippets] == ["This restaurant is downtown.", "This restaurant is loud."]
