"""Offline entity linking for CRAG: find item names in text, link them, settle disagreements.

CRAG (§3.1) has a language model list the items an utterance mentions, with attitudes;
each name is then matched to the catalog twice — character-level fuzzy and word-level
BM25 (`environments/search/titles.py`) — and a reflection step settles the cases where
the two disagree. This module is the offline side of all three:

*Finding names* (`TextLinker.find`), in order, each on the words not yet claimed:
1. exact forms: the longest run of words equal to a title form ("10 things i hate
   about you" anywhere in a sentence, any case). A form made only of everyday words
   ("It", "Up", "Get Out") or a single short word counts only with evidence: a year in
   brackets after it, quotes or asterisks around it, or Title Case away from the start
   of a sentence. A number right after a form (same sentence, nothing but a space
   between) joins the name ("Star Wars I", "Nymphomaniac 2"), for the word-level match
   to resolve;
2. acronyms: a short token in capitals ("AvP", "LOTR", "T2") equal to the initials of
   a title, replaced by that title — what the language model's extraction does when it
   "fixes abbreviations";
3. typos: an unknown word within one or two edits of a rare title word; windows of the
   sentence around it are compared with that title's forms (Levenshtein ratio ≥ 85;
   ≥ 88 for one-word titles).

*The tie rule* (`tie_rule`), the offline reflection. With the fuzzy match F and the
BM25 match B of a name:
- F = B: "both" (if that title holds at least half of the name's words);
- otherwise each candidate gets (coverage, precision, char similarity): the share of the
  name's words found in its title (typos allowed), the share of its title's words found
  in the name, and fuzz.ratio(name, title); the larger triple wins, ties go to the
  fuzzy match (it saw every character);
- a winner covering less than half of the name's words means neither is right: "none".
So a typo keeps the fuzzy match (BM25 lost the misspelt word) and a short form with a
number takes the BM25 match that contains the number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from agents.steps.crag.attitude import attitude_near
from environments.search.titles import TOKEN, TitleIndex, TitleMatch, norm_token, title_tokens

Method = Literal["fuzzy", "bm25", "both", "none"]

# Everyday English words: a title made only of these ("It", "Up", "Her", "Get Out") needs evidence.
COMMON_WORDS = frozenset("""
a about after again against all almost also always am among an and another any anything are around as at away
back bad be because been before being best better between big both bring but by call came can come could day did
do does done down each even ever every face far feel few find first for from fun get give go going good got great
had has have he hear her here him his home house how i if in into is it its just keep kind know last left let life
like little live long look love made make man many may me men might more most much must my need never new next nice
night no not nothing now of off old on once one only or other our out over own part people place play put real
really right run said same say see seen she should show side so some something still stop story such sure take
tell than thank thanks that the their them then there these they thing things think this those though through time
to today together too two under up us very want was watch watched way we well went were what when where which while
who why will with without woman women work world would yeah year years yes yet you young your
""".split())
YEAR_AFTER = re.compile(r"\s*\(\s*(\d{4})\s*\)")
QUOTES = set("\"'“”‘’*_")
NUMERAL = re.compile(r"^(\d{1,2}|[ivx]{1,4})$")
ACRONYM = re.compile(r"^(?:(?=(?:.*[A-Z]){2})[A-Za-z0-9]{3,6}|[A-Z][A-Za-z]*\d{1,2})$")  # AvP, LOTR, T2; not "LA"


@dataclass(frozen=True, slots=True)
class RawMention:
    """An item name as read (or as standardised, for acronyms) with the speaker's attitude."""

    name: str
    attitude: int
    start: int = -1
    end: int = -1


@dataclass(frozen=True, slots=True)
class LinkCandidates:
    """The fuzzy and the BM25 match of one name."""

    raw: str
    fuzzy: TitleMatch | None
    bm25: TitleMatch | None

    @property
    def agree(self) -> bool:
        return self.fuzzy is not None and self.bm25 is not None and self.fuzzy.item == self.bm25.item


def candidates(index: TitleIndex, raw: str) -> LinkCandidates:
    return LinkCandidates(raw, index.char_match(raw), index.word_match(raw))


def tie_rule(index: TitleIndex, found: LinkCandidates) -> tuple[int | None, Method]:
    """The offline reflection on one name's two matches (see the module docstring)."""
    from rapidfuzz import fuzz

    if found.agree:
        item = found.fuzzy.item  # type: ignore[union-attr]
        return (item, "both") if index.coverage(found.raw, item)[0] >= 0.5 else (None, "none")
    name = " ".join(title_tokens(found.raw))
    scored = []
    for method, match in (("fuzzy", found.fuzzy), ("bm25", found.bm25)):
        if match is None:
            continue
        covered, precise = index.coverage(found.raw, match.item)
        similarity = fuzz.ratio(name, " ".join(title_tokens(index.titles[match.item])))
        scored.append(((covered, precise, similarity, method == "fuzzy"), match.item, method))
    if not scored:
        return None, "none"
    (covered, *_), item, method = max(scored, key=lambda entry: entry[0])
    if covered < 0.5:
        return None, "none"
    return item, method  # type: ignore[return-value]


@dataclass(slots=True)
class _Token:
    norm: str
    start: int
    end: int
    text: str


@dataclass(slots=True)
class _Span:
    first: int  # token positions [first, last)
    last: int
    items: list[int]
    name: str | None = None  # standardised name (acronyms); None: the text itself


class TextLinker:
    """Finds and links item names in utterances for one catalog; results memoised per text."""

    def __init__(self, index: TitleIndex, memo_size: int = 50_000):
        self.index = index
        self.memo_size = memo_size
        self._memo: dict[str, list[RawMention]] = {}
        self._links: dict[str, tuple[int | None, Method, LinkCandidates]] = {}
        self._rare = [t for t, items in index.by_token.items()
                      if t not in COMMON_WORDS and len(t) >= 4 and len(items) <= 50]

    # ---------------------------------------------------------------- finding
    def find(self, text: str) -> list[RawMention]:
        """The item names in `text`, in order, each with the speaker's attitude."""
        cached = self._memo.get(text)
        if cached is not None:
            return cached
        tokens = [_Token(n, m.start(), m.end(), m.group(0)) for m in TOKEN.finditer(text)
                  if (n := norm_token(m.group(0)))]
        spans = self._exact(text, tokens)
        taken = {p for s in spans for p in range(s.first, s.last)}
        spans += self._acronyms(tokens, taken)
        taken = {p for s in spans for p in range(s.first, s.last)}
        spans += self._typos(tokens, taken)
        spans.sort(key=lambda s: s.first)
        ranges = [(tokens[s.first].start, tokens[s.last - 1].end) for s in spans]
        mentions = []
        for span, (start, end) in zip(spans, ranges):
            name = span.name or text[start:end]
            year = YEAR_AFTER.match(text, end)
            if year and span.name is None:
                name = f"{name} ({year.group(1)})"
            mentions.append(RawMention(name, attitude_near(text, start, end, ranges), start, end))
        if len(self._memo) >= self.memo_size:
            self._memo.clear()
        self._memo[text] = mentions
        return mentions

    def _exact(self, text: str, tokens: list[_Token]) -> list[_Span]:
        index, spans, i = self.index, [], 0
        while i < len(tokens):
            for n in range(min(index.max_form_tokens, len(tokens) - i), 0, -1):
                form = " ".join(t.norm for t in tokens[i:i + n])
                items = index.by_form.get(form)
                if items and self._evidence(text, tokens, i, n, form):
                    last = i + n
                    if last < len(tokens) and NUMERAL.match(tokens[last].norm) and \
                            not text[tokens[last - 1].end:tokens[last].start].strip() and \
                            f"{form} {tokens[last].norm}" not in index.by_form:
                        last += 1  # "Star Wars I": the number decides which one
                    spans.append(_Span(i, last, items))
                    i = last
                    break
            else:
                i += 1
        return spans

    @staticmethod
    def _evidence(text: str, tokens: list[_Token], i: int, n: int, form: str) -> bool:
        """Whether a form made of everyday words (or one short word) is meant as a title here."""
        words = form.split()
        weak = all(w in COMMON_WORDS for w in words) or (n == 1 and (len(words[0]) < 6 or words[0].isdigit()))
        if not weak:
            return True
        start, end = tokens[i].start, tokens[i + n - 1].end
        if YEAR_AFTER.match(text, end):
            return True
        before, after = text[:start].rstrip()[-1:], text[end:].lstrip()[:1]
        if before in QUOTES and after in QUOTES:
            return True
        title_case = all(t.text[0].isupper() or not t.text[0].isalpha() for t in tokens[i:i + n])
        sentence_start = not before or before in ".!?\n"
        return title_case and not sentence_start and not (n == 1 and tokens[i].text == "I")

    def _acronyms(self, tokens: list[_Token], taken: set[int]) -> list[_Span]:
        spans = []
        for position, token in enumerate(tokens):
            if position in taken or token.norm in COMMON_WORDS or not ACRONYM.match(token.text):
                continue
            items = self.index.acronym_items(token.norm)
            if items:
                best = self.index.best(items)
                spans.append(_Span(position, position + 1, [best], name=self.index.titles[best]))
        return spans

    def _typos(self, tokens: list[_Token], taken: set[int]) -> list[_Span]:
        from rapidfuzz import fuzz, process
        from rapidfuzz.distance import Levenshtein

        index, found = self.index, []
        for position, token in enumerate(tokens):
            word = token.norm
            if position in taken or len(word) < 4 or word in COMMON_WORDS or word in index.by_token:
                continue
            near = process.extract(word, self._rare, scorer=Levenshtein.distance,
                                   score_cutoff=1 if len(word) <= 5 else 2, limit=5)
            for vocab_word, _, _ in near:
                for item in index.by_token[vocab_word]:
                    for form in index.forms[item]:
                        size = len(form.split())
                        if vocab_word not in form.split():
                            continue
                        for width in {max(1, size - 1), size, size + 1}:
                            for first in range(max(0, position - width + 1), min(position, len(tokens) - width) + 1):
                                if any(p in taken for p in range(first, first + width)):
                                    continue
                                window = " ".join(t.norm for t in tokens[first:first + width])
                                score = fuzz.ratio(window, form)
                                if score >= (88 if size == 1 else 85):
                                    found.append((score, first, first + width, item))
        spans: list[_Span] = []
        for score, first, last, item in sorted(found, key=lambda f: (-f[0], f[1], f[3])):
            if any(p in taken for p in range(first, last)):
                continue
            taken.update(range(first, last))
            spans.append(_Span(first, last, [item]))
        return spans

    # ---------------------------------------------------------------- linking
    def candidates(self, raw: str) -> LinkCandidates:
        return candidates(self.index, raw)

    def link(self, raw: str) -> tuple[int | None, Method, LinkCandidates]:
        """(catalog position or None, method, the two matches) for one name, by the tie rule."""
        cached = self._links.get(raw)
        if cached is None:
            found = candidates(self.index, raw)
            item, method = tie_rule(self.index, found)
            cached = self._links[raw] = (item, method, found)
            if len(self._links) > self.memo_size:
                self._links.clear()
        return cached
