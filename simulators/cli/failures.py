"""How a command reports the units (episodes, evaluated turns) that ended in an error.

Fault isolation keeps one crashed episode from ending a run, but it also let a command
whose every unit crashed print a table of dashes and exit 0, which a script or a reader
takes for a result. So: when every unit of a run failed, nothing was measured and the
command ends with one `crsim: error:` line naming the first failure and exit status 2,
like any other unusable input; when some failed, one warning line says how many and where
the tracebacks are, and the numbers (over the rest) stand. In a `crsim run -m` sweep the
other jobs still run and the sweep's summary is still written; the sweep then ends with
one such line for the jobs that measured nothing, and status 2. A run (or sweep) in which
some episodes failed exits 1 after its table: its numbers stand, but a script must not
take it for a clean run (a CRS that was down for part of it, say).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from environments.models import Episode, TerminationReason
from simulators.engine.episode import error_line  # noqa: F401 - where commands have always found it

if TYPE_CHECKING:
    from simulators.engine.logs import LoggedEpisodes

ERROR = TerminationReason.error.value
SOME_FAILED = 1  # exit status of a run or sweep in which some, not all, episodes failed


@dataclass(frozen=True, slots=True)
class Failures:
    """How many of `units` failed, the first failure's message and the log holding them all."""

    units: int
    failed: int
    first: str
    log: Path

    @property
    def every(self) -> bool:
        return self.units > 0 and self.failed == self.units

    def error(self, what: str, unit: str) -> str:
        """The `crsim: error:` text for a run in which every unit failed."""
        return f"every {unit} of {what} failed ({self.failed} of {self.units}): {self.first} (tracebacks in {self.log})"

    def warning(self, what: str, unit: str) -> str:
        return (f"{self.failed} of {self.units} {unit}s of {what} failed and are left out of its numbers; "
                f"the first: {self.first} (tracebacks in {self.log})")


def first_error(episodes: Iterable[Episode]) -> str:
    """The exception line of the first episode that ended in an error ('' if none did)."""
    return next((error_line(e.error or "") for e in episodes if e.termination == ERROR), "")


def failures_of(episodes: Iterable[Episode], log: Path) -> Failures:
    """Count the errored ones among `episodes` (held in memory)."""
    listed = list(episodes)
    failed = sum(1 for e in listed if e.termination == ERROR)
    return Failures(len(listed), failed, first_error(listed) if failed else "", Path(log))


def log_failures(episodes: LoggedEpisodes) -> Failures:
    """The failures among a run log's episodes: counted from the log's scan, and only the
    episodes up to the first failure read in full."""
    failed = episodes.count(ERROR)
    return Failures(len(episodes), failed, first_error(episodes) if failed else "", episodes.path)


def run_dir_failures(run_dir: Path) -> Failures | None:
    """The failures among a `crsim run` directory's episodes of its own config (None: no log)."""
    from simulators.engine.logs import EPISODES_FILE, LoggedEpisodes
    from simulators.results.runlog import CONFIG_HASH_FILE

    log, digest = Path(run_dir) / EPISODES_FILE, Path(run_dir) / CONFIG_HASH_FILE
    if not log.is_file() or not digest.is_file():
        return None
    return log_failures(LoggedEpisodes(log, digest.read_text(encoding="utf-8").strip()))


def warn(message: str) -> None:
    print(f"crsim: warning: {message}", file=sys.stderr)


def sweep_failures(sweep_dir: Path, every: bool = True) -> tuple[list[tuple[str, Failures]], int]:
    """The jobs of a sweep in which every episode failed (`every=False`: some but not all),
    labelled as the sweep table labels them, and how many jobs have a log."""
    from simulators.results.sweep import job_labels

    sweep_dir = Path(sweep_dir)
    from simulators.results.runlog import CONFIG_HASH_FILE

    jobs = sorted(p.parent for p in sweep_dir.rglob(CONFIG_HASH_FILE) if p.parent != sweep_dir)
    found = [(label, run_dir_failures(job)) for label, job in zip(job_labels(jobs, sweep_dir), jobs, strict=True)]
    logged = [(label, failures) for label, failures in found if failures is not None]
    return [(label, failures) for label, failures in logged
            if (failures.every if every else failures.failed and not failures.every)], len(logged)


def sweep_error(failed: list[tuple[str, Failures]], jobs: int) -> str:
    """One line for a sweep with jobs in which every episode failed."""
    named = "; ".join(f"{label}: {failures.first}" for label, failures in failed)
    return (f"every episode failed in {len(failed)} of {jobs} sweep jobs ({named}); "
            f"tracebacks in each job's episodes.jsonl, e.g. {failed[0][1].log}")
