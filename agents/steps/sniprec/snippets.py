"""SnipRec's language steps: item snippets from reviews, query snippets from answers, expansion.

A *snippet* is one short statement about one aspect of an item in a canonical frame
("This restaurant has a cozy dining room."), so that what reviewers wrote and what a seeker
asks for end up worded alike and retrieval compares like with like (SnipRec §3.1-3.2).

- **Item snippets** (`ItemSnippetStep`): a review split into statements, each with its
  aspect (when one of the catalog's attribute keys or mined aspect terms names it), the
  reviewer's attitude (`sentiment`) and whether it says the item *lacks* something
  (`negated`: "Anyone looking for a local hangout vibe will be disappointed").
- **Query snippets** (`QuerySnippetStep`): the seeker's answer (given the question) as
  statements with `prefer` / `dislike`; an answer without a preference gives none.
- **Expansion** (`ExpandStep`): per query snippet, a paraphrase, a supporting statement
  and the opposite statement with the sign flipped.

Offline implementations (no language model; what `llm=offline` runs):

- clauses are cut at sentence ends, semicolons and contrast words ("but", "although"),
  so "If you're after cheerful chatter, look elsewhere; this is more about the quiet
  room" gives two statements;
- a clause *lacks* its subject when it carries a negation or a look-elsewhere cue
  ("no", "don't come expecting", "will be disappointed", "look elsewhere");
- the canonical rewrite keeps the clause's content words in order (stop words, praise
  words and the cue words themselves dropped) in the frame "This <noun> has ..." or
  "This <noun> does not have ...": crude, but query and item snippets get the same frame;
- the attitude is VADER's compound score of the clause; the aspect is the first catalog
  attribute key or mined aspect term the clause names (no world phrase bank: recommenders
  never get the seekers' lexicon);
- expansion: the paraphrase drops the frame (the bare content phrase), the opposite
  negates the frame and flips the sign, and the supporting statement is the best item
  snippet retrieved for the query that is not a near copy of it (pseudo-relevance
  feedback, supplied by the recommender as `neighbours`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from agents.steps.base import LanguageStep
from agents.steps.text import sentiment
from environments.search.aspect_text import PRAISE, is_content, non_content_words, sentences, tokens

Preference = Literal["prefer", "dislike"]

# Cut a sentence into clauses here (the cut word itself is dropped).
_CLAUSE_CUT = re.compile(r"\s*;\s*|(?<!anything)(?<!everything)\s*[,]?\s+\b(?:but|although|though|whereas|while|"
                         r"however)\b\s*", re.I)  # "anything but loud" is one clause
# The clause says the item lacks what it names.
_LACK_CUE = re.compile(
    r"\b(?:no|not|never|without|nothing|lacks?|lacking|missing|isn't|wasn't|aren't|weren't|don't|doesn't|didn't|"
    r"won't|hardly|look elsewhere|be disappointed|will disappoint|in case you were wondering)\b|n't\b", re.I)
# "no-fuss", "not-too-sweet": adjectives, not a negation of what follows.
_NEGATIVE_COMPOUND = re.compile(r"\b(?:no|not|non)-[\w-]+", re.I)
# Negative words that praise, hedge or dislike what the item has, rather than say it lacks something.
_NOT_LACKING = re.compile(
    r"\b(?:can't|cannot|couldn't|could not) (?:fault|beat|complain|go wrong|decide|say|tell|ask for|be happier)\b|"
    r"\bno (?:complaints?|shortage|problems?|issues?|regrets?)\b|\bnothing (?:more|less|special|fancy)\b|"
    r"\bnot (?:bad|too shabby|a problem|a fan|crazy about|keen on|big on|into)\b|\bnever disappoints?\b|"
    r"\b(?:done|do) without\b|"
    r"\b(?:didn't|did not|don't|doesn't|wasn't|weren't|isn't|aren't) "
    r"(?:love|like|enjoy|care for|sit well|work for|suit|the vibe|what|for me|my thing|to my taste)\b|"
    + _NEGATIVE_COMPOUND.pattern, re.I)
# The seeker does not want what the clause names.
_DISLIKE_CUE = re.compile(
    r"\b(?:anything but|not|no|never|avoid|rather not|don't want|do not want|nothing too|hate|dislike|without|"
    r"can't stand|steer clear|skip|less)\b|n't\b", re.I)
# The answer states no preference at all.
_NO_PREFERENCE = re.compile(
    r"\b(?:not fussed|doesn't matter|does not matter|no strong feelings|not sure|don't know|do not know|"
    r"can't say|cannot say|no preference|don't mind|either is fine|whatever|mentioned that|already said|"
    r"covered|told you everything|all i can think of|haven't thought)\b", re.I)
# Words that carry a cue or a frame, never content.
_FRAME_WORDS = frozenset("""
    anyone anybody someone somebody looking look elsewhere disappointed disappoint expecting expect expected
    wondering case come came want wanted wants wish love loved like liked prefer ideally somewhere place
    something anything avoid rather hate dislike stand steer clear skip less please really definitely maybe
    perhaps think thinking guess suppose honest mostly care possible kind sort bit lot looking after would i'd i'm
    we'd we're you're they're fan defines
""".split()) | PRAISE
# Adjectives that look like adverbs, which `is_content` drops ("friendly staff", "lively buzz").
_LY_ADJECTIVES = frozenset("""
    lively friendly family costly early chilly lovely elderly homely silly jolly curly bubbly ugly lonely
    daily weekly monthly yearly oily hilly smelly kindly stately orderly unfriendly
""".split())
SIMILAR_COPY = 0.92  # a neighbour this close to the query adds nothing as a supporting statement


class SnippetOut(BaseModel):
    text: str = Field(description="One short statement about the item, e.g. 'This restaurant serves kebabs.'")
    aspect: str | None = Field(default=None, description="What it is about (food, service, ...), if clear.")
    sentiment: float = Field(default=0.0, ge=-1.0, le=1.0, description="The reviewer's attitude, -1..1.")
    negated: bool = Field(default=False, description="True when it says the item lacks something.")


class ItemSnippets(BaseModel):
    snippets: list[SnippetOut] = Field(default_factory=list)


class QuerySnippet(BaseModel):
    text: str = Field(description="What the seeker wants or does not want, as a statement about the item.")
    preference: Preference = "prefer"
    negated: bool = Field(default=False, description="The statement says the item lacks something.")

    @property
    def sign(self) -> int:
        return 1 if self.preference == "prefer" else -1


class QuerySnippets(BaseModel):
    snippets: list[QuerySnippet] = Field(default_factory=list)


# Contrasts that name what the item is *not* like without a negative word: rewritten to
# "no X; Y" so the lacked half becomes a negated clause of its own.
_CONTRASTS = (
    re.compile(r"^\s*unlike (?:the |a |an )?(?P<lack>.+?)(?: at (?:the )?(?:place|spot|one) [^,]+)?, "
               r"(?P<has>.+)$", re.I),
    re.compile(r"^.*?\bcompared? (?:it |this )?(?:to|with) (?:somewhere|some place|a place|places) with "
               r"(?P<lack>.+?), but (?P<has>.+)$", re.I),
    re.compile(r"^\s*i (?:expected|was expecting) (?P<lack>.+?),? (?:and|but) got (?P<has>.+?)(?: instead)?[.!]?$",
               re.I),
    re.compile(r"^(?P<has>.+?),? (?:rather than|instead of) (?P<lack>.+?)[.!]?$", re.I),
)


# ------------------------------------------------------------------ offline text helpers
def without_contrast(sentence: str) -> str:
    """ "Unlike the loud bar next door, here it's calm" -> "no loud bar; here it's calm"."""
    for pattern in _CONTRASTS:
        match = pattern.match(sentence)
        if match:
            return f"no {match['lack']}; {match['has']}"
    return sentence


def clauses(text: str) -> list[str]:
    """Sentences cut further at semicolons and contrast words."""
    return [part.strip(" ,.!?") for sentence in sentences(text)
            for part in _CLAUSE_CUT.split(without_contrast(sentence)) if part and part.strip(" ,.!?")]


def content_phrase(clause: str) -> str:
    """The clause's content words in order, without cue, frame and praise words."""
    skip = non_content_words()
    words = [w for w in tokens(clause) if w not in _FRAME_WORDS and (is_content(w, skip) or w in _LY_ADJECTIVES)]
    return " ".join(dict.fromkeys(words))


def canonical(noun: str, phrase: str, negated: bool = False) -> str:
    return f"This {noun} {'does not have' if negated else 'has'} {phrase}."


def aspect_of(clause: str, aspect_terms: Mapping[str, str]) -> str | None:
    """The first aspect whose term the clause names (terms are lower-case words or phrases)."""
    text = f" {' '.join(tokens(clause))} "
    return next((aspect for term, aspect in aspect_terms.items() if f" {term} " in text), None)


def offline_item_snippets(text: str, noun: str, aspect_terms: Mapping[str, str] | None = None) -> list[SnippetOut]:
    """A review's snippets, offline: one per clause that has content words."""
    found: dict[str, SnippetOut] = {}
    for clause in clauses(text):
        phrase = content_phrase(clause)
        if not phrase:
            continue
        negated = bool(_LACK_CUE.search(_NOT_LACKING.sub(" ", clause)))
        snippet = canonical(noun, phrase, negated)
        found.setdefault(snippet, SnippetOut(text=snippet, aspect=aspect_of(clause, aspect_terms or {}),
                                             sentiment=round(sentiment(clause), 4), negated=negated))
    return list(found.values())


def offline_query_snippets(answer: str, noun: str) -> list[QuerySnippet]:
    """The answer's preferences, offline: one per clause with content, signed by its cue words;
    a sentence stating no preference gives nothing."""
    found: dict[tuple[str, str], QuerySnippet] = {}
    for sentence in sentences(answer) or [answer]:
        if _NO_PREFERENCE.search(sentence):
            continue
        for clause in clauses(sentence) or [sentence]:
            phrase = content_phrase(clause)
            if not phrase:
                continue
            preference: Preference = "dislike" if _DISLIKE_CUE.search(_NEGATIVE_COMPOUND.sub(" ", clause)) else "prefer"
            query = QuerySnippet(text=canonical(noun, phrase), preference=preference)
            found.setdefault((query.text, preference), query)
    return list(found.values())


def frame_phrase(text: str, noun: str) -> str:
    """The content of a canonical snippet ("This restaurant has cozy room." -> "cozy room")."""
    for frame in (f"This {noun} does not have ", f"This {noun} has "):
        if text.startswith(frame):
            return text[len(frame):].rstrip(".")
    return text.rstrip(".")


def snippet_content(text: str, noun: str) -> str:
    """What a snippet, sentence or answer is about: its content words without the canonical
    frame ("This restaurant does not have a loud bar." -> "loud bar"). The cheap validator
    compares these, since the frame dominates whole-text cosines."""
    return content_phrase(frame_phrase(text, noun))


# ------------------------------------------------------------------ item snippets
@dataclass(frozen=True, slots=True)
class ItemSnippetInput:
    review: str
    item_noun: str
    title: str = ""
    aspect_terms: Mapping[str, str] = field(default_factory=dict)


class ItemSnippetStep(LanguageStep[ItemSnippetInput, ItemSnippets]):
    name = "snippet_item"
    prompt_name = "snippet_item"
    output_model = ItemSnippets

    def offline(self, inputs: ItemSnippetInput) -> ItemSnippets:
        return ItemSnippets(snippets=offline_item_snippets(inputs.review, inputs.item_noun, inputs.aspect_terms))

    def prompt_variables(self, inputs: ItemSnippetInput) -> dict[str, str]:
        return {"item_noun": inputs.item_noun, "title": inputs.title or "(untitled)", "review": inputs.review}

    def accept(self, output: ItemSnippets, inputs: ItemSnippetInput) -> ItemSnippets:
        kept = [s for s in output.snippets if s.text.strip()]
        return ItemSnippets(snippets=kept) if kept or not inputs.review.strip() else self.offline(inputs)


# ------------------------------------------------------------------ query snippets
@dataclass(frozen=True, slots=True)
class QuerySnippetInput:
    question: str
    answer: str
    item_noun: str
    known: Sequence[str] = ()   # query snippets of earlier turns: not repeated


class QuerySnippetStep(LanguageStep[QuerySnippetInput, QuerySnippets]):
    name = "snippet_query"
    prompt_name = "snippet_query"
    output_model = QuerySnippets

    def offline(self, inputs: QuerySnippetInput) -> QuerySnippets:
        return self.new_only(QuerySnippets(snippets=offline_query_snippets(inputs.answer, inputs.item_noun)), inputs)

    def prompt_variables(self, inputs: QuerySnippetInput) -> dict[str, str]:
        known = "\n".join(f"- {text}" for text in inputs.known) or "(none)"
        return {"item_noun": inputs.item_noun, "question": inputs.question or "(none)", "answer": inputs.answer,
                "known": known}

    def accept(self, output: QuerySnippets, inputs: QuerySnippetInput) -> QuerySnippets:
        """New statements grounded in the answer. Qwen2.5-1.5B added the prompt's own examples
        ("This restaurant has a cozy atmosphere.", "This restaurant is noisy." as a dislike) to
        answers that said neither, in 3 of 35 calls of a SnipRec run: the ranking then
        followed preferences nobody stated."""
        said = content_stems(inputs.answer, inputs.item_noun)
        grounded = [s for s in output.snippets if content_stems(s.text, inputs.item_noun) & said]
        return self.new_only(QuerySnippets(snippets=grounded), inputs)

    @staticmethod
    def new_only(output: QuerySnippets, inputs: QuerySnippetInput) -> QuerySnippets:
        known = {text.strip().lower() for text in inputs.known}
        return QuerySnippets(snippets=[s for s in output.snippets
                                       if s.text.strip() and s.text.strip().lower() not in known])


def content_stems(text: str, item_noun: str) -> set[str]:
    """The first five letters of each content word, the item noun left out: "noisy" and
    "noise" meet, "restaurant" says nothing about which one."""
    nouns = {item_noun.lower(), item_noun.lower().rstrip("s")}
    return {w[:5] for w in tokens(text) if is_content(w) and w not in nouns}


# ------------------------------------------------------------------ expansion
Transformation = Literal["paraphrase", "support", "opposite"]


class Expansion(BaseModel):
    paraphrase: str | None = Field(default=None, description="The same preference in other words.")
    support: str | None = Field(default=None, description="A statement that usually comes with it.")
    opposite: str | None = Field(default=None, description="The statement that would contradict it.")


@dataclass(frozen=True, slots=True)
class ExpandInput:
    query: QuerySnippet
    item_noun: str
    transformations: tuple[Transformation, ...]
    neighbours: Sequence[tuple[str, float]] = ()   # (item snippet, cosine) retrieved for the query


class ExpandStep(LanguageStep[ExpandInput, Expansion]):
    name = "snippet_expand"
    prompt_name = "snippet_expand"
    output_model = Expansion

    def offline(self, inputs: ExpandInput) -> Expansion:
        noun, query = inputs.item_noun, inputs.query
        phrase = frame_phrase(query.text, noun)
        support = next((text for text, cosine in inputs.neighbours if cosine < SIMILAR_COPY and text != query.text),
                       None)
        return self.accept(Expansion(paraphrase=phrase if phrase != query.text else None, support=support,
                                     opposite=canonical(noun, phrase, negated=not query.negated)), inputs)

    def prompt_variables(self, inputs: ExpandInput) -> dict[str, str]:
        return {"item_noun": inputs.item_noun, "snippet": inputs.query.text,
                "preference": inputs.query.preference}

    def accept(self, output: Expansion, inputs: ExpandInput) -> Expansion:
        wanted = set(inputs.transformations)
        return Expansion(**{name: value for name, value in output.model_dump().items() if name in wanted})


def expanded(query: QuerySnippet, expansion: Expansion) -> list[QuerySnippet]:
    """The query snippet and its expansions as signed query snippets: the opposite statement
    counts against (a preferred "has X" becomes a disliked "does not have X")."""
    out = [query]
    for text in (expansion.paraphrase, expansion.support):
        if text:
            out.append(QuerySnippet(text=text, preference=query.preference, negated=query.negated))
    if expansion.opposite:
        flipped: Preference = "dislike" if query.preference == "prefer" else "prefer"
        out.append(QuerySnippet(text=expansion.opposite, preference=flipped, negated=not query.negated))
    return out
