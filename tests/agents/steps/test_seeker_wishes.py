"""A wanted thing in a wording people used, with its article."""

from agents.seekers.decisions import load_answer_bank
from agents.steps.seeker.wishes import noun_phrase_of, wish


def test_a_described_thing_takes_the_article_it_is_said_with():
    assert noun_phrase_of("soft fabric") == "a soft fabric"
    assert noun_phrase_of("unique cut") == "a unique cut"
    assert noun_phrase_of("sturdy plugs") == "sturdy plugs"
    assert noun_phrase_of("an open back") == "an open back"


def test_a_wish_is_one_of_the_bank_s_wordings_the_same_for_the_same_keys():
    bank = load_answer_bank("sgd")
    wordings = {w.text for w in bank.wordings}
    said = [wish(bank, "a soft fabric", "attr:fabric=soft", n) for n in range(200)]
    assert all("a soft fabric" in s.lower() and s[:1].isupper() for s in said)
    assert len(set(said)) >= 10  # drawn among many of people's wordings
    back = {s.replace("A soft fabric", "{value}").replace("a soft fabric", "{value}") for s in said}
    assert back <= wordings | {w[:1].upper() + w[1:] for w in wordings}
    assert wish(bank, "a soft fabric", "k", 3) == wish(bank, "a soft fabric", "k", 3)
    assert wish(None, "a soft fabric", "k") is None and wish(bank, " ", "k") is None
