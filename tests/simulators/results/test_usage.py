"""LLM usage per episode and per run, from the episode log alone."""

from __future__ import annotations

import pytest
from crsim_testing import make_episode
from rich.console import Console

from environments.models import LLMCallSummary
from simulators.results.usage import has_usage, render_usage_table, usage_frame


def _call(tokens_in: int, tokens_out: int, cost: float | None, hit: bool = False) -> LLMCallSummary:
    return LLMCallSummary(step="s", role="seeker", prompt_hash="h", ok=True, input_tokens=tokens_in,
                          output_tokens=tokens_out, cost_usd=cost, cache_hit=hit)


def test_per_episode_means_and_run_totals():
    first = make_episode(0, [1]).model_copy(update={"llm_calls": [_call(100, 10, 0.002), _call(50, 5, 0.001)]})
    second = make_episode(1, [2]).model_copy(update={"llm_calls": [_call(30, 3, None), _call(20, 2, 0.0, hit=True)]})
    df = usage_frame([first, second]).set_index("metric")
    assert df.loc["llm_calls", "total"] == 4 and df.loc["llm_calls", "per_episode"] == 2
    assert df.loc["input_tokens", "total"] == 200 and df.loc["input_tokens", "per_episode"] == 100
    assert df.loc["output_tokens", "total"] == 20
    assert df.loc["cost_usd", "total"] == pytest.approx(0.003)
    assert df.loc["cache_hits", "total"] == 1 and df.loc["unpriced_calls", "total"] == 1
    assert df.loc["input_tokens", "ci_low"] <= 100 <= df.loc["input_tokens", "ci_high"]
    console = Console(width=250, record=True)
    console.print(render_usage_table({"bm25": usage_frame([first, second])}))
    text = console.export_text()
    assert "$0.0030 (+1 unpriced)" in text and "220" in text  # run cost, unpriced calls, run tokens


def test_offline_runs_have_no_usage():
    assert not has_usage(usage_frame([make_episode(0, [1]), make_episode(1, [3])]))
