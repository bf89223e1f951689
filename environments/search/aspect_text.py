"""Finding what a review sentence is about, without a parser: aspect terms and their descriptors.

Shared by the aspect miner (`aspects.py`, over a whole catalog) and the seeker's review
facts (`agents/steps/seeker/review_facts.py`, over one item's reviews), so that both read a
sentence the same way. No POS tagger ships offline, so nouns are recognised by where
they stand: the head of a short run of content words after a determiner or possessive
("the *scent*", "this lavender *soap*", "my *skin*"), or the subject of a copula
("*battery life* is great"). Over a catalog these positions separate nouns from
adjectives and verbs well; a word is an aspect candidate when it stands there often.

A mention of an aspect term keeps its descriptors: up to two content words before it
("light floral *scent*") or after a copula ("*scent* is light and fresh"), and whether it
sits near a negation, a complaint marker ("too") or a hedge ("I wish"), so that callers
can keep only what a review plainly says.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

# A sentence ends at .!? followed by space, or glued to the next capitalised word
# ("affordable.I did not"), which Amazon review texts often have; also at line breaks.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[a-z][.!?])(?=[A-Z])|\n+")
# Words, and clause punctuation as tokens of its own: a noun phrase or a description never
# runs across "great shipping, price".
_WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*|[,;:()]")
_ENTITY = re.compile(r"&#?[a-z0-9]+;")

# A capitalised word after a lower-case one: a name ("my new Shure mic"), not a sentence start.
TITLED = re.compile(r"(?<=[a-z0-9,;] )[A-Z][a-z]+")

# Words that make what follows the reviewer's own ("*my* amp", "*our* table").
OWNERS = frozenset({"my", "our"})
POINTERS = frozenset({"this", "these"})  # "*this* pedal": what a reviewer calls the item reviewed
DETERMINERS = frozenset("the this that my its your their these those our his her".split())
COPULAS = frozenset("is was are were be been feels felt smells smelled tastes tasted looks looked seems "
                    "seemed sounds sounded stays stayed lasts lasted remains remained gets got".split())
INTENSIFIERS = frozenset("very so really pretty quite super extremely incredibly just nice and also "
                         "absolutely totally fairly rather".split())
NEGATIONS = frozenset("not no never without nothing hardly barely isn't wasn't aren't weren't doesn't don't "
                      "didn't won't wouldn't can't cannot couldn't nor isnt wasnt arent doesnt dont didnt wont "
                      "cant couldnt wouldnt".split())
# Words that start an object: a word often followed by one of these is a verb ("uses it",
# "leaves my skin"), even where it stands like a noun ("my wife *uses*").
OBJECT_STARTS = DETERMINERS | frozenset("it me them him us you a an up out off".split())
COMPLAINTS = frozenset("too overly bad terrible awful poor horrible worst disappointing disappointed "
                       "weak flimsy broke broken cheaply lacking lacks irritation irritated burn burning itch "
                       "itchy rash sticky leak leaks leaking stinks smelly greasy lukewarm slow stale bland soggy "
                       "rude dirty overpriced overcooked undercooked cramped".split())
# "It smells fresh": the verb of a sense, standing for its noun.
SENSE_VERBS = {"smells": "smell", "smelled": "smell", "smell": "smell", "tastes": "taste", "tasted": "taste",
               "feels": "feel", "felt": "feel", "looks": "look", "looked": "look", "sounds": "sound",
               "sounded": "sound"}
# Praise says how much a reviewer liked something, not what it is like: fine in what a
# seeker says, useless as a value that tells items apart ("great or good?").
PRAISE = frozenset("great good nice best better amazing awesome excellent wonderful perfect fine fantastic "
                   "love loved favorite favourite ok okay super terrific outstanding".split())
# Words that follow a copula without describing anything ("was worth it", "is half the fun").
NOT_DESCRIPTORS = frozenset("worth half able sure glad happy going using used made got like does did".split())
HEDGES = frozenset("wish hope hoping if would could should maybe might unless".split())
# A comparison may be about another item ("quieter than the bar next door"); a contrast
# may turn the sentence ("nice scent but it fades").
COMPARISONS = frozenset("than unlike instead compared but although though however except".split())

# Words that stand where nouns stand but never name something a person would ask about.
GENERIC_NOUNS = frozenset("""
    product products item items thing things stuff one ones lot lots bit time times way ways day days week
    weeks month months year years review reviews star stars amazon order orders purchase reason fact rest end
    kind sort people person guy guys wife husband son daughter mom dad mother father friend friends family kids
    kid sister brother cousin aunt uncle boyfriend girlfriend partner neighbor coworkers colleagues everyone anyone someone something anything everything nothing part half top bottom front back first
    last next other same best worst only whole few couple number use job deal trip visit place world minute
    minutes hour hours second seconds morning night today tonight yesterday while point times look need want
    highly recommend recommended overall else self itself myself past problem problems issue issues
    area areas difference idea matter example instance start beginning pair unit right left
    store stores shop shops seller sellers website site photo photos picture pictures reviewer reviewers
    skin woman women
""".split())


def sentences(text: str) -> list[str]:
    """Sentences of a review (more than three characters each), stripped."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part and len(part.strip()) > 3]


def tokens(sentence: str) -> list[str]:
    """Lower-cased words and clause punctuation; apostrophes and hyphens stay inside a word;
    HTML entities left in imported texts ("&nbsp;") are not words."""
    return _WORD.findall(_ENTITY.sub(" ", sentence.lower().replace("’", "'")))


_DOUBT = NEGATIONS | COMPLAINTS | HEDGES | COMPARISONS


@cache
def non_content_words() -> frozenset[str]:
    """scikit-learn's English stop words plus the function words above (sklearn loads on first use)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS) | COPULAS | NEGATIONS | INTENSIFIERS


def is_content(word: str, skip: frozenset[str] | None = None) -> bool:
    """A word that can name or describe something: not a stop word, copula, number, possessive or adverb."""
    return (len(word) > 2 and word not in (skip or non_content_words()) and not word[0].isdigit()
            and "'" not in word and not (len(word) > 5 and word.endswith("ly")))


def noun_positions(words: Sequence[str]) -> list[tuple[int, int]]:
    """(start, head) of the noun phrases a sentence's word positions suggest.

    After a determiner, the run of up to three content words ends at its head ("the
    lavender *scent* is" -> head "scent"), unless its last word takes an object and is the
    verb ("the *mic* picks up"); the content words right before a copula end at a subject
    head ("battery *life* is"). The run's other words are the head's modifiers.
    """
    found: list[tuple[int, int]] = []
    n = len(words)
    skip = non_content_words()
    for i, word in enumerate(words):
        if word in DETERMINERS and i + 1 < n and is_content(words[i + 1], skip):
            end = i + 1
            while end + 1 < n and end - i < 3 and is_content(words[end + 1], skip):
                end += 1
            if end > i + 1 and end + 1 < n and words[end + 1] in OBJECT_STARTS:
                end -= 1  # "the cushions *cover* my ears": a word taking an object is the verb
            found.append((i + 1, end))
        elif word in COPULAS and i > 0 and is_content(words[i - 1], skip) and (not found or found[-1][1] != i - 1):
            start = i - 1
            while start > 0 and i - start < 3 and is_content(words[start - 1], skip):
                start -= 1
            found.append((start, i - 1))
    return found


@dataclass(frozen=True, slots=True)
class Mention:
    """One occurrence of an aspect term in a sentence."""

    aspect: str
    term: str
    modifiers: tuple[str, ...]   # content words right before the term ("light floral" scent)
    predicates: tuple[str, ...]  # phrases after a copula ("scent is *light* and *fresh*", "*rock solid*")
    doubtful: bool   # a negation, complaint, hedge or comparison is near: it may not say what it seems to
    owned: bool = False  # "my tube amp": the reviewer's own thing, not the item reviewed
    pointed: bool = False  # "this amp": the reviewer pointing at the item reviewed, by its kind

    @property
    def values(self) -> tuple[str, ...]:
        """What the sentence says the aspect is like: each predicate phrase, or the modifier phrase."""
        if self.predicates:
            return self.predicates
        return (" ".join(self.modifiers),) if self.modifiers else ()


def term_index(terms: Mapping[str, str]) -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """First word -> [(term words, aspect)], longest terms first, for `find_mentions`."""
    index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for term, aspect in terms.items():
        words = tuple(term.split())
        index.setdefault(words[0], []).append((words, aspect))
    for options in index.values():
        options.sort(key=lambda option: -len(option[0]))
    return index


def find_mentions(words: Sequence[str], index: Mapping[str, list[tuple[tuple[str, ...], str]]],
                  exclude: frozenset[str] = frozenset()) -> list[Mention]:
    """Every aspect term of `index` in a tokenised sentence, with its descriptors.

    A sense verb stands for its noun when the index knows the noun: "it *smells* fresh"
    is a mention of "smell" described as "fresh".
    """
    mentions: list[Mention] = []
    n = len(words)
    skip = non_content_words()
    i = 0
    while i < n:
        options = index.get(words[i])
        match = next(((t, a) for t, a in options if tuple(words[i:i + len(t)]) == t), None) if options else None
        # "it smells", "does smell" (a verb) but "the smell", "great smell" (a noun)
        verb = i > 0 and words[i - 1] not in DETERMINERS and not is_content(words[i - 1], skip)
        sense = SENSE_VERBS.get(words[i]) if (match is None or verb) else None
        if sense is not None:
            match = next(((t, a) for t, a in index.get(sense, ()) if t == (sense,)), None)
        if match is None:
            i += 1
            continue
        term_words, aspect = match
        end = i + (1 if sense else len(term_words))  # first position after the term
        blocked = exclude | set(term_words) | NOT_DESCRIPTORS | GENERIC_NOUNS
        before: list[str] = []
        j = i - 1
        while not sense and j >= 0 and len(before) < 2 and is_content(words[j], skip) and words[j] not in blocked:
            before.insert(0, words[j])
            j -= 1
        after = _predicates(words, end if sense else end + 1, skip, blocked) \
            if sense or (end < n and words[end] in COPULAS) else ()
        if sense and not after:
            i += 1
            continue  # "smells like..." names no quality of the smell
        doubtful = not _DOUBT.isdisjoint(words[max(0, i - 4): end + 4])
        owned, pointed = j >= 0 and words[j] in OWNERS, j >= 0 and words[j] in POINTERS
        mentions.append(Mention(aspect, " ".join(term_words), tuple(before), after, doubtful, owned, pointed))
        i = end
    return mentions


def _predicates(words: Sequence[str], start: int, skip: frozenset[str], blocked: set[str] | frozenset[str]
                ) -> tuple[str, ...]:
    """Up to two description phrases from `start` on: "*rock solid*", "*soft* and *plush*"."""
    phrases: list[str] = []
    current: list[str] = []
    for word in words[start: start + 6]:
        if word in ("and", ","):
            if current:
                phrases.append(" ".join(current))
                current = []
        elif word in INTENSIFIERS:
            continue
        elif is_content(word, skip) and word not in blocked and len(current) < 2:
            current.append(word)
        else:
            break
        if len(phrases) == 2:
            break
    if current and len(phrases) < 2:
        phrases.append(" ".join(current))
    return tuple(phrases)
