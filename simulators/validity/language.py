"""Text figures of seeker turns, defined simply so anyone can recompute them (DESIGN §8).

- words: whitespace tokens of a turn;
- question: the turn contains "?";
- stated like or dislike: a first-person preference phrase ("I like", "I'm not a fan of",
  "I hate", "I'd prefer", "I want", "I'm looking for"), with or without the "I" ("Loved
  it", "Big fan of Pixar") — a lexical detector, the same for people and simulators;
- template rate: sentences (split on .!?) reduced to a skeleton that keeps the function
  words below and turns every run of other words into one `*`; skeletons of fewer than 3
  tokens are dropped; the rate is the share of sentences whose skeleton occurs in more than
  5% of all sentences. People score ~0 on ReDial and INSPIRED; a template engine does not;
- distinct-n: distinct n-grams over all n-grams, on samples of equal size (it falls as a
  sample grows, so sets of different sizes are never compared whole);
- verbatim overlap: sentences of more than four words (lower case, punctuation dropped) said
  word for word in the compared people's conversations (another one's, for a person).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
SENTENCE_END = re.compile(r"[.!?]+")
TEMPLATE_SHARE = 0.05
MIN_SKELETON = 3

FUNCTION_WORDS = frozenset("""
i me my mine myself we us our ours you your yours he him his she her hers it its they them their theirs
this that these those who whom whose which what where when why how there here
a an the some any no every each all both either neither another other such
am is are was were be been being do does did doing have has had having will would shall should can could
may might must 'm 're 's 've 'd 'll i'm i've i'd i'll you're you've it's that's there's don't doesn't didn't
isn't aren't wasn't weren't won't wouldn't can't couldn't shouldn't haven't hasn't
of in on at by for with about to from into onto over under between through during before after above below
up down out off than as like unlike
and or but nor so yet if because while although though not
want wants wanted need needs prefer prefers love loves hate hates looking look something anything
nothing everything one ones more most less very really too also just
""".split())

PREFERENCE = re.compile(
    r"\b(?:i|we)\b(?:\s*(?:'m|am|'d|would|really|do|don't|do not|didn't|did not|also|just|usually|generally"
    r"|can't|cannot|never|not|kind of|sort of|absolutely|definitely|especially|mostly|quite|still|always))*"
    r"\s*(?:like|love|loved|liked|enjoy|enjoyed|prefer|want|need|hate|hated|dislike|adore|stand|care for|into"
    r"|looking for|a fan of|a big fan of|in the mood for|fond of)\b"
    r"|\b(?:my favou?rites?|not a fan of|anything but|nothing too)\b", re.IGNORECASE)
# The same likes with the "I" left out, as people often write them ("Loved it!", "Really like
# action", "Never liked horror", "Big fan of Pixar"): a clause that opens with the verb. A bare
# "like" or "enjoy" opening a clause is a preposition or a wish ("Like Alien, but scarier",
# "Enjoy your day") and counts only after an adverb or a negation.
ELIDED_PREFERENCE = re.compile(
    r"^(?:(?:yes|yeah|oh|ah|well|and|also|honestly|ok|okay|haha|lol)\W+)*"
    r"(?:(?:(?:really|also|just|still|totally|absolutely|definitely|always|usually|mostly|truly|kinda|never|not"
    r"|didn't|don't|do not|did not)\s+)+(?:like|enjoy|love|loved|liked|enjoyed|prefer|hate|hated|dislike"
    r"|disliked|adore|adored)"
    r"|(?:love|loved|liked|enjoyed|prefer|hate|hated|dislike|disliked|adore|adored))\b"
    r"|\b(?:big |huge |not a |not really a |not much of a )?fans? of\b", re.IGNORECASE)
CLAUSE_BREAK = re.compile(r"[.!?;,]+|\bbut\b", re.IGNORECASE)


def words(text: str) -> list[str]:
    """Whitespace tokens: what *words per turn* counts."""
    return text.split()


def tokens(text: str) -> list[str]:
    """Lower-case word tokens (apostrophe forms kept): what skeletons and distinct-n use."""
    return WORD.findall(text.lower().replace("’", "'"))


def asks(text: str) -> bool:
    return "?" in text


def states_preference(text: str) -> bool:
    """A first-person like or dislike ("I love thrillers", "I'm not into gore", "Loved it").

    The subject-less form was added in 0.2.10: the detector found "I loved it" but not
    "Loved it", so it read a speaker who drops the "I" as stating no preference. On ReDial's
    people (train and tune splits, pooled turns) it moves cooperativeness 0.311 -> 0.323 and
    preference share 0.192 -> 0.202; against IARD's gold intent labels (preference, critique,
    answer) recall 0.490 -> 0.517, precision 0.419 -> 0.404 (F1 0.452 both)."""
    text = text.replace("’", "'")
    return bool(PREFERENCE.search(text)) or any(ELIDED_PREFERENCE.search(clause.strip())
                                                 for clause in CLAUSE_BREAK.split(text) if clause.strip())


# An item on screen pointed at by its place in the list: "the first one", "the 2nd",
# "number 3", "#1", "option 2". People do it in one turn in 100 or fewer (all of ReDial's
# seeker turns 0.5%, INSPIRED's 0.6%, MG-ShopDial's shoppers' 1.0%); a seeker that does it
# every other turn reads as one (crsim's review-catalog seeker in 0.2.18: 48% of its turns
# on Musical Instruments).
_PLACES = r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|top|bottom|1st|2nd|3rd|[4-9]th"
POSITION_REFERENCE = re.compile(
    rf"\b(?:the|that|this)\s+(?:{_PLACES})\s+(?:one|option|pick|suggestion|item)s?\b"
    rf"|\b(?:the|that)\s+(?:{_PLACES})\b(?=\s*(?:[.,!?;]|$))"
    r"|\b(?:number|option|no\.)\s*#?\d\b|(?<![\w#])#\d\b",
    re.IGNORECASE)


def points_by_position(text: str) -> bool:
    """Whether the turn points at a shown item by its place on screen ("the first one")."""
    return bool(POSITION_REFERENCE.search(text))


def content_words(text: str) -> list[str]:
    """Tokens that are not function words, alphabetic and at least three letters long."""
    return [t for t in tokens(text) if t not in FUNCTION_WORDS and t.isalpha() and len(t) >= 3]


def sentences(text: str) -> list[str]:
    return [s for s in (part.strip() for part in SENTENCE_END.split(text)) if s]


VERBATIM_MIN_WORDS = 5


def long_sentences(text: str) -> list[str]:
    """The sentences of more than four words, as lower-case words joined by one space: the
    form in which two sentences are the same verbatim."""
    keys = (" ".join(tokens(s)) for s in sentences(text))
    return [k for k in keys if k.count(" ") + 1 >= VERBATIM_MIN_WORDS]


def skeleton(sentence: str) -> tuple[str, ...]:
    """Function words kept, every run of other words one `*`."""
    out: list[str] = []
    for token in tokens(sentence):
        kept = token if token in FUNCTION_WORDS else "*"
        if kept == "*" and out and out[-1] == "*":
            continue
        out.append(kept)
    return tuple(out)


def skeletons(texts: Iterable[str]) -> list[tuple[str, ...]]:
    """Skeletons of every sentence of `texts`, those shorter than `MIN_SKELETON` dropped."""
    return [s for text in texts for s in map(skeleton, sentences(text)) if len(s) >= MIN_SKELETON]


def frequent_skeletons(all_skeletons: Sequence[tuple[str, ...]], share: float = TEMPLATE_SHARE) -> set[tuple[str, ...]]:
    """Skeletons that occur in more than `share` of all sentences: the templates."""
    counts = Counter(all_skeletons)
    return {s for s, n in counts.items() if n > share * len(all_skeletons)}


def template_rate(texts: Iterable[str]) -> float:
    found = skeletons(texts)
    templates = frequent_skeletons(found)
    return sum(s in templates for s in found) / len(found) if found else float("nan")


def ngrams(items: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(items[i:i + n]) for i in range(len(items) - n + 1)]


def distinct_n(texts: Iterable[str], n: int) -> float:
    """Distinct n-grams / all n-grams, n-grams taken within each turn."""
    grams = [g for text in texts for g in ngrams(tokens(text), n)]
    return len(set(grams)) / len(grams) if grams else float("nan")
