"""Movie names in a CRS's free text (CRS Arena names no items in a structured way).

Two rules: an entry of a numbered list ("1: Arrival (2016)", "2  The Matrix"), and a run of
capitalised words right before a year in brackets ("Have you seen Blade Runner 2049 (2017)?"
-> "Blade Runner 2049 (2017)"). A heuristic, good enough for `crsim validate`'s item-name
figure, not a movie database.
"""

from __future__ import annotations

import re

YEAR = re.compile(r"\((?:1[89]\d\d|20\d\d)\)")
LIST_LINE = re.compile(r"^\s*\d{1,2}\s*[:.)]?\s+(?P<entry>\S.*?)\s*$")
TITLE_CONNECTORS = frozenset({"of", "the", "a", "an", "and", "in", "on", "to", "at", "for", "with", "from",
                              "vs", "vs.", "de", "la", "le", "du", "&", "-", "–", ":"})
_QUOTES = "\"'“”‘’*"
_SPACES = re.compile(r"\s+")


def _title_token(token: str, last: bool) -> bool:
    core = token.strip(_QUOTES)
    if not core or token[-1] in (",;?" if last else ",;!?"):  # "Airplane! (1980)", not "Yes! Titanic (1997)"
        return False
    return core[0].isupper() or core[0].isdigit() or core in TITLE_CONNECTORS


def _list_entry(entry: str) -> str | None:
    entry = entry.replace("**", "")
    year = YEAR.search(entry)
    entry = entry[:year.end()] if year else re.split(r"\s[-–]\s|:\s", entry, maxsplit=1)[0]
    entry = _SPACES.sub(" ", entry).strip(" " + _QUOTES)
    if entry and not entry[0].islower() and len(entry.split()) <= 12:
        return entry
    return None


def titles_in(text: str) -> list[str]:
    """Movie names a CRS turn shows: numbered-list entries, and capitalised words before "(YYYY)"."""
    found: list[str] = []
    for line in text.splitlines():
        listed = LIST_LINE.match(line)
        if listed:
            entry = _list_entry(listed.group("entry"))
            if entry:
                found.append(entry)
                continue
        for year in YEAR.finditer(line):
            tokens: list[str] = []
            for token in reversed(line[:year.start()].split()):
                if not _title_token(token, last=not tokens):
                    break
                tokens.append(token)
            tokens.reverse()
            while tokens and not tokens[0].strip(_QUOTES)[:1].isupper() and not tokens[0][:1].isdigit():
                tokens.pop(0)  # a title starts with a capital or a digit
            if tokens:
                name = _SPACES.sub(" ", " ".join(tokens)).strip(" " + _QUOTES)
                found.append(f"{name} {year.group(0)}")
    return list(dict.fromkeys(found))
