"""Corpus hygiene of a comparison: was a run's wording bank built from the people it is compared with?

A seeker that says people's wordings (`seeker.wordings`, `crsim data wordings`) is only
measured fairly on conversations its bank never saw; compared with its own training split it
recites them, and every language figure flatters it. `crsim validate` prints the note below in
the warning style whenever that is the case, beside the verbatim-overlap figure that shows it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from environments.errors import CrsimError


def bank_of(config: dict[str, Any] | None) -> Any | None:
    """The wording bank a logged run's seeker spoke with (None: no bank, no policy, unreadable)."""
    from agents.seekers.decisions import load_bank

    seeker = (config or {}).get("seeker") or {}
    if not seeker.get("wordings") or not seeker.get("policy"):
        return None
    try:
        return load_bank(str(seeker["wordings"]))
    except (CrsimError, OSError):
        return None


def bank_leak(label: str, config: dict[str, Any] | None, against: Path, split: str | None) -> str | None:
    """A one-line warning when `label`'s bank was built from conversations of `against` that
    this comparison includes (`split` None: all of them), else None."""
    bank = bank_of(config)
    if bank is None or bank.source.corpus != Path(against).expanduser().resolve().name:
        return None
    built = bank.source.splits
    if split is not None and split not in built:
        return None
    compared = f"split {split}" if split is not None else "all its conversations"
    return (f"{label}: its wording bank was built from {bank.source.corpus}'s {', '.join(built)}, and this "
            f"comparison is against {compared}: it is compared with people it learned to speak from, so its "
            "language figures (and verbatim_overlap) flatter it; compare against another split")
