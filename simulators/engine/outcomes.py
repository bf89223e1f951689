"""What one finished episode adds to its run directory, and the logs it is added to.

An episode that ran in a worker process or a Ray actor comes back as `OutcomeLines`,
already encoded there, so the parent only appends bytes; `RunLogs` appends them in the
order that makes a crash safe (the episode line last). Kept apart from the runner so
workers and actors, which the runner starts, need not import it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agents.llm.recording import LLMCallRecord
from simulators.engine.episode import EpisodeOutcome
from simulators.engine.logs import (
    BUILD_CALLS_ID, EPISODES_FILE, LLM_CALLS_FILE, TIMINGS_FILE, JsonlAppender, encode_line,
)


class RunLogs:
    """The three append-only logs of one run directory."""

    def __init__(self, run_dir: Path):
        self.run_dir = Path(run_dir)
        self.episodes = JsonlAppender(self.run_dir / EPISODES_FILE)
        self.timings = JsonlAppender(self.run_dir / TIMINGS_FILE)
        self.llm_calls = JsonlAppender(self.run_dir / LLM_CALLS_FILE)

    def write_build_calls(self, calls: list[LLMCallRecord]) -> None:
        """Calls agents made while being built (before any episode), under `BUILD_CALLS_ID`."""
        for call in calls:
            self.llm_calls.append({"episode_id": BUILD_CALLS_ID, **call.model_dump(mode="json")})

    def write(self, outcome: EpisodeOutcome) -> None:
        self.write_lines(outcome_lines(outcome))

    def write_lines(self, lines: OutcomeLines) -> None:
        for line in lines.llm_calls:
            self.llm_calls.append_line(line)
        self.timings.append_line(lines.timings)
        self.episodes.append_line(lines.episode)  # last: its presence marks the episode finished


@dataclass(frozen=True, slots=True)
class OutcomeLines:
    """One finished episode's log lines, encoded where it ran: a worker process or actor
    returns these, so the parent only appends bytes (its CPU is the sweep's bottleneck)."""

    episode: bytes
    timings: bytes
    llm_calls: tuple[bytes, ...]


def outcome_lines(outcome: EpisodeOutcome) -> OutcomeLines:
    episode = outcome.episode
    return OutcomeLines(encode_line(episode), encode_line({"episode_id": episode.id, "seconds": outcome.seconds}),
                        tuple(encode_line({"episode_id": episode.id, **call.model_dump(mode="json")})
                              for call in outcome.llm_calls))
