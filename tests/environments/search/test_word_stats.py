"""Where words stand across review sentences (`WordStats`): what a mention offers as values."""

from __future__ import annotations

from environments.search.aspect_text import find_mentions, term_index, tokens
from environments.search.word_stats import MinerSettings, WordStats


def test_value_words_drop_nouns_names_and_fragments():
    stats = WordStats.count(tokens(s) for s in [
        "The guitar is great", "My guitar sounds good", "I tuned the guitar", "the guitar body", "The body is large",
        "A large body",        "the Shure mic works", "the Shure mic is fine"])
    stats.titled.update(["shure", "shure"])
    settings = MinerSettings()
    index = term_index({"body": "body", "mic": "mic"})
    assert [m.values for m in find_mentions(tokens("the guitar body"), index)] == [("guitar",)]
    assert stats.value_words(find_mentions(tokens("the guitar body"), index)[0], settings) == []  # a noun
    assert stats.value_words(find_mentions(tokens("the shure mic"), index)[0], settings) == []  # a name
    assert stats.value_words(find_mentions(tokens("the body is large"), index)[0], settings) == ["large"]
    home = find_mentions(tokens("the home recording body"), index)[0]
    assert stats.value_words(home, settings) == []  # one word next to the term, and "recording" is a verb form
    assert stats.value_words(find_mentions(tokens("the body is different"), index)[0], settings) == []  # vague


def test_the_miners_old_module_still_exports_them():
    from environments.search import aspects

    assert aspects.WordStats is WordStats and aspects.MinerSettings is MinerSettings


def test_a_thing_reviewers_call_their_own_is_no_aspect_of_the_item():
    sentences = ["My hips are wide", "It flatters my hips", "The hips fit", "my hips love it",
                 "The fabric is soft", "The fabric is thin", "I like the fabric", "my fabric softener"]
    stats = WordStats.count(tokens(s) for s in sentences)
    settings = MinerSettings(min_head_count=2)
    assert stats.reviewers_own("hips", settings) and not stats.reviewers_own("fabric", settings)
    terms = stats.candidate_terms(settings)
    assert "fabric" in terms and "hips" not in terms


def test_praise_says_how_much_not_what_kind():
    from environments.search.word_stats import is_praise

    assert all(is_praise(w) for w in ("great", "superb", "gorgeous", "beautiful"))
    assert not any(is_praise(w) for w in ("rich", "warm", "comfortable", "friendly", "cute", "floral"))
