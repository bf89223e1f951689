"""A remote agent's exchanges summarised from the log alone."""

from __future__ import annotations

import pytest
from crsim_testing import make_episode

from environments.models import Turn
from simulators.results.remote import remote_summary


def with_exchanges(index: int, exchanges: list[dict]) -> object:
    episode = make_episode(index, [3, 2])
    turns = [Turn(index=i, role="recommender", text="?", metadata={"remote": x}) for i, x in enumerate(exchanges)]
    return episode.model_copy(update={"turns": turns})


def test_percentiles_retries_and_unscorable_replies_are_counted():
    latencies = [float(ms) for ms in range(1, 101)]
    exchanges = [{"latency_ms": ms, "attempts": 1, "items": 2} for ms in latencies]
    exchanges[0].update(attempts=3, items=0)
    exchanges[1].update(unlinked=["Zorblax (2019)", "Other (2001)"], unknown_ids=["x"])
    summary = remote_summary([with_exchanges(0, exchanges[:50]), with_exchanges(1, exchanges[50:])])
    assert summary is not None
    assert summary.exchanges == 100 and summary.max_ms == 100.0
    assert (summary.p50_ms, summary.p90_ms, summary.p99_ms) == pytest.approx((50.5, 90.1, 99.01))
    assert (summary.retried, summary.no_items, summary.unlinked_titles, summary.unknown_ids) == (1, 1, 2, 1)
    assert summary.line() == ("remote agent: 100 exchanges, latency p50 50.5 ms, p90 90.1 ms, p99 99.0 ms, "
                              "max 100.0 ms; 1 retried; 1 replies with no item; 2 titles linked to nothing; "
                              "1 unknown ids")


def test_a_run_without_a_remote_agent_has_no_summary():
    assert remote_summary([make_episode(0, [1, 2])]) is None
