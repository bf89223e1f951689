"""The offline snippet extractor, scored against a small world's labelled reviews: floors on
what it must get right, so a regression in clause cutting or negation shows up here."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from agents.steps.sniprec.snippets import SnippetOut
from environments.worlds.cache import load_truth, load_world
from environments.worlds.truth import ReviewTruth
from simulators.offline.snippets import ExtractorScores, score_extractor, score_offline_extractor


@pytest.fixture(scope="module")
def scores(crsim_cache: Path) -> ExtractorScores:
    catalog = load_world("restaurant", n_items=150, n_users=80, min_reviews_per_item=4, seed=11, cache_dir=crsim_cache)
    _, reviews = load_truth(catalog.path)
    return score_offline_extractor(catalog, itertools.islice(reviews, 400))


def test_offline_extractor_reads_lacks_and_aspects(scores: ExtractorScores) -> None:
    assert scores.reviews == 400
    assert scores.lacking_recall >= 0.9                 # "there's no patio" is a negated snippet
    assert scores.negation_false_positive_rate <= 0.08  # "can't fault the service" is not
    assert scores.aspect_precision >= 0.85              # a named attribute key is the labelled one
    assert scores.aspect_recall >= 0.1                  # paraphrases without a catalog term stay unnamed


def test_scorer_counts_what_it_claims() -> None:
    review = ReviewTruth.model_validate({
        "review_id": "r1", "item_id": "i1", "user_id": "u1",
        "sentences": [
            {"text": "No patio here.", "kind": "lacking", "aspect": "location_style", "present": False},
            {"text": "Great sushi.", "kind": "plain", "aspect": "cuisine", "present": True},
            {"text": "It rained.", "kind": "chatter", "aspect": None, "present": True},
        ]})

    def extract(text: str) -> list[SnippetOut]:
        if "patio" in text:
            return [SnippetOut(text="This restaurant does not have patio.", aspect="location_style", negated=True)]
        if "sushi" in text:
            return [SnippetOut(text="This restaurant has sushi.", aspect="food", negated=True)]
        return []

    result = score_extractor(extract, [review], ["location_style", "cuisine"])
    assert result.aspect_recall == 0.5 and result.aspect_precision == 1.0
    assert result.lacking_recall == 1.0 and result.negation_false_positive_rate == 1.0
    assert result.chatter_kept == 0.0
