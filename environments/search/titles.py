"""Finding catalog items by name: character-level fuzzy match, word-level BM25, acronyms.

CRAG links every item name it reads (in a dialogue, or in a language model's answer) to
the catalog at two granularities, because they fail differently: a character-level
match (Levenshtein ratio) forgives typos ("Jurasic Park") but not missing words, a
word-level BM25 match over titles finds "Star Wars II" in "Star Wars: Episode II - Attack
of the Clones" but not a misspelt word. Where they disagree, a reflection step decides
(`agents/steps/crag/entity_linking.py`).

Titles and text go through one tokenizer (`title_tokens`) so that an exact title found in
a sentence and the title in the catalog produce the same tokens: accents dropped,
apostrophes joined ("Pan's" -> "pans"), "&" read as "and", other punctuation splits, and
multi-letter Roman numerals read as numbers ("II" -> "2"; a lone "I", "V" or "X" is too
often a word or a name to convert). Each item is known under a few *forms*: the title
without its year, without a leading article, and its main title before a colon or dash
("Master and Commander" for "Master and Commander: The Far Side of the World").
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from environments.datasets.normalize import title_year

if TYPE_CHECKING:
    from environments.catalog import Catalog

TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|&", re.UNICODE)
ROMAN = {"ii": "2", "iii": "3", "iv": "4", "vi": "6", "vii": "7", "viii": "8", "ix": "9"}
ARTICLES = ("the", "a", "an")
_ARTICLE_AT_END = re.compile(r"^(.*?),\s*(the|a|an)$", re.IGNORECASE)
_PARENS = re.compile(r"\([^)]*\)")
_MAIN_SPLIT = re.compile(r"\s*(?::|\s[-–—]\s)\s*")


_TRAILING_YEAR = re.compile(r"\s*\(\s*\d{4}\s*\)\s*$")


def spoken_title(title: str) -> str:
    """A title as people write it: no trailing year, single spaces ("Superbad  (2007)" -> "Superbad")."""
    return " ".join(_TRAILING_YEAR.sub("", title).split())


def norm_token(token: str) -> str:
    """One token as the index sees it (lower-case, accent-free, apostrophes joined, numerals)."""
    if token == "&":
        return "and"
    text = unicodedata.normalize("NFKD", token).encode("ascii", "ignore").decode().lower()
    text = text.replace("'", "").replace("’", "")
    return ROMAN.get(text, text)


def title_tokens(text: str) -> list[str]:
    """Normalised tokens of a title or of free text."""
    return [t for t in (norm_token(m.group(0)) for m in TOKEN.finditer(text)) if t]


def title_forms(title: str) -> tuple[list[str], int | None]:
    """The forms (normalised, space-joined) an item is known under, and its year."""
    base, year = title_year(title)
    base = _PARENS.sub(" ", base).strip()
    moved = _ARTICLE_AT_END.match(base)
    if moved:
        base = f"{moved.group(2)} {moved.group(1)}"
    parts = _MAIN_SPLIT.split(base)
    candidates = [base, parts[0]]
    # distinctive subtitles name the film on their own ("The Fellowship of the Ring");
    # short ones ("Part II", "Fury Road", "First Class") are too generic to stand alone
    candidates += [part for part in parts[1:] if len(title_tokens(part)) >= 3]
    forms: list[str] = []
    for candidate in candidates:
        tokens = title_tokens(candidate)
        if not tokens:
            continue
        forms.append(" ".join(tokens))
        if len(tokens) > 1 and tokens[0] in ARTICLES:
            forms.append(" ".join(tokens[1:]))
    return list(dict.fromkeys(forms)), year


def acronym(tokens: list[str]) -> str:
    """First letters of the words, numbers kept whole: "alien vs predator" -> "avp", "terminator 2" -> "t2"."""
    return "".join(t if t.isdigit() else t[0] for t in tokens)


@dataclass(frozen=True, slots=True)
class TitleMatch:
    """An item found for a name: its catalog position, the form matched and the score."""

    item: int
    form: str
    score: float


class TitleIndex:
    """Forms, a BM25 index over titles and an acronym table for one catalog."""

    def __init__(self, catalog: Catalog):
        from environments.search.bm25 import BM25_PARAMS, BM25Index, _new_bm25

        self.item_ids = list(catalog.item_ids)
        self.titles = [item.title for item in catalog.items]
        self.years: list[int | None] = []
        self.forms: list[list[str]] = []
        self.popularity = np.asarray([float(item.extra.get("mentions", 0) or 0) for item in catalog.items])
        by_form: dict[str, list[int]] = defaultdict(list)
        by_acronym: dict[str, list[int]] = defaultdict(list)
        by_token: dict[str, set[int]] = defaultdict(set)
        for position, item in enumerate(catalog.items):
            forms, year = title_forms(item.title)
            self.forms.append(forms)
            self.years.append(year)
            for form in forms:
                by_form[form].append(position)
                tokens = form.split()
                for token in tokens:
                    by_token[token].add(position)
                if len(tokens) > 1:
                    by_acronym[acronym(tokens)].append(position)
        self.by_form = {form: _unique(items) for form, items in by_form.items()}
        self.by_acronym = {key: _unique(items) for key, items in by_acronym.items()}
        self.by_token = {token: sorted(items) for token, items in by_token.items()}
        self.form_list = list(self.by_form)
        self.max_form_tokens = max((len(f.split()) for f in self.form_list), default=1)
        documents = [" ".join(title_tokens(_PARENS.sub(" ", title_year(t)[0]))) for t in self.titles]
        retriever = _new_bm25(**BM25_PARAMS)
        retriever.index([doc.split() for doc in documents], show_progress=False)
        self._bm25 = BM25Index(retriever, self.item_ids, f"titles:{catalog.fingerprint}")
        self._bm25.tokenizer = title_tokens  # type: ignore[assignment]  # no stemming, numerals kept
        self.title_token_sets = [set(doc.split()) for doc in documents]

    # ------------------------------------------------------------------ choosing
    def best(self, items: list[int], year: int | None = None) -> int:
        """Among items sharing a name: the one of the given year, else the most mentioned, else the first."""
        if year is not None:
            same_year = [i for i in items if self.years[i] == year]
            if same_year:
                items = same_year
        return max(items, key=lambda i: (self.popularity[i], -i))

    # ------------------------------------------------------------------ matching
    def char_match(self, name: str) -> TitleMatch | None:
        """Best form by character-level similarity (normalised Levenshtein ratio, 0-100)."""
        from rapidfuzz import fuzz, process

        base, year = title_year(name)
        query = " ".join(title_tokens(base))
        if not query:
            return None
        found = process.extractOne(query, self.form_list, scorer=fuzz.ratio)
        if found is None:
            return None
        form, score, _ = found
        return TitleMatch(self.best(self.by_form[form], year), form, float(score))

    def word_match(self, name: str) -> TitleMatch | None:
        """Best title by word-level BM25 over titles (None when no word of the name occurs in any)."""
        base, year = title_year(name)
        scores = self._bm25.scores(base)
        top = float(scores.max()) if len(scores) else 0.0
        if top <= 0:
            return None
        # coordination first: a title holding more of the name's words ranks higher, BM25 orders
        # titles holding as many ("Star Wars II" is Episode II, not the shorter "Star Wars")
        scores = self._bm25.matched_terms(base) + scores / (2.0 * top)
        top = float(scores.max())
        tied = np.flatnonzero(scores >= top - 1e-6).tolist()
        item = self.best(tied, year)
        return TitleMatch(item, " ".join(title_tokens(self.titles[item])), top)

    def acronym_items(self, token: str) -> list[int]:
        return self.by_acronym.get(token.lower(), [])

    def coverage(self, name: str, item: int) -> tuple[float, float]:
        """(share of the name's words found in the item's title, share of the title's words in the name).

        Words match when equal or nearly so (Levenshtein ratio ≥ 80), so a typo still covers.
        """
        from rapidfuzz import fuzz

        words = title_tokens(title_year(name)[0])
        title = self.title_token_sets[item]
        if not words or not title:
            return 0.0, 0.0

        def near(word: str, pool: set[str]) -> bool:
            return word in pool or any(fuzz.ratio(word, other) >= 80 for other in pool)

        covered = sum(near(w, title) for w in words) / len(words)
        precise = sum(near(t, set(words)) for t in title) / len(title)
        return covered, precise

    def __len__(self) -> int:
        return len(self.item_ids)


def _unique(items: list[int]) -> list[int]:
    return list(dict.fromkeys(items))


_INDEXES: dict[str, TitleIndex] = {}
_LOCK = threading.Lock()


def title_index(catalog: Catalog) -> TitleIndex:
    """The process-wide index for a catalog (titles only: a view withholding reviews shares it)."""
    key = f"{len(catalog.items)}:{hash(tuple(catalog.item_ids))}:{hash(tuple(i.title for i in catalog.items))}"
    with _LOCK:
        index = _INDEXES.get(key)
        if index is None:
            index = _INDEXES[key] = TitleIndex(catalog)
        return index
