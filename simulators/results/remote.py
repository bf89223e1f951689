"""What a remote agent's exchanges took, from the episode log: latency percentiles, retries,
and the recommendations that could not be scored.

A CRS behind HTTP (`recommender=http`) is part of what is measured: a user choosing one
wants its latency beside its hit rate, and a reply whose titles link to nothing lowers the
hit rate for a reason the table cannot show. Each remote move logs its exchange on its
turn (`Turn.metadata["remote"]`), so the figures come from `episodes.jsonl` alone and a
reported or re-scored log shows what the run showed. `crsim run` prints one line and
writes `remote.json`; `crsim report` prints the line per run.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from pydantic import BaseModel

from agents.remote.protocol import REMOTE_KEY
from environments.models import Episode

REMOTE_FILE = "remote.json"


class RemoteSummary(BaseModel):
    """A run's remote exchanges (`remote.json`)."""

    exchanges: int
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    retried: int  # exchanges that needed more than one attempt
    no_items: int  # replies that recommended nothing crsim could rank
    unlinked_titles: int  # title-like names in replies that link to no catalog item
    unknown_ids: int  # ids in replies that the catalog does not hold

    def line(self) -> str:
        text = (f"remote agent: {self.exchanges} exchanges, latency p50 {self.p50_ms:.1f} ms, "
                f"p90 {self.p90_ms:.1f} ms, p99 {self.p99_ms:.1f} ms, max {self.max_ms:.1f} ms; "
                f"{self.retried} retried")
        for count, what in ((self.no_items, "replies with no item"), (self.unlinked_titles, "titles linked to nothing"),
                            (self.unknown_ids, "unknown ids")):
            if count:
                text += f"; {count} {what}"
        return text


def remote_summary(episodes: Iterable[Episode]) -> RemoteSummary | None:
    """The summary of every remote exchange in `episodes` (None: no agent was remote)."""
    exchanges = [t.metadata[REMOTE_KEY] for e in episodes for t in e.turns
                 if isinstance(t.metadata.get(REMOTE_KEY), dict)]
    if not exchanges:
        return None
    latency = np.asarray([float(x.get("latency_ms", 0.0)) for x in exchanges])
    p50, p90, p99 = (float(v) for v in np.percentile(latency, [50, 90, 99]))
    return RemoteSummary(
        exchanges=len(exchanges), p50_ms=p50, p90_ms=p90, p99_ms=p99, max_ms=float(latency.max()),
        retried=sum(1 for x in exchanges if int(x.get("attempts", 1)) > 1),
        no_items=sum(1 for x in exchanges if x.get("items") == 0),
        unlinked_titles=sum(len(x.get("unlinked", [])) for x in exchanges),
        unknown_ids=sum(len(x.get("unknown_ids", [])) for x in exchanges))
