"""The seeker's phrase bank covers every world value and shares no phrase with the reviews'."""

from __future__ import annotations

import pytest

from environments.worlds import DOMAINS
from environments.worlds.seeker_talk import SEEKER_WORDS, VAGUE


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_every_value_has_seeker_words_disjoint_from_review_phrases(domain: str) -> None:
    spec, words = DOMAINS[domain], SEEKER_WORDS[domain]
    review_phrases = {p.lower() for a in spec.aspects for v in a.values for p in v.phrases}
    review_texts = [t.lower() for a in spec.aspects for v in a.values for t in v.positive + v.negative + v.phrases]
    for aspect in spec.aspects:
        assert set(words[aspect.name]) == set(aspect.by_value), aspect.name
        for value, says in words[aspect.name].items():
            assert len(says) >= 2
            for phrase in says:
                assert phrase.lower() not in review_phrases, phrase
                if len(phrase.split()) > 1:  # a longer phrase is not even part of a review phrase or template
                    assert not any(phrase.lower() in t for t in review_texts), phrase


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_vague_phrases_fit_real_values(domain: str) -> None:
    spec = DOMAINS[domain]
    for aspect, phrase, fits in VAGUE[domain]:
        assert set(fits) < set(spec.by_aspect[aspect].by_value) and len(fits) >= 2, phrase
