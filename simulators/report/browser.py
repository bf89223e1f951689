"""The episode browser's data: every episode as a plain, JSON-ready dict.

The page renders this with vanilla JS, so everything it needs is worked out here, once, in
tested Python: which evaluation record belongs to which move and how it reads (whatever
the protocol: ranks, item sets, mentions), the final state, the LLM calls of the episode (full records when `llm_calls.jsonl` exists, else the summaries in
the episode itself). Long texts (prompts, tracebacks) are cut so that one chatty run does
not make the page too big to open. Nothing here is HTML: the page inserts all of it as
text, so episode text from a language model cannot inject markup.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from environments.models import Episode, Turn, TurnEvaluation
from simulators.results.evaluation_text import describe_evaluation, records_by_source
from simulators.results.runlog import LoggedRun

MAX_TEXT = 6000


def clip(text: str | None, limit: int = MAX_TEXT) -> str | None:
    """`text` cut to `limit` characters with a note of how much was left out."""
    if text is None or len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters]"


def turn_record(turn: Turn, record: TurnEvaluation | None, targets: list[str]) -> dict[str, Any]:
    return {
        "role": turn.role,
        "text": turn.text,
        "items": list(turn.items_shown),
        "feedback": dict(turn.feedback),
        "added": list(turn.added),
        "removed": list(turn.removed),
        "turn": record.turn if record else None,
        "evaluation": describe_evaluation(record, targets) if record else None,
        "meta": [[k, v if isinstance(v, str) else json.dumps(v, default=str)] for k, v in turn.metadata.items()],
    }


def call_record(call: dict[str, Any]) -> dict[str, Any]:
    """The fields of one LLM call the browser shows, from a full record or a summary."""
    messages = [
        {"role": str(m.get("role", "")), "content": clip(str(m.get("content", "")))}
        for m in call.get("messages") or [] if isinstance(m, dict)
    ]
    return {
        "step": str(call.get("step", "")), "role": str(call.get("role", "")),
        "model": str(call.get("model", "")), "ok": bool(call.get("ok", False)),
        "repaired": bool(call.get("repaired", False)), "cache_hit": bool(call.get("cache_hit", False)),
        "error": clip(call.get("error")), "input_tokens": call.get("input_tokens"),
        "output_tokens": call.get("output_tokens"), "latency_s": call.get("latency_s"),
        "cost_usd": call.get("cost_usd"),
        "messages": messages, "response": clip(call.get("response")),
    }


def episode_record(
    episode: Episode, run_index: int, label: str, catalog: str | None, calls: list[dict[str, Any]] | None
) -> dict[str, Any]:
    """Everything the browser shows of one episode (see the module docstring)."""
    by_source = records_by_source(episode.evaluations)
    final = episode.evaluations[-1] if episode.evaluations else None
    if calls is None:
        calls = [c.model_dump(mode="json") for c in episode.llm_calls]
    return {
        "key": f"{run_index}:{episode.id}",
        "config": label,
        "id": episode.id,
        "index": episode.index,
        "seed": episode.seed,
        "environment": episode.environment,
        "termination": episode.termination.value,
        "targets": list(episode.targets),
        "final": describe_evaluation(final, episode.targets) if final else None,
        "final_rank": final.best_rank if final else None,
        "catalog": catalog,
        "turns": [turn_record(t, by_source.get(t.index), episode.targets) for t in episode.turns],
        "llm_calls": [call_record(c) for c in calls],
        "profile": clip(json.dumps(episode.profile, indent=1, ensure_ascii=False, default=str))
        if episode.profile else None,
        "error": clip(episode.error),
    }


def episode_records(
    runs: Sequence[LoggedRun],
    calls: Sequence[dict[str, list[dict[str, Any]]]],
    run_catalog: dict[str, str | None],
) -> list[dict[str, Any]]:
    """Records of every episode of every run, runs in order; `calls[i]` are run i's LLM calls."""
    records = []
    for run_index, (run, run_calls) in enumerate(zip(runs, calls, strict=True)):
        for episode in run.episodes:
            records.append(episode_record(episode, run_index, run.label, run_catalog.get(run.label),
                                          run_calls.get(episode.id)))
    return records
