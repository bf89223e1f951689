"""How people word what they want when an assistant asks them: taken from the Schema-Guided
Dialogue dataset (SGD; Rastogi et al., AAAI 2020), for catalogs with no dialogue corpus.

Why SGD: a review catalog (musical instruments, clothing) has no conversations of its own,
and ReDial's people talk about films ("I like {kind} movies"). Asked "Any preference on
fabric?", crsim's seeker said its wish in five frames of its own ("Ideally a soft fabric",
"Preferably a soft fabric", ...), which `crsim validate` counts as templates. SGD's user turns
were written by crowd workers, each paraphrasing one act of a planned dialogue (the flow is
simulated, the words are people's), and its annotations say which turn answers the
assistant's request for which slot and where the value sits in the text, so a wording can
be taken with the value cut out exactly ("I would prefer {value}.").

What transfers: a user turn that answers a system REQUEST with one INFORM of one value of
a slot that says what kind of thing is wanted (`DESCRIPTIVE_SLOTS`: cuisine, genre, type,
category, ...; not a city, date, time, name or number), whose other words are all
everyday ones (`EVERYDAY_WORDS`: no "restaurant", "movie", "flight"), with no article or
preposition right before the value (crsim's phrases carry their own: "a soft fabric"), and
no question ("How about {value}?" answers an offer, not a request). SGD is CC BY-SA 4.0:
a bank built from it is an adaptation and carries that licence (its `source` says so).
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from environments.errors import CrsimError
from environments.search.vocabulary import is_plural_phrase

ANSWER_WORDINGS_VERSION = 1
VALUE = "{value}"
DESCRIPTIVE_SLOTS = frozenset("""
    cuisine genre type category event_type ride_type car_type subcategory
""".split())
EVERYDAY_WORDS = frozenset("""
    i i'd i'm i'll would like prefer preferably want looking look for something some one it's it be is to
    please yes yeah sure ok okay maybe probably rather really just only also good great fine nice perfect
    ideally think guess kind type sort any get need go with me my do can could should will and or but so
    well hmm um oh actually particular particularly specifically thanks thank you very much
""".split())
# The noun a value names a kind of ("Italian *food*", "a Pop *song*"), and the article before
# it: with the value, they are the phrase crsim fills in ("a soft fabric" is article, value and noun).
KIND_NOUNS = r"(?:food|restaurants?|places?|spots?|movies?|films?|music|songs?|events?|shows?|cars?|rides?|ones?)"
AROUND_VALUE = re.compile(rf"(?:\b(?:a|an|the|some)\s+)?\{{value\}}(?:\s+{KIND_NOUNS}\b)?", re.IGNORECASE)
# A word right before the value that makes the wording about a place or a date, or wants an
# adjective ("something {value}": "something a soft fabric") or a verb ("I {value}.": "I Rock.").
BEFORE_VALUE = re.compile(r"\b(?:in|on|at|to|for|from|of|any|something|i)\s*$", re.IGNORECASE)
OPENS_WITH_YES_NO = re.compile(r"^\s*(?:yes|yeah|no|nope|sure|ok|okay)\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z']+")


class AnswerWording(BaseModel):
    text: str = Field(description="A user's answer with the value as {value}.")
    count: int = Field(ge=1, description="How many turns said it.")


class AnswerSource(BaseModel):
    corpus: str
    licence: str
    files: list[str]
    answers: int = Field(description="User turns that answered a request with one descriptive value.")
    kept: int = Field(description="Of those, the turns whose wording transfers (counted in `wordings`).")


class AnswerWordings(BaseModel):
    """A bank of answer wordings with their counts (a wording is drawn as often as people said it)."""

    version: int = ANSWER_WORDINGS_VERSION
    source: AnswerSource
    wordings: list[AnswerWording]

    def pick(self, *keys: object) -> str:
        """A wording drawn by `keys` (the same keys, the same wording), weighted by its count."""
        if not self.wordings:
            raise CrsimError("an empty answer-wording bank")
        draw = random.Random("-".join(map(str, keys)))
        return draw.choices([w.text for w in self.wordings], [w.count for w in self.wordings])[0]

    def fill(self, phrase: str, *keys: object) -> str:
        """`phrase` ("a soft fabric") said in a drawn wording, its first letter a capital; a
        plural takes "are" ("Stock tuners are good.", where the wording had "{value} is good.")."""
        wording = self.pick(*keys)
        if is_plural_phrase(phrase):
            wording = wording.replace(f"{VALUE} is ", f"{VALUE} are ")
        text = wording.replace(VALUE, phrase)
        return text[:1].upper() + text[1:]


def delexicalised(turn: dict[str, Any], value: str) -> str | None:
    """The turn's utterance with `value` as {value}: cut where the annotation says (a
    non-categorical slot), else where the value's words stand; None if it is not there."""
    text = turn.get("utterance", "")
    spans = [s for frame in turn.get("frames", []) for s in frame.get("slots", [])]
    if len(spans) == 1 and text[spans[0]["start"]:spans[0]["exclusive_end"]].lower() == value.lower():
        return text[:spans[0]["start"]] + VALUE + text[spans[0]["exclusive_end"]:]
    found = re.search(rf"\b{re.escape(value)}\b", text, re.IGNORECASE)
    return None if found is None else text[:found.start()] + VALUE + text[found.end():]


def transfers(wording: str) -> bool:
    """Whether a wording says a wish about any kind of thing (see the module)."""
    if wording.count(VALUE) != 1 or "?" in wording or OPENS_WITH_YES_NO.match(wording):
        return False
    before, _, _ = wording.partition(VALUE)
    if BEFORE_VALUE.search(before):
        return False
    words = _WORD.findall(wording.replace(VALUE, " ").lower())
    return len(words) <= 10 and all(w in EVERYDAY_WORDS for w in words)


def requested_answers(dialogues: Iterable[dict[str, Any]]) -> Iterator[str]:
    """Each user turn answering a system REQUEST with one value of a descriptive slot, delexicalised."""
    for dialogue in dialogues:
        turns = dialogue.get("turns", [])
        for before, turn in zip(turns, turns[1:]):
            if before.get("speaker") != "SYSTEM" or turn.get("speaker") != "USER":
                continue
            requested = any(a.get("act") == "REQUEST" for f in before.get("frames", []) for a in f.get("actions", []))
            actions = [a for f in turn.get("frames", []) for a in f.get("actions", [])]
            if not requested or len(actions) != 1:
                continue
            action = actions[0]
            values = action.get("values", [])
            if action.get("act") != "INFORM" or action.get("slot") not in DESCRIPTIVE_SLOTS or len(values) != 1 \
                    or values[0] == "dontcare":
                continue
            wording = delexicalised(turn, values[0])
            if wording is not None:
                yield " ".join(AROUND_VALUE.sub(VALUE, wording, count=1).split())


def read_sgd(path: Path) -> list[dict[str, Any]]:
    """One SGD file (`train/dialogues_001.json`): a JSON array of dialogues."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise CrsimError(f"{path}: not an SGD dialogue file ({exc})") from exc
    if not isinstance(data, list):
        raise CrsimError(f"{path}: expected a JSON array of dialogues, got {type(data).__name__}")
    return data


def build_answer_wordings(paths: Sequence[Path], *, min_count: int = 2) -> AnswerWordings:
    """The bank from SGD dialogue files (its `train` split): wordings people wrote at least
    `min_count` times (one person's odd phrasing is not a way people talk)."""
    answers: Counter[str] = Counter()
    for path in paths:
        answers.update(requested_answers(read_sgd(path)))
    kept = {w: n for w, n in answers.items() if transfers(w) and n >= min_count}
    wordings = [AnswerWording(text=w, count=n) for w, n in sorted(kept.items(), key=lambda kv: (-kv[1], kv[0]))]
    source = AnswerSource(corpus="Schema-Guided Dialogue (SGD), google-research-datasets/dstc8-schema-guided-dialogue",
                          licence="CC BY-SA 4.0 (an adaptation of SGD)",
                          files=sorted(f"{Path(p).parent.name}/{Path(p).name}" for p in paths),
                          answers=sum(answers.values()), kept=sum(kept.values()))
    return AnswerWordings(source=source, wordings=wordings)


def save_answer_wordings(bank: AnswerWordings, path: Path) -> None:
    Path(path).write_text(bank.model_dump_json(indent=1) + "\n", encoding="utf-8")


def load_answer_wordings(path: Path) -> AnswerWordings:
    try:
        bank = AnswerWordings.model_validate_json(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CrsimError(f"{path}: not an answer-wording bank ({exc})") from exc
    if bank.version != ANSWER_WORDINGS_VERSION:
        raise CrsimError(f"{path}: answer-wording bank version {bank.version}, this crsim reads "
                         f"{ANSWER_WORDINGS_VERSION}; build it again (crsim data answer-wordings)")
    return bank
