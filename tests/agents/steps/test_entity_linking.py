"""Offline entity linking on a fixture of 66 hand-written utterances: precision, recall, attitudes.

The utterances (`fixtures/linking_utterances.jsonl`) name films of `fixtures/linking_movies.jsonl`
inside sentences, with typos, abbreviations and numbered sequels, plus sentences with no film
at all and everyday words that happen to be titles ("It", "Up", "Her", "Split", "Taken").
Gold labels are the films meant and the sign of the speaker's attitude.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from crsim_testing import make_movie_catalog

from agents.steps.crag.attitude import attitude_near, clause_score
from agents.steps.crag.entity_linking import LinkCandidates, TextLinker, tie_rule
from environments.search.titles import TitleIndex, TitleMatch

UTTERANCES = Path(__file__).parent / "fixtures" / "linking_utterances.jsonl"


@pytest.fixture(scope="module")
def linker() -> TextLinker:
    return TextLinker(TitleIndex(make_movie_catalog(interactions=False)))


def linked(linker: TextLinker, text: str) -> dict[str, int]:
    """Title -> attitude of every film found and linked in `text`."""
    found = {}
    for mention in linker.find(text):
        position, _, _ = linker.link(mention.name)
        if position is not None:
            found[linker.index.titles[position]] = mention.attitude
    return found


def sign(value: int) -> int:
    return (value > 0) - (value < 0)


def test_precision_recall_and_attitudes_on_the_fixture(linker):
    rows = [json.loads(line) for line in UTTERANCES.read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 50
    tp = fp = fn = agree = 0
    by_kind: dict[str, list[int]] = {}
    for row in rows:
        gold = {m["title"]: m["attitude"] for m in row["mentions"]}
        found = linked(linker, row["text"])
        hits = [t for t in found if t in gold]
        tp, fp, fn = tp + len(hits), fp + len(found) - len(hits), fn + len(gold) - len(hits)
        agree += sum(sign(found[t]) == sign(gold[t]) for t in hits)
        counts = by_kind.setdefault(row["kind"], [0, 0])
        counts[0] += len(hits)
        counts[1] += len(gold)
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    assert precision >= 0.9 and recall >= 0.9, (precision, recall)
    assert agree / tp >= 0.85
    for kind in ("typo", "abbrev", "sentence", "redial"):  # every hard category, not just the average
        hits, total = by_kind[kind]
        assert hits / total >= 0.8, (kind, hits, total)


@pytest.mark.parametrize(("text", "title"), [
    ("Things in the vein of the more modern AvP movies", "Alien vs. Predator (2004)"),
    ("i have watched 10 things i hate about you and its my absolute favorite", "10 Things I Hate About You (1999)"),
    ("Star Wars I is underrated honestly", "Star Wars: Episode I - The Phantom Menace (1999)"),
    ("jurasic park was my childhood", "Jurassic Park (1993)"),
    ("I grew up on T2", "Terminator 2: Judgment Day (1991)"),
])
def test_typos_abbreviations_and_titles_inside_sentences(linker, text, title):
    assert list(linked(linker, text)) == [title]


@pytest.mark.parametrize("text", ["It was up to her to get out of there in time",
                                  "We had to split up because the line was too long", "hello! how are you today?"])
def test_everyday_words_are_not_taken_for_titles(linker, text):
    assert linked(linker, text) == {}


def test_everyday_word_titles_count_with_evidence(linker):
    assert linked(linker, "We watched Up last night and my daughter loved it") == {"Up (2009)": 2}
    assert list(linked(linker, 'I just saw "Her" and it was beautiful')) == ["Her (2013)"]
    assert list(linked(linker, "I also liked It (1990)")) == ["It (1990)"]  # the year picks the namesake


def match(index: TitleIndex, title: str, score: float = 0.0) -> TitleMatch:
    return TitleMatch(index.titles.index(title), title, score)


def test_tie_rule_keeps_fuzzy_for_typos_bm25_for_numbers_and_none_for_nonsense(linker):
    index = linker.index
    typo = LinkCandidates("the notebok", match(index, "The Notebook (2004)"), match(index, "Nothing to Lose (1997)"))
    assert tie_rule(index, typo) == (index.titles.index("The Notebook (2004)"), "fuzzy")
    numbered = LinkCandidates("star wars 2", match(index, "Star Wars (1977)"),
                              match(index, "Star Wars: Episode II - Attack of the Clones (2002)"))
    assert tie_rule(index, numbered) == (index.titles.index("Star Wars: Episode II - Attack of the Clones (2002)"),
                                         "bm25")
    nonsense = LinkCandidates("my cat sat here", match(index, "Crash (2004)"), match(index, "Up (2009)"))
    assert tie_rule(index, nonsense) == (None, "none")
    same = LinkCandidates("Inception", match(index, "Inception (2010)"), match(index, "Inception (2010)"))
    assert tie_rule(index, same) == (index.titles.index("Inception (2010)"), "both")


def test_attitude_reads_the_clause_with_negation_and_ignores_title_words():
    assert clause_score("i really enjoyed it".split()) == 1
    assert clause_score("not a fan to be honest".split()) == -1
    assert clause_score("it was not great".split()) == -1  # negated strong word caps at 1
    text = "I watched Happy Death Day but it was boring"
    start = text.index("Happy")
    assert attitude_near(text, start, start + len("Happy Death Day")) == -1  # "happy" is the title's
    text = "I loved Coco but Moana bored me"
    assert attitude_near(text, text.index("Coco"), text.index("Coco") + 4) == 2
    assert attitude_near(text, text.index("Moana"), text.index("Moana") + 5) == -1
