"""LLM usage per language step of a run: how often each step's answer was usable, and
what the step cost in tokens and model time.

The run-level usage table (`usage.py`) says what a configuration cost; this one says
where, and whether the model's answers were used at all: a step that falls back to its
offline implementation on most calls leaves an "LLM agent" mostly offline. It reads the
run's `llm_calls.jsonl`, where one step use is a first attempt (`attempt` 0) followed by
its repairs; the use counts as valid on the first try, valid after repair, or fallen back
(its last request unusable, so the offline step answered). Model time is the recorded
generation time, which the response cache keeps, so a re-run reports what the calls cost.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from environments.errors import CrsimError


class StepUsage(BaseModel):
    step: str
    uses: int
    requests: int
    valid_first_try: float
    valid_after_repair: float
    fell_back: float
    input_tokens: int
    output_tokens: int
    model_minutes: float


def read_calls(path: Path) -> list[dict[str, Any]]:
    """The call records of `path` (a run directory or its `llm_calls.jsonl`), in file order."""
    path = path / "llm_calls.jsonl" if path.is_dir() else path
    if not path.is_file():
        raise CrsimError(f"{path}: no LLM call log (llm_calls.jsonl) here")
    calls = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise CrsimError(f"{path}:{number}: not JSON ({error.msg})") from None
        for field in ("step", "attempt", "ok"):
            if field not in record:
                raise CrsimError(f"{path}:{number}: call record without field {field!r}")
        calls.append(record)
    return calls


def step_usage(calls: Iterable[Mapping[str, Any]]) -> list[StepUsage]:
    """One row per step, in name order. A use is an attempt-0 record and the repairs that
    follow it in the same episode (episodes run concurrently interleave in the log)."""
    uses: dict[str, list[list[Mapping[str, Any]]]] = {}
    open_use: dict[tuple[Any, str], list[Mapping[str, Any]]] = {}
    for call in calls:
        key = (call.get("episode_id"), call["step"])
        if call["attempt"] == 0 or key not in open_use:
            open_use[key] = []
            uses.setdefault(call["step"], []).append(open_use[key])
        open_use[key].append(call)
    rows = []
    for step in sorted(uses):
        groups = uses[step]
        requests = [c for g in groups for c in g]
        first = sum(1 for g in groups if g[0]["ok"])
        repaired = sum(1 for g in groups if not g[0]["ok"] and g[-1]["ok"])
        rows.append(StepUsage(
            step=step, uses=len(groups), requests=len(requests),
            valid_first_try=first / len(groups), valid_after_repair=repaired / len(groups),
            fell_back=(len(groups) - first - repaired) / len(groups),
            input_tokens=sum(c.get("input_tokens") or 0 for c in requests),
            output_tokens=sum(c.get("output_tokens") or 0 for c in requests),
            model_minutes=sum(c.get("generation_s") or c.get("latency_s") or 0.0 for c in requests) / 60,
        ))
    return rows


def markdown_table(rows: list[StepUsage]) -> str:
    """The rows as a Markdown table, with a total row, for a method's doc."""
    lines = ["| step | uses | valid first try | after repair | fell back | tokens in / out | model minutes |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| `{r.step}` | {r.uses} | {r.valid_first_try:.2f} | {r.valid_after_repair:.2f} | "
                     f"{r.fell_back:.2f} | {r.input_tokens:,} / {r.output_tokens:,} | {r.model_minutes:.1f} |")
    lines.append(f"| all | {sum(r.uses for r in rows)} | | | | {sum(r.input_tokens for r in rows):,} / "
                 f"{sum(r.output_tokens for r in rows):,} | {sum(r.model_minutes for r in rows):.1f} |")
    return "\n".join(lines)
