"""A test plug-in whose factory uses its language model while it is built.

It summarises a few of its catalog's reviews once, before any episode (as a recommender
that profiles its catalog would), and then asks that summary as its question. The call is
made through a crsim language step, so it is recorded, budgeted and replayable like any.
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np

from agents.base import recommender_from_function
from agents.steps.seeker.summarize import SummarizeInput, SummarizeReviewsStep
from environments.base import Recommendation


def build(catalog: Any, llm: Any = None, summaries: int = 1) -> Any:
    step = SummarizeReviewsStep(llm, "recommender")
    said = []
    for start in range(summaries):  # one summary per slice of four reviews; the first is asked
        reviews = tuple(review.text for review in catalog.reviews[4 * start: 4 * start + 4])
        said.append(asyncio.run(step.run(SummarizeInput(reviews, catalog.item_noun))).summary)
    scores = np.zeros(len(catalog.items))

    def respond(observation: Any) -> Recommendation:
        return Recommendation(question=f"Others said: {said[0][:60]} What about you?", scores=scores)

    return recommender_from_function(respond)
