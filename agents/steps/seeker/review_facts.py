"""What a target-biased seeker can say about its target from the target's reviews, in its own words.

On a catalog without attributes the reviews are all a seeker knows about its target.
Quoting them ("Something like this would be perfect: <review sentence>") hands a
lexical recommender the answer (the sentence sits in the catalog) and sounds like nobody.
A person who read those reviews would say what they want: "I'd love something with a
light, fresh smell." So each fact here is one aspect the reviews describe (found the
way the aspect miner finds them, `environments.search.aspect_text`), the words the
reviews use to describe it, and a user's sentence built around them: from our own
templates, or, given a bank of people's answer wordings (`agents.steps.seeker.wishes`), a
described thing in one of those ("I would like sturdy plugs."). Only plain statements
count: a mention near a negation, complaint, hedge, comparison or contrast is skipped,
since it may not say what it seems to ("I wish the scent lasted"). Aspects most reviews
agree on come first.

On a real catalog the environment also gives the words many items' reviews share
(`shared`): terms and descriptors outside it are the target's own ("lifeproof case") and
are never said, so one sentence cannot hand a lexical recommender its target. A described
flaw ("weird smell", "flimsy strap"; from the critical reviews too) becomes a dislike
("nothing with a flimsy strap"), never a wish.

Deterministic, offline, once per episode. An utterance never contains a sentence of the
reviews it came from (checked, not assumed).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from agents.steps.seeker.answer import Fact
from agents.steps.seeker.wishes import noun_phrase_of, wish
from agents.steps.text import fill_form, pick
from environments.acts.answer_wordings import AnswerWordings
from environments.search import parsing
from environments.search.aspect_text import (
    INTENSIFIERS, NEGATIONS, SENSE_VERBS, Mention, find_mentions, is_content, sentences, term_index, tokens,
)
from environments.search.aspects import AspectVocabulary
from environments.search.parsing import NOUN_TAGS
from environments.search.vocabulary import is_plural
from environments.search.word_stats import VAGUE as SAYS_NOTHING
from environments.search.word_stats import MinerSettings, WordStats, is_praise, valence

# Descriptors that came before the term, in the reviews' order: "light floral scent", but
# also "sensitive teeth" (what it is for), so the wording does not say which.
MODIFIER_FORMS = (
    "For me it's about {desc} {term}.",
    "{Desc} {term} {be} a big thing for me.",
    "Mostly I care about {desc} {term}.",
    "{Desc} {term} matter{s} most to me.",
)
# Descriptors that came after a copula ("the scent is light and fresh"). None of these
# has the review's own "the X is Y" shape, which a short review sentence could be.
PREDICATE_FORMS = (
    "I'd like the {term} to be {desc}.",
    "I want {a_term} that {be} {desc}.",
    "{Np} would be perfect.",
    "Ideally the {term} would be {desc}.",
)
PLAIN_FORMS = (
    "The {term} matters a lot to me.",
    "I care about the {term}.",
)
# A flaw the seeker will not have: worded as what it does not want, the flaw after its
# noun. Before it ("Anything without useless stand", "Please, no awful shape") blind raters
# read broken English, and with an article mass nouns broke ("a poor quality").
DISLIKE_FORMS = (
    "I don't want the {term} to be {desc}.",
    "As long as the {term} {isnt} {desc}.",
    "I'd hate for the {term} to be {desc}.",
    "Please make sure the {term} {isnt} {desc}.",
)
# Descriptors of a product flaw that VADER's lexicon does not score as negative.
FLAWS = frozenset("""
    cheap cheaply flimsy tinny muddy thin fragile stiff brittle weak wobbly loose noisy squeaky scratchy itchy
    chemical plastic plasticky smelly sticky leaky faulty defective dead dull faded bulky clunky buzzy
""".split())
NEGATIVE_VALENCE = -0.5
# Flaw words that also intensify the descriptor after them ("dead quiet", "crazy light").
INTENSIFYING_FLAWS = frozenset("dead crazy wicked stupid insanely ridiculously".split())
# Verbs a short review's noun phrases catch as heads or descriptors ("the patch cords *work*",
# "*play* guitar", "gain is *set*"): on a real catalog no fact is worded around them.
COMMON_VERBS = frozenset("""
    play plays played set sets beat takes take away sing sings work works worked feel feels felt get gets got make
    makes made built go goes use uses used fit fits hold holds keep keeps buy bought need needs want wants love
    loves like likes say says said come comes came give gives look looks
""".split())
# How a described aspect's words must be tagged to be said as a wish (`as_wish`).
MODIFIER_TAGS = frozenset({"ADJ", "NOUN", "PROPN", "NUM"})
PREDICATE_TAGS = frozenset({"ADJ", "ADV", "NOUN"})  # "sturdy metal": an adjective among them
MAX_WISH_TRIES = 5  # mentions of one aspect read before it is left unsaid
# Nouns reviews use for the people and events around a product, never a part of it ("Long
# run is a big thing for me", "Guitar player", "Musicians gear is key"); the shop, the
# reviewer and the photo are nouns no aspect is (`aspect_text.GENERIC_NOUNS`). Places are
# not here: a restaurant's room is its own ("the room is quiet").
NOT_THE_PRODUCT = frozenset("player players musician musicians process run thought result".split())
# Aspect words in a handful of reviews: once in a noun position is enough, if the word
# mostly stands there and never takes an object.
LOCAL_TERMS = MinerSettings(min_head_count=1, min_head_share=0.3, max_terms=60)
_NON_WORD = re.compile(r"[^a-z0-9]+")


@dataclass(slots=True)
class _Aspect:
    reviews: set[int]
    mentions: list[tuple[Mention, Sequence[str]]]
    first: int


def facts_from_reviews(reviews: Sequence[str], *, aspects: AspectVocabulary | Mapping[str, str] | None = None,
                       limit: int = 12, shared: Mapping[str, int] | None = None,
                       critical: Sequence[str] = (), wishes: AnswerWordings | None = None,
                       shared_pairs: Mapping[str, int] | None = None,
                       theme: frozenset[str] = frozenset()) -> list[Fact]:
    """Up to `limit` facts, one aspect each, the aspects most reviews describe first.

    `aspects` maps surface terms to aspect names (a mined vocabulary, or a plain
    mapping); without it the terms are found in `reviews` themselves. With `shared` (word
    -> how many items' reviews use it), only those words are said, and the aspects many
    items have come first: what this item's reviews dwell on is what tells it apart, not
    what a shopper starts with. `critical` reviews add the flaws they describe (as dislikes).
    With `wishes`, a described thing ("sturdy plugs") is said in a wording people used
    (`agents.steps.seeker.wishes`) rather than in `MODIFIER_FORMS`. With `shared_pairs`
    (a real catalog's word pairs many items' reviews write), a described thing is said only
    if each of its words stands next to the next in those ("gig bag", not "size wall"), and
    never with a noun of the catalog's `theme` ("guitar sound": true of most items).
    """
    texts = [*reviews, *critical]
    review_sentences = [[tokens(s) for s in sentences(text)] for text in texts if text]
    if isinstance(aspects, AspectVocabulary):
        terms = aspects.terms()
    elif aspects is not None:
        terms = dict(aspects)
    else:
        terms = local_terms(review_sentences)
    if shared is not None:
        terms = {term: name for term, name in terms.items() if all(w in shared for w in term.split())
                 and not any(_not_a_thing(w) for w in term.split())}
    found = _mentions_by_aspect(review_sentences, terms, shared, first_critical=len(texts) - len(critical))
    quoted = [_normal(s) for text in texts for s in sentences(text) if len(s.split()) >= 3]
    facts: list[Fact] = []
    def order(kv: tuple[str, _Aspect]) -> tuple[int, int, int]:
        common = min(shared.get(w, 0) for w in kv[0].split()) if shared is not None else 0
        return -common, -len(kv[1].reviews), kv[1].first

    for aspect, entry in sorted(found.items(), key=order):
        chosen = _best_mention(entry.mentions, wish_only=shared is not None, shared_pairs=shared_pairs, theme=theme)
        if chosen is None:
            continue
        mention, context = chosen
        if not mention.values and (aspects is None or len(entry.reviews) < 2):
            continue  # a bare noun says little unless reviewers keep naming a known aspect
        if shared is not None:
            context = [w for w in context if w in shared]
        fact = _fact(aspect, mention, context, quoted, wishes)
        if fact is not None:
            facts.append(fact)
            if len(facts) == limit:
                break  # the aspects after it would not be said: nor read (the tagger is the cost)
    return facts


def is_flaw(word: str) -> bool:
    """A descriptor that says something is wrong ("weird", "flimsy", "broken")."""
    return word in FLAWS or valence(word) <= NEGATIVE_VALENCE


VAGUE = frozenset("extra different other same new whole certain ideal".split())  # says nothing about the item


def describes(word: str, shared: Mapping[str, int] | None) -> bool:
    """A descriptor that says what a thing is like: not praise ("great color", "the style to be
    great": what everyone wants) nor a word true of anything ("big game", "regular length",
    "ideal thickness"); with `shared`, also one a shopper may use: shared across items, not a
    verb form ("built": "well built" is what reviews say)."""
    if is_praise(word) or word in SAYS_NOTHING or word in VAGUE:
        return False
    return shared is None or (word in shared and word not in COMMON_VERBS and not word.endswith("ing"))


def says_what_it_is_like(word: str) -> bool:
    """A mined value a seeker may want: `describes` it, on any vocabulary, and no verb form
    ("built": what reviews' "well built" leaves)."""
    return describes(word, None) and word not in COMMON_VERBS


def _not_a_thing(word: str) -> bool:
    """A word a real catalog's reviews put where a noun stands that names no aspect: a verb
    form, or a judgement ("perfect", "sturdy" as in "the knobs feel *sturdy*")."""
    return (word in COMMON_VERBS or word.endswith(("ing", "ly")) or word in FLAWS
            or abs(valence(word)) >= 1.0 or word in VAGUE or word in {"sturdy", "solid"})


def _flawed(mention: Mention) -> bool:
    """Whether a mention describes a flaw: a flaw word that is not intensifying the descriptor
    after it ("dead quiet", "crazy light": praise, not "dead" nor "crazy")."""
    runs = [list(mention.modifiers), *(p.split() for p in mention.predicates)]
    return any(is_flaw(word) and (word not in INTENSIFYING_FLAWS or i == len(words) - 1)
               for words in runs for i, word in enumerate(words))


def local_terms(review_sentences: Sequence[Sequence[Sequence[str]]]) -> dict[str, str]:
    """Aspect terms of a handful of reviews, each mapped to an aspect: terms sharing a word
    are one aspect named by the shortest ("battery", "battery life" -> "battery")."""
    stats = WordStats.count(words for review in review_sentences for words in review)
    senses = {SENSE_VERBS[w] for w in stats.total if w in SENSE_VERBS}  # "smells great": the smell
    terms = sorted(set(stats.candidate_terms(LOCAL_TERMS)) | senses, key=lambda t: (len(t.split()), t))
    names: dict[str, str] = {}
    for term in terms:
        words = set(term.split())
        names[term] = next((names[t] for t in names if words & set(t.split())), term)
    return names


def _mentions_by_aspect(review_sentences: Sequence[Sequence[Sequence[str]]], terms: Mapping[str, str],
                        shared: Mapping[str, int] | None = None,
                        first_critical: int | None = None) -> dict[str, _Aspect]:
    """Plain (not doubtful) mentions per aspect, each with its sentence's words; with
    `shared`, descriptors outside it are dropped, and a critical review's mention counts
    only for the flaw it describes."""
    found: dict[str, _Aspect] = {}
    order = 0
    index = term_index(terms)
    for number, review in enumerate(review_sentences):
        critical = first_critical is not None and number >= first_critical
        for words in review:
            for mention in find_mentions(words, index):
                order += 1
                mention = replace(mention, modifiers=tuple(w for w in mention.modifiers if describes(w, shared)),
                                  predicates=tuple(p for p in mention.predicates
                                                   if all(describes(w, shared) for w in p.split())))
                flaw = _flawed(mention) and NEGATIONS.isdisjoint(words)  # a complaint: doubtful, but plain
                if critical and not flaw:
                    continue
                if not mention.doubtful or flaw:
                    entry = found.setdefault(mention.aspect, _Aspect(set(), [], order))
                    entry.reviews.add(number)
                    entry.mentions.append((mention, words))
    return found


def _best_mention(mentions: Sequence[tuple[Mention, Sequence[str]]], wish_only: bool = False,
                  shared_pairs: Mapping[str, int] | None = None, theme: frozenset[str] = frozenset()
                  ) -> tuple[Mention, Sequence[str]] | None:
    """The described mention whose words most of the others share (what reviewers agree on);
    with `wish_only` (a real catalog), the best of the first few that reads as a wish would
    (`as_wish`), or None."""
    support = Counter(w for m, _ in mentions for w in set(m.modifiers + m.predicates))

    def agreement(pair: tuple[Mention, Sequence[str]]) -> tuple[bool, float]:
        words = pair[0].modifiers + pair[0].predicates
        return (not pair[0].values, -sum(support[w] for w in words) / max(1, len(words)))

    if not wish_only:
        return min(mentions, key=agreement)  # min() keeps the first of equals: deterministic
    ranked = sorted(mentions, key=agreement)[:MAX_WISH_TRIES]  # a stable sort: the same order every run
    wishes = ((as_wish(mention, words, shared_pairs, theme), words) for mention, words in ranked)
    return next(((mention, words) for mention, words in wishes if mention is not None), None)


def as_wish(mention: Mention, words: Sequence[str], shared_pairs: Mapping[str, int] | None = None,
            theme: frozenset[str] = frozenset()) -> Mention | None:
    """A mention as a shopper's wish would say it, or None: the term a noun, the words
    before it the adjectives and nouns next to it ("phantom *powered* xlr input" -> "xlr
    input"), those after its copula adjectives ("the sound is *sweet* and *warm*"), as
    spaCy's tagger reads the sentence; never the reviewer's own thing ("my tube amp") nor
    the people and events around a product ("guitar player", "musicians gear").

    Reviews put verbs and adjectives where the phrase rules look for a noun phrase: "the
    strings *held* up" made "Strings held is a big thing for me", "it appears *durable*"
    made "Appears durable matters most to me", "the box is *built* like a tank" made
    "Ideally the box would be built". With `shared_pairs`, the phrase kept must be written
    word by word in several items' reviews: one reviewer's "size wall" or "special room"
    is no wish, and "compact sits" a verb the tagger read as a noun.

    What blind raters flagged next is read off the sentence too: a term that is not the
    phrase's head ("guitar *wall* hangers"), a descriptor an adverb other than an intensifier
    qualifies ("well *built*", "more *expensive*": said alone, "a built stand"), a noun of the
    catalog's `theme` ("guitar sound"), and an adjective whose complement the wish would drop
    ("the box is *easy* to use": "ideally the box would be easy").
    """
    term = tuple(mention.term.split())
    if mention.owned or term[-1] in NOT_THE_PRODUCT:
        return None
    width = len(mention.modifiers)
    start = next((i for i in range(len(words) - len(term) + 1) if tuple(words[i:i + len(term)]) == term
                  and all(m in words[max(0, i - width):i] for m in mention.modifiers)), None)
    if start is None:  # a sense verb standing for its noun ("it smells fresh"), or its words apart: no noun to read
        return mention if _written([*mention.modifiers, *term], shared_pairs) else None
    tags = parsing.tags(words)
    head = start + len(term) - 1
    if tags[head] not in NOUN_TAGS or (head + 1 < len(words) and tags[head + 1] in NOUN_TAGS):
        return None
    kept: list[str] = []
    for k in range(start - 1, max(0, start - width) - 1, -1):  # from the term backwards, while tagged so
        if tags[k] not in MODIFIER_TAGS or words[k] in NOT_THE_PRODUCT:  # "musicians gear", "local store"
            break
        if (tags[k] in NOUN_TAGS and words[k] in theme) or _qualified(words, tags, k):
            break
        if words[k] in mention.modifiers:
            kept.insert(0, words[k])
    for phrase in mention.predicates:
        at = [next((k for k in range(head + 1, len(words)) if words[k] == w), None) for w in phrase.split()]
        said = [tags[k] if k is not None else "" for k in at]
        if any(tag not in PREDICATE_TAGS for tag in said) or "ADJ" not in said:
            return None
        last = max((k for k in at if k is not None), default=head)
        if last + 1 < len(words) and words[last + 1] == "to":  # "easy to use", "hard to find"
            return None
    if not _written([*kept, *term], shared_pairs):
        return None
    trimmed = replace(mention, modifiers=tuple(kept))
    return trimmed if trimmed.values else None


def _qualified(words: Sequence[str], tags: Sequence[str], k: int) -> bool:
    """Whether `words[k]` follows an adverb that is no mere intensifier ("well built", "cheaply
    made", "more expensive"): the descriptor means what it says only with it."""
    return k > 0 and tags[k - 1] == "ADV" and words[k - 1] not in INTENSIFIERS


def _written(phrase: Sequence[str], shared_pairs: Mapping[str, int] | None) -> bool:
    """Whether each word of `phrase` stands next to the next in several items' reviews (always,
    without `shared_pairs`)."""
    return shared_pairs is None or all(f"{a} {b}" in shared_pairs for a, b in zip(phrase, phrase[1:]))


def _fact(aspect: str, mention: Mention, context: Sequence[str], quoted: Sequence[str],
          wishes: AnswerWordings | None = None) -> Fact | None:
    """The fact for one mention, worded by the first form (in a stable per-fact order) that
    quotes no review sentence; None if every form would. A described thing is said in
    people's wording from `wishes` where there is one that quotes no review either."""
    term, modifiers, predicates = mention.term, " ".join(mention.modifiers), mention.predicates
    if _flawed(mention):  # said after its noun: "I don't want the strap to be cheap and flimsy"
        forms, desc, named = DISLIKE_FORMS, _listed((*mention.modifiers, *predicates)), term
    elif predicates:
        forms, desc, named = PREDICATE_FORMS, " and ".join(predicates), f"{modifiers} {term}".strip()
    elif modifiers:
        forms, desc, named = MODIFIER_FORMS, modifiers, term
    else:
        forms, desc, named = PLAIN_FORMS, "", term
    first = forms.index(pick(forms, aspect, desc))
    fills = {"term": named, "desc": desc, "be": _be(term), "s": "s" if _be(term) == "is" else "",
             "isnt": f"{_be(term)}n't", "np": noun_phrase_of(f"{desc} {named}"), "a_term": noun_phrase_of(named)}
    worded = wish(wishes, noun_phrase_of(f"{desc} {named}"), aspect, desc) if forms is MODIFIER_FORMS else None
    utterance = next((u for u in ([worded] if worded else []) + [fill_form(f, **fills)
                                                                 for f in forms[first:] + forms[:first]]
                      if not _quotes(u, quoted)), None)
    if utterance is None:
        return None
    said = " ".join(dict.fromkeys(w for w in context if is_content(w)))
    # What it is matched on: the aspect, how it is described, and the other content words
    # of its sentence (a bag of words, never the sentence), so a question about "sound"
    # finds "the mids are clean" said in a sentence about how vocals sound.
    described = " ".join((modifiers, term, *predicates)).strip()
    match_text = f"{aspect}: {'nothing with ' + described if forms is DISLIKE_FORMS else described} ({said})"
    # The wanted thing for a move's frame ("I'm after {want}"): with its article once described.
    phrase = "" if forms is DISLIKE_FORMS else named if forms is PLAIN_FORMS or len(desc.split()) > 2 \
        else noun_phrase_of(f"{desc} {named}")
    return Fact(f"review:{aspect}={'+'.join(mention.values) or term}", match_text, utterance, aspect, phrase=phrase)


def _quotes(utterance: str, quoted: Sequence[str]) -> bool:
    """Whether `utterance` contains one of the (normalised) review sentences verbatim."""
    said = _normal(utterance)
    return any(q in said for q in quoted)


def _listed(words: Sequence[str]) -> str:
    """"cheap", "cheap and flimsy", "loose, thin and itchy"."""
    return " and ".join(filter(None, (", ".join(words[:-1]), words[-1]))) if words else ""


def _be(term: str) -> str:
    return "are" if is_plural(term) else "is"


def _normal(text: str) -> str:
    """Lower-case words separated by single spaces, for the verbatim check."""
    return " " + _NON_WORD.sub(" ", text.lower()).strip() + " "
