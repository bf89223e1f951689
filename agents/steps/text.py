"""Small text helpers shared by the language steps of every role and method (the bottom layer
of `agents/steps/` with `base.py`: a step package imports these, never another method's package)."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from functools import cache

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if len(s.strip()) > 3]


def question_part(text: str) -> str:
    """What a turn asks, without the statements said before it: in "Ines's Oven is known for
    its Chinese cooking. Any cuisine in mind, like thai or chinese?" the question is about the
    cuisine, and the item answer before it only pulls the match towards the facts it happens
    to mention (and makes every such turn a text of its own for the encoder). A turn that
    asks nothing is read whole."""
    parts = _SENTENCE_END.split(text.strip())
    first = next((i for i, part in enumerate(parts) if "?" in part), 0)
    return " ".join(parts[first:]) if first else text


def pick(options: Sequence[str], *keys: object) -> str:
    """A deterministic choice among phrasings (stable across processes, unlike hash())."""
    digest = zlib.crc32("\x1f".join(map(str, keys)).encode())
    return options[digest % len(options)]


def capitalised(text: str) -> str:
    """`text` with its first letter upper-cased (the rest untouched, unlike str.capitalize)."""
    return text[:1].upper() + text[1:]


def fill_form(form: str, **values: str) -> str:
    """`form` filled; a placeholder whose name starts with a capital (`{Ref}` for `ref`, `{P}`
    for `p`) takes the value capitalised, so a frame may start its sentence with it."""
    return form.format(**values, **{capitalised(key): capitalised(value) for key, value in values.items()})


def normalised(text: str) -> str:
    """Lower-case words only, for comparing messages ("Cheap, please!" == "cheap please")."""
    return " ".join(re.findall(r"[a-z0-9']+", text.lower()))


def display_name(key: str) -> str:
    return key.replace("_", " ").strip()


def mentions(text: str, phrase: str) -> bool:
    """Whether `phrase` occurs in `text` as whole words, ignoring case."""
    return re.search(rf"\b{re.escape(phrase.lower())}\b", text.lower()) is not None


def said_before(text: str, dialogue: Sequence[object], role: object | None = None) -> bool:
    """Whether this message (or one containing it) was sent already, by `role` or (None) by
    either side, ignoring case and punctuation (the 1.5B seller also "closed" with the
    customer's own thanks; its recommender asked one question twice running)."""
    words = normalised(text)
    return bool(words) and any(words in normalised(getattr(t, "text")) for t in dialogue
                               if role is None or getattr(t, "role") == role)


def repeats_a_sentence(text: str, dialogue: Sequence[object], min_words: int = 4) -> bool:
    """Whether the message, or any sentence of it with `min_words` words or more, was sent
    already by either side (the 1.5B curator sent the listener's message back with one
    sentence of its own added, which `said_before` on the whole message does not see)."""
    sentences = [s for s in split_sentences(text) if len(s.split()) >= min_words]
    return said_before(text, dialogue) or any(said_before(s, dialogue) for s in sentences)


def whole_sentences(text: str) -> str:
    """`text` without a last sentence cut off midway (a grammar-constrained model writes up to
    its field's length cap and stops there: "... and 'Otis Hart'. I"); unchanged when it ends
    a sentence or has no earlier sentence end."""
    text = text.strip()
    if not text or text[-1] in ".!?\"')":
        return text
    ends = [m.start() for m in _SENTENCE_END.finditer(text)]  # where `split_sentences` cuts
    return text[: ends[-1]] if ends else text


def render_dialogue(turns: Sequence[object], limit: int = 20) -> str:
    lines = [f"{getattr(t, 'role')}: {getattr(t, 'text')}" for t in list(turns)[-limit:]]
    return "\n".join(lines) if lines else "(no dialogue yet)"


def singular(noun: str) -> str:
    """"restaurants" -> "restaurant", "movies" -> "movie": catalogs name their items in the plural,
    snippets and answers speak of one ("This restaurant has ...")."""
    if noun.endswith(("sses", "xes", "ches", "shes")):
        return noun[:-2]
    return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun


@cache
def _analyzer() -> object:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return SentimentIntensityAnalyzer()


def sentiment(text: str) -> float:
    """VADER compound score in [-1, 1] (imported lazily: loading the lexicon takes a moment)."""
    return float(_analyzer().polarity_scores(text)["compound"])  # type: ignore[attr-defined]
