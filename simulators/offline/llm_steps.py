"""The LLM step report: every prompt step crsim has, on real inputs, with a configured model.

Inputs come from offline runs of the shipped experiments (`SOURCES`): each step's
`LanguageStep.run` is captured (`agents.steps.base.capture_steps`) with the inputs an
episode really gave it (`simulators.offline.llm_step_inputs`). For each step, up to `per_step` distinct inputs are then run again
with the model (the step object copied, its `llm` set), and every call is recorded: valid
on the first try, valid after the repair request, or fallen back to the offline
implementation; prompt and completion tokens; seconds per call. Where a step has a
semantic check (`CHECKS`, `simulators.offline.llm_step_checks`: the answer states a value
the target has, the picked tracks are on screen, ...) its pass rate is reported too. Steps no offline run exercised are listed,
so the report never looks more complete than it is.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from simulators.offline.llm_step_checks import CHECKS
from simulators.offline.llm_step_inputs import SOURCES, collect_inputs, step_name

__all__ = ["CHECKS", "SOURCES", "StepResult", "collect_inputs", "measure_step", "step_name", "step_report"]


@dataclass
class StepResult:
    step: str
    inputs: int = 0
    first_try: int = 0
    after_repair: int = 0
    fell_back: int = 0
    calls: int = 0
    prompt_tokens: list[int] = field(default_factory=list)
    completion_tokens: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    checked: int = 0
    passed: int = 0
    offline_checked: int = 0
    offline_passed: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)

    def row(self) -> dict[str, Any]:
        def mean(values: Sequence[float]) -> float | None:
            return round(sum(values) / len(values), 2) if values else None

        n = max(self.inputs, 1)
        return {"step": self.step, "inputs": self.inputs, "valid_first_try": round(self.first_try / n, 3),
                "valid_after_repair": round(self.after_repair / n, 3), "fell_back": round(self.fell_back / n, 3),
                "mean_prompt_tokens": mean(self.prompt_tokens), "mean_completion_tokens": mean(self.completion_tokens),
                "seconds_per_call": mean(self.seconds), "semantic_checked": self.checked,
                "semantic_pass": round(self.passed / self.checked, 3) if self.checked else None,
                "offline_semantic_pass": (round(self.offline_passed / self.offline_checked, 3)
                                          if self.offline_checked else None)}


async def measure_step(name: str, pairs: Sequence[tuple[Any, Any]], llm: Any) -> StepResult:
    """Run each captured input through the step with `llm`; classify every outcome from its call records."""
    from agents.llm.recording import recording

    result = StepResult(name)
    for step, inputs in pairs:
        with_model = copy.copy(step)
        with_model.llm = llm
        started = time.perf_counter()
        with recording() as recorder:
            output = await with_model.run(inputs)
        records = list(recorder.records)
        result.inputs += 1
        result.calls += len(records)
        ok = [r for r in records if r.ok]
        if ok and ok[0].attempt == 0:
            result.first_try += 1
        elif ok:
            result.after_repair += 1
        else:
            result.fell_back += 1
        result.prompt_tokens += [r.input_tokens for r in records if r.input_tokens is not None]
        result.completion_tokens += [r.output_tokens for r in records if r.output_tokens is not None]
        known = [r.generation_s for r in records if r.generation_s is not None]  # kept in the cache: re-runs agree
        result.seconds += known if known else [(time.perf_counter() - started) / max(len(records), 1)]
        check = CHECKS.get(name)
        verdict = check(step, output, inputs) if check and ok else None
        if verdict is not None:
            result.checked += 1
            result.passed += int(verdict)
        baseline = check(step, step.offline(inputs), inputs) if check else None  # what the model is up against
        if baseline is not None:
            result.offline_checked += 1
            result.offline_passed += int(baseline)
        result.examples.append({"response": records[-1].response if records else None,
                                "error": records[-1].error if records else None, "semantic_pass": verdict})
    return result


def step_report(llm: Any, *, sources: Sequence[str] = tuple(SOURCES), per_step: int = 20,
                steps: Sequence[str] | None = None, seed: int = 0, overrides: Sequence[str] = (),
                on_result: Callable[[list[StepResult]], None] | None = None) -> tuple[list[StepResult], list[str]]:
    """(results per step, steps with no captured input) for the model `llm`; `on_result` is
    given the results so far after each step (a long run keeps what it finished)."""
    import importlib
    import pkgutil

    import agents.steps
    from agents.steps.base import LanguageStep

    for module in pkgutil.walk_packages(agents.steps.__path__, "agents.steps."):  # every step class, run or not
        importlib.import_module(module.name)
    inputs = collect_inputs(sources, per_step, seed, overrides)
    wanted = [s for s in sorted(inputs) if steps is None or s in steps]

    async def measure_all() -> list[StepResult]:  # one event loop: an async client is bound to the loop it met
        done: list[StepResult] = []
        for name in wanted:
            done.append(await measure_step(name, inputs[name], llm))
            if on_result is not None:
                on_result(done)
        return done

    results = asyncio.run(measure_all())
    every = {cls.name for cls in _subclasses(LanguageStep) if isinstance(getattr(cls, "name", None), str)}  # type: ignore[attr-defined]
    missing = sorted(name for name in every - set(inputs) if steps is None or name in steps)
    return results, missing


def _subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out
