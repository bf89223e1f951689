"""A wanted thing said the way people answer an assistant who asks what they want.

On a catalog with no dialogue corpus (a world, a review catalog) the seeker's wishes were
crsim's own frames ("Ideally a soft fabric.", "Sturdy plugs matter most to me."); a blind
reader called the second kind stilted, and `crsim validate` counted the first as templates.
Where the wanted thing is a noun phrase ("a soft fabric", "sturdy plugs"), it is now said
in a wording people wrote when asked for the same kind of thing ("I would like {value}.",
"{value} would be great.", "{value}."), drawn as often as they wrote it from the bank of
`environments.acts.answer_wordings` (the shipped one: SGD's training dialogues). A bare
value ("cheap", "korean") or a clause ("somewhere we can hear each other") keeps the
frames: the bank's wordings were written around names of kinds of things.
"""

from __future__ import annotations

from environments.acts.answer_wordings import AnswerWordings
from environments.search.vocabulary import indefinite_article, is_plural

ARTICLES = ("a ", "an ", "some ")


def noun_phrase_of(words: str) -> str:
    """"soft fabric" -> "a soft fabric"; "sturdy plugs" as it is (a plural takes no article),
    and a phrase that has its article already."""
    if words.lower().startswith(ARTICLES) or is_plural(words):
        return words
    return f"{indefinite_article(words)} {words}"


def wish(bank: AnswerWordings | None, noun_phrase: str, *keys: object) -> str | None:
    """`noun_phrase` in a wording people used (None without a bank or a phrase). The same
    keys give the same wording: a fact is said the same way every time in an episode."""
    if bank is None or not noun_phrase.strip():
        return None
    return bank.fill(noun_phrase.strip(), "wish", *keys)
