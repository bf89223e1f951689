"""CRS Arena's pairwise battles (`votes_<setting>.csv`): read, checked, and flagged when repeated."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from environments.datasets.base import BadRow, RowErrors
from environments.datasets.readers import iter_csv_rows

VOTE_COLUMNS = ("session_id", "user_id", "crs1", "crs2", "vote")
DIAL_FILE = re.compile(r"crs_arena_dial_(?P<setting>[A-Za-z0-9-]+)\.json$")
VOTES_FILE = re.compile(r"votes_(?P<setting>[A-Za-z0-9-]+)\.csv$")


def setting_of(path: Path, pattern: re.Pattern[str]) -> str:
    """`crs_arena_dial_open.json` -> `open`; another name -> its stem."""
    match = pattern.search(path.name)
    return match.group("setting") if match else path.name.split(".")[0]


@dataclass(frozen=True, slots=True)
class Vote:
    setting: str
    line: int
    session_id: str
    user_id: str
    crs1: str
    crs2: str
    vote: str
    feedback: str
    repeated: bool = False  # the same user, CRSs and vote as an earlier row

    def row(self) -> dict[str, Any]:
        return {"setting": self.setting, "session_id": self.session_id, "user_id": self.user_id,
                "crs1": self.crs1, "crs2": self.crs2, "vote": self.vote, "feedback": self.feedback}

    def for_dialogue(self, crs: str) -> dict[str, Any]:
        """What this battle says about `crs`'s conversation: win, lose or tie, against whom."""
        result = "tie" if self.vote == "tie" else "win" if self.vote == crs else "lose"
        return {"result": result, "opponent": self.crs2 if crs == self.crs1 else self.crs1, **self.row()}


def read_votes(paths: list[Path], errors: RowErrors) -> list[Vote]:
    """Every vote row in file order. An exact repeat of an earlier row (same user, CRSs and vote)
    is kept but flagged (CRS Arena's published Elo ratings count it; its merge script drops it
    when attaching votes to conversations); a second, different vote of a user on a CRS is a bad row."""
    votes: list[Vote] = []
    seen: set[tuple[str, str, str, str]] = set()
    by_user_crs: dict[tuple[str, str], Vote] = {}
    for path in paths:
        setting = setting_of(path, VOTES_FILE)
        for line, row in iter_csv_rows(path, errors, required=VOTE_COLUMNS):
            try:
                user, crs1, crs2, vote = (row[c].strip() for c in ("user_id", "crs1", "crs2", "vote"))
                for column, value in (("user_id", user), ("crs1", crs1), ("crs2", crs2)):
                    if not value:
                        raise BadRow(column, "is empty")
                if crs1 == crs2:
                    raise BadRow("crs2", f"the same CRS as crs1 ('{crs1}')")
                if vote not in (crs1, crs2, "tie"):
                    raise BadRow("vote", f"expected crs1 ('{crs1}'), crs2 ('{crs2}') or 'tie', got {vote!r}")
                key = (user, crs1, crs2, vote)
                repeated = key in seen
                for crs in (crs1, crs2):
                    earlier = by_user_crs.get((user, crs))
                    if earlier is not None and not repeated:
                        raise BadRow("vote", f"user '{user}' already voted on a battle of '{crs}' "
                                             f"({earlier.setting}, line {earlier.line}); a conversation "
                                             "carries one vote")
            except BadRow as exc:
                errors.row(path, line, exc)
                continue
            seen.add(key)
            record = Vote(setting, line, row["session_id"].strip(), user, crs1, crs2, vote,
                          row.get("feedback", "").strip(), repeated)
            if not repeated:
                by_user_crs[(user, crs1)] = by_user_crs[(user, crs2)] = record
            votes.append(record)
    return votes


def default_votes(dialogues: list[Path]) -> list[Path]:
    """votes_<setting>.csv next to each crs_arena_dial_<setting>.json, where it exists."""
    found = []
    for path in dialogues:
        match = DIAL_FILE.search(path.name)
        candidate = path.with_name(f"votes_{match.group('setting')}.csv") if match else None
        if candidate is not None and candidate.is_file() and candidate not in found:
            found.append(candidate)
    return found
