"""How well an item-snippet extractor reads a world's reviews, scored against the world's truth.

A synthetic world labels every review sentence (`truth/reviews.jsonl`): which attribute it
talks about, with which polarity, and whether it says the item *lacks* the value. For each
review, the extractor's snippets are compared with those labels:

- **aspect precision / recall per review**: the attribute keys the snippets name (their
  `aspect`, where it is one of the catalog's attribute keys) against the keys of the
  review's labelled sentences; averaged over reviews that have any (precision over reviews
  where the extractor named a key);
- **lacking recall**: of the sentences labelled as saying the item lacks something (a
  comparison's contrasted value included), the share that gave a negated snippet;
  **negation false-positive rate**: of the other aspect sentences, the share that did;
- **chatter kept**: of the sentences labelled as chatter (nothing about the item), the share
  that still gave a snippet.

Sentences are scored one at a time (the offline extractor cuts clauses within a sentence,
so this equals reading the whole review); the aspect scores read whole reviews.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np

from environments.worlds.truth import ReviewTruth

if TYPE_CHECKING:
    from environments.catalog.store import Catalog

Extractor = Callable[[str], Sequence[object]]  # text -> snippets with .aspect and .negated


@dataclass(frozen=True, slots=True)
class ExtractorScores:
    reviews: int
    aspect_precision: float
    aspect_recall: float
    lacking_recall: float
    negation_false_positive_rate: float
    chatter_kept: float

    def as_dict(self) -> dict[str, float | int]:
        return asdict(self)


def score_extractor(extract: Extractor, reviews: Iterable[ReviewTruth],
                    attribute_keys: Iterable[str]) -> ExtractorScores:
    keys = set(attribute_keys)
    precisions: list[float] = []
    recalls: list[float] = []
    lacking: list[bool] = []
    false_negations: list[bool] = []
    chatter: list[bool] = []
    count = 0
    for review in reviews:
        count += 1
        text = " ".join(s.text for s in review.sentences)
        truth = {s.aspect for s in review.sentences if s.aspect in keys}
        named = {getattr(s, "aspect", None) for s in extract(text)} & keys
        if truth:
            recalls.append(len(named & truth) / len(truth))
        if named:
            precisions.append(len(named & truth) / len(named))
        for sentence in review.sentences:
            snippets = extract(sentence.text)
            negated = any(getattr(s, "negated", False) for s in snippets)
            if sentence.kind == "chatter":
                chatter.append(bool(snippets))
            elif not sentence.present or sentence.contrasted:  # "look elsewhere for X; this is about Y"
                lacking.append(negated)
            elif sentence.aspect is not None:
                false_negations.append(negated)
    return ExtractorScores(count, _mean(precisions), _mean(recalls), _mean(lacking), _mean(false_negations),
                           _mean(chatter))


def _mean(values: Sequence[float] | Sequence[bool]) -> float:
    return float(np.mean(values)) if len(values) else float("nan")


def score_offline_extractor(catalog: Catalog, reviews: Iterable[ReviewTruth]) -> ExtractorScores:
    """The offline extractor as the recommender runs it: with the aspect terms it would use
    on this catalog (attribute keys and values plus review aspects mined from the catalog)."""
    from agents.recommenders.retrieval import mined_aspects
    from agents.recommenders.sniprec.units import aspect_terms_of
    from agents.steps.sniprec.snippets import offline_item_snippets
    from agents.steps.text import singular

    terms = aspect_terms_of(catalog, mined_aspects(catalog, 30))
    keys = {key for item in catalog.items for key in item.attributes}
    noun = singular(catalog.item_noun)
    return score_extractor(lambda text: offline_item_snippets(text, noun, terms), reviews, keys)
