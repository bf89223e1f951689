"""The LLM step report: every prompt step crsim has, on real inputs, with a configured model.

Inputs come from offline runs of the shipped experiments (`SOURCES`): each step's
`LanguageStep.run` is captured (`agents.steps.base.capture_steps`) with the inputs an
episode really gave it. For each step, up to `per_step` distinct inputs are then run again
with the model (the step object copied, its `llm` set), and every call is recorded: valid
on the first try, valid after the repair request, or fallen back to the offline
implementation; prompt and completion tokens; seconds per call. Where a step has a
semantic check (`CHECKS`: the answer states a value the target has, the picked tracks are
on screen, ...) its pass rate is reported too. Steps no offline run exercised are listed,
so the report never looks more complete than it is.
"""

from __future__ import annotations

import asyncio
import copy
import json
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: what offline runs produce each step's inputs: name -> (overrides, episodes, max_turns)
SOURCES: dict[str, tuple[list[str], int, int]] = {
    "single_target": (["recommender=bm25", "seeker=target_biased"], 4, 3),
    "sniprec": (["experiment=sniprec", "recommender=sniprec_expansion", "embedding_model=minilm-int8",
                 "recommender.embedding_model=minilm-int8"], 3, 3),
    "pepper": (["experiment=pepper", "seeker=target_free", "recommender=bm25", "embedding_model=minilm-int8"], 3, 3),
    "crag": (["experiment=crag", "recommender=crag", "recommender.k=5", "embedding_model=minilm-int8"], 3, 3),
    "playlist": (["experiment=playlist", "recommender=curator_llm", "embedding_model=minilm-int8"], 3, 3),
    "tracer": (["experiment=tracer", "embedding_model=minilm-int8", "evaluators=[]"], 3, 8),
}


def _states_a_target_value(output: Any, inputs: Any) -> bool | None:
    """seeker_answer: the answer says something the seeker's facts hold (a fact key it names is one of them)."""
    keys = getattr(output, "fact_keys", None)
    facts = getattr(inputs, "facts", None)
    if keys is None or facts is None:
        return None
    known = {getattr(f, "key", None) for f in facts}
    return bool(keys) and all(k in known for k in keys)


def _picked_on_screen(output: Any, inputs: Any) -> bool | None:
    """playlist_pick: every track it names links to a track on screen (`link_tracks`, as the curator reads it)."""
    from agents.steps.playlist import link_tracks

    names, shown = getattr(output, "add", None), getattr(inputs, "shown", None)
    if names is None or shown is None:
        return None
    _linked, unknown = link_tracks(names, shown)
    return not unknown


CHECKS: dict[str, Callable[[Any, Any], bool | None]] = {
    "seeker_answer": _states_a_target_value,
    "playlist_pick": _picked_on_screen,
}


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
    examples: list[dict[str, Any]] = field(default_factory=list)

    def row(self) -> dict[str, Any]:
        def mean(values: Sequence[float]) -> float | None:
            return round(sum(values) / len(values), 2) if values else None

        n = max(self.inputs, 1)
        return {"step": self.step, "inputs": self.inputs, "valid_first_try": round(self.first_try / n, 3),
                "valid_after_repair": round(self.after_repair / n, 3), "fell_back": round(self.fell_back / n, 3),
                "mean_prompt_tokens": mean(self.prompt_tokens), "mean_completion_tokens": mean(self.completion_tokens),
                "seconds_per_call": mean(self.seconds), "semantic_checked": self.checked,
                "semantic_pass": round(self.passed / self.checked, 3) if self.checked else None}


def collect_inputs(sources: Sequence[str], per_step: int, seed: int = 0,
                   overrides: Sequence[str] = ()) -> dict[str, list[tuple[Any, Any]]]:
    """Step name -> up to `per_step` distinct (step, inputs) pairs from offline runs of `sources`
    (`overrides` are added to each source's, e.g. a smaller world)."""
    from agents.steps.base import capture_steps

    found: dict[str, list[tuple[Any, Any]]] = {}
    seen: set[tuple[str, str]] = set()
    for source in sources:
        own, episodes, max_turns = SOURCES[source]
        with capture_steps() as captured:
            _run_offline([*own, *overrides], episodes, max_turns, seed)
        for step, inputs in captured:
            key = (step.name, json.dumps(step.prompt_variables(inputs), sort_keys=True, default=str))
            if key in seen or len(found.get(step.name, [])) >= per_step:
                continue
            seen.add(key)
            found.setdefault(step.name, []).append((step, inputs))
    return found


def _run_offline(overrides: Sequence[str], episodes: int, max_turns: int, seed: int) -> None:
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from simulators.engine.build import build_agents, build_setup
    from simulators.engine.hydra_setup import CONF_DIR, register_resolvers
    from simulators.engine.runner import run_episodes

    register_resolvers()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=[*overrides, f"seed={seed}"])
    config = OmegaConf.to_container(cfg, resolve=True)
    setup = build_setup(config["environment"])
    agents = build_agents(config, setup)
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run_episodes(setup, agents, episodes=episodes, max_turns=max_turns, seed=seed, concurrency=1,
                                 run_dir=Path(tmp), config_hash="llm-steps", progress=False))


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
        result.seconds.append((time.perf_counter() - started) / max(len(records), 1))
        check = CHECKS.get(name)
        verdict = check(output, inputs) if check and ok else None
        if verdict is not None:
            result.checked += 1
            result.passed += int(verdict)
        if len(result.examples) < 2:
            result.examples.append({"response": records[-1].response if records else None,
                                    "error": records[-1].error if records else None})
    return result


def step_report(llm: Any, *, sources: Sequence[str] = tuple(SOURCES), per_step: int = 20,
                steps: Sequence[str] | None = None, seed: int = 0,
                overrides: Sequence[str] = ()) -> tuple[list[StepResult], list[str]]:
    """(results per step, steps with no captured input) for the model `llm`."""
    import importlib
    import pkgutil

    import agents.steps
    from agents.steps.base import LanguageStep

    for module in pkgutil.iter_modules(agents.steps.__path__):  # every step class, run or not
        importlib.import_module(f"agents.steps.{module.name}")
    inputs = collect_inputs(sources, per_step, seed, overrides)
    wanted = [s for s in sorted(inputs) if steps is None or s in steps]

    async def measure_all() -> list[StepResult]:  # one event loop: an async client is bound to the loop it met
        return [await measure_step(name, inputs[name], llm) for name in wanted]

    results = asyncio.run(measure_all())
    every = {cls.name for cls in _subclasses(LanguageStep) if isinstance(getattr(cls, "name", None), str)}
    missing = sorted(name for name in every - set(inputs) if steps is None or name in steps)
    return results, missing


def _subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out
