import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from agents.steps.seeker.summarize import SummarizeInput, SummarizeReviewsStep, tfidf_vectors

REVIEWS = [
    "The pasta was wonderful. We parked on the street. Service was slow tonight.",
    "Wonderful pasta, wonderful wine. My cousin had a birthday.",
    "The pasta is the reason to come. Cozy room.",
    "I loved the fresh pasta and the cozy room.",
]


def test_tfidf_matches_scikit_learn_similarities():
    sentences = ["The pasta was great great.", "Great pasta and wine.", "We parked outside.", "the of and"]
    reference = TfidfVectorizer(stop_words="english", sublinear_tf=True).fit_transform(sentences).toarray()
    ours = tfidf_vectors(sentences)
    assert np.allclose(reference @ reference.T, ours @ ours.T)


async def test_summary_keeps_what_reviewers_agree_on():
    out = await SummarizeReviewsStep().run(SummarizeInput(REVIEWS, "restaurants", max_sentences=2))
    assert "pasta" in out.summary.lower()
    assert "cousin" not in out.summary and "parked" not in out.summary


async def test_near_duplicates_are_skipped_and_length_capped():
    reviews = ["Great pasta here.", "Great pasta here!", "Great pasta here.", "Cozy room and great pasta."]
    out = await SummarizeReviewsStep().run(SummarizeInput(reviews, "restaurants", max_sentences=3))
    assert out.summary.count("Great pasta here") == 1
    empty = await SummarizeReviewsStep().run(SummarizeInput([], "restaurants"))
    assert empty.summary == ""
