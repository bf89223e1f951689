"""Finding items by name: forms, character-level fuzzy match, word-level BM25, acronyms."""

from __future__ import annotations

import pytest

from environments.catalog import Catalog
from environments.models import CatalogManifest, Item
from environments.search.titles import TitleIndex, acronym, title_forms, title_tokens

TITLES = ["Star Wars (1977)", "Star Wars: Episode I - The Phantom Menace (1999)",
          "Star Wars: Episode II - Attack of the Clones (2002)", "Alien vs. Predator (2004)", "Alien (1979)",
          "Jurassic Park (1993)", "Matrix, The (1999)", "Pan's Labyrinth (2006)", "It (2017)", "It (1990)",
          "The Lord of the Rings: The Fellowship of the Ring (2001)", "Mad Max: Fury Road (2015)",
          "Terminator 2: Judgment Day (1991)", "Amélie (2001)"]


@pytest.fixture(scope="module")
def index() -> TitleIndex:
    items = [Item(id=f"m{i}", title=t, extra={"mentions": 50 if t == "It (2017)" else 10})
             for i, t in enumerate(TITLES)]
    return TitleIndex(Catalog(CatalogManifest(name="m", item_noun="movies"), items))


def test_tokens_join_apostrophes_drop_accents_and_read_roman_numerals():
    assert title_tokens("Pan's Labyrinth") == ["pans", "labyrinth"]
    assert title_tokens("Amélie & Co. Part II") == ["amelie", "and", "co", "part", "2"]
    assert title_tokens("Star Wars I") == ["star", "wars", "i"]  # a lone I stays a word


def test_forms_cover_main_titles_articles_and_long_subtitles():
    forms, year = title_forms("The Lord of the Rings: The Fellowship of the Ring (2001)")
    assert year == 2001
    assert set(forms) == {"the lord of the rings the fellowship of the ring", "lord of the rings the fellowship of the ring",
                          "the lord of the rings", "lord of the rings", "the fellowship of the ring",
                          "fellowship of the ring"}
    assert "fury road" not in title_forms("Mad Max: Fury Road (2015)")[0]  # short subtitles are too generic
    assert title_forms("Matrix, The (1999)")[0] == ["the matrix", "matrix"]
    assert acronym(["alien", "vs", "predator"]) == "avp" and acronym(["terminator", "2"]) == "t2"


def test_char_match_forgives_typos_and_uses_the_year_among_namesakes(index):
    match = index.char_match("Jurasic Prak")
    assert index.titles[match.item] == "Jurassic Park (1993)" and 80 < match.score < 100
    assert index.titles[index.char_match("It (1990)").item] == "It (1990)"
    assert index.titles[index.char_match("it").item] == "It (2017)"  # no year: the most mentioned


def test_word_match_prefers_titles_holding_more_of_the_words(index):
    assert index.titles[index.word_match("Star Wars I").item].startswith("Star Wars: Episode I ")
    assert index.titles[index.word_match("star wars 2").item].startswith("Star Wars: Episode II")
    assert index.titles[index.word_match("Star Wars").item] == "Star Wars (1977)"  # shortest full match
    assert index.word_match("completely unrelated words") is None


def test_acronyms_and_coverage(index):
    assert [index.titles[i] for i in index.acronym_items("AvP")] == ["Alien vs. Predator (2004)"]
    assert [index.titles[i] for i in index.acronym_items("t2")] == ["Terminator 2: Judgment Day (1991)"]
    episode_one = TITLES.index("Star Wars: Episode I - The Phantom Menace (1999)")
    covered, precise = index.coverage("Star Wars I", episode_one)
    assert covered == 1.0 and precise == pytest.approx(3 / 7)
    assert index.coverage("Star Wars I", 0) == (pytest.approx(2 / 3), 1.0)
