"""Generating Wizard-of-Shopping-style data: interactive and single-pass TRACER dialogues.

`crsim generate shopping` (`simulators/cli/generate.py`) composes the same config as
`crsim run experiment=tracer` (so every override works, LLM backends included), builds
the setup and agents through `simulators.engine.build`, and writes into one directory per domain:

| file | content |
| --- | --- |
| `episodes.jsonl`, `config.yaml`, `config_hash.txt`, `llm_calls.jsonl`, `timings.jsonl` | a run directory: `crsim replay` / `crsim report` read it |
| `wos.jsonl` | one `WosDialogue` per line: dialogue, preference, plan, searches, final product |
| `stats.json` | Table-5 statistics, the verification of every final product, timings, planner comparison |

Interactive mode runs episodes through the orchestrator (`simulators.engine.runner`); single-pass
mode samples the same preference per episode index (the environment's own `reset`),
plans the whole trajectory at once (`Planner.full_plan`), picks the final product from
the converged results with the episode's seed, and verbalises everything with
`SinglePassStep` (it uses the seller's `llm`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from agents.llm.recording import CallRecorder, recording, summaries
from agents.steps.tracer.single_pass import PlannedFeature, SinglePassInput, SinglePassStep
from environments.models import (
    Episode, ItemMention, ItemSetState, TerminationReason, Turn, TurnEvaluation,
)
from environments.shopping.preference import Preference
from simulators.engine.episode import EpisodeOutcome, episode_id, episode_seed
from simulators.engine.outcomes import RunLogs

WOS_FILE = "wos.jsonl"
STATS_FILE = "stats.json"
MODES = ("single_pass", "interactive")


class WosDialogue(BaseModel):
    """One generated dialogue, as the WoS dataset lays it out (plus crsim's ids)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    domain: str
    mode: str
    planner: str
    category: str
    preference: dict[str, Any] = Field(description="[PC, (aspect, value, interest)...] as sampled.")
    plan: list[dict[str, Any]] = Field(description="Plan steps: aspects with hints, value, interest.")
    searches: int
    final_product: dict[str, Any] = Field(description="id, title, attributes of the recommended product.")
    satisfies: bool = Field(description="Final product holds every wanted and no unwanted value (checked).")
    dialogue: list[dict[str, str]] = Field(description="[{role, text}], customer first.")


# --------------------------------------------------------------------- single pass
def single_pass_episode(setup: Any, step: SinglePassStep, *, index: int, seed: int, config_hash: str,
                        bank: str, question_rate: float, pair_rate: float) -> EpisodeOutcome:
    import asyncio

    started = time.perf_counter()
    env = setup.new_episode()
    ep_seed = episode_seed(seed, index)
    env.reset(seed=ep_seed)
    preference = env.preference
    rng = np.random.default_rng([ep_seed, 5])
    plan, rows = setup.planner.full_plan(preference, rng)
    final_row = int(rows[int(rng.integers(len(rows)))])
    final = setup.catalog.items[final_row]
    features = [PlannedFeature(a.aspect, a.interest.value, a.value, tuple(a.hints), k)
                for k, s in enumerate(plan.steps) for a in s.aspects]
    recorder = CallRecorder()
    with recording(recorder):
        script = asyncio.run(step.run(SinglePassInput(preference.category, features, final.title, setup.glosses,
                                                      ep_seed, bank, question_rate, pair_rate)))
    turns = [Turn(index=k, role=t.role, text=t.text, items_shown=[final.id] if t.recommend else [],
                  metadata={"asked": t.asked} if t.asked else {}) for k, t in enumerate(script.turns)]
    source = next(t.index for t in turns if t.items_shown)
    fits = setup.shop.satisfies(final_row, preference.wanted, preference.unwanted)
    record = TurnEvaluation(
        turn=sum(1 for t in turns if t.role == "seller"), source_turn=source, n_candidates=len(rows),
        top=[setup.catalog.items[int(i)].id for i in rows[:10]],
        mentions=[ItemMention(role="seller", item_id=final.id, turn_index=source, attitude="like" if fits else "dislike")],
        item_set=ItemSetState(items=[final.id], added=[final.id]))
    profile = {"preference": preference.model_dump(mode="json"), "planner": plan.planner,
               "plan": [s.model_dump(mode="json") for s in plan.steps], "searches": plan.searches,
               "converged": plan.converged, "results": len(rows), "final_product": final.id, "mode": "single_pass"}
    episode = Episode(id=episode_id(seed, index), index=index, config_hash=config_hash, seed=ep_seed,
                      environment=setup.name, targets=[preference.product_id], profile=profile, turns=turns,
                      evaluations=[record], termination=TerminationReason.purchased,
                      llm_calls=summaries(recorder.records))
    return EpisodeOutcome(episode, {"single_pass": [time.perf_counter() - started]}, list(recorder.records))


def generate_single_pass(setup: Any, step: SinglePassStep, *, dialogues: int, seed: int, config_hash: str,
                         out: Path, bank: str, question_rate: float, pair_rate: float,
                         progress: bool = True) -> list[Episode]:
    from tqdm import tqdm

    logs = RunLogs(out)
    episodes = []
    for index in tqdm(range(dialogues), disable=not progress, desc="dialogues", unit="dlg"):
        outcome = single_pass_episode(setup, step, index=index, seed=seed, config_hash=config_hash, bank=bank,
                                      question_rate=question_rate, pair_rate=pair_rate)
        logs.write(outcome)
        episodes.append(outcome.episode)
    return episodes


# --------------------------------------------------------------------- dataset and statistics
def to_wos(episode: Episode, setup: Any, domain: str, mode: str) -> WosDialogue | None:
    """The WoS record of a finished episode (None if it never got to a recommendation)."""
    final_id = episode.profile.get("final_product")
    if not final_id or episode.termination is TerminationReason.error:
        return None
    row = setup.catalog.item_index[final_id]
    item = setup.catalog.items[row]
    preference = Preference.model_validate(episode.profile["preference"])
    return WosDialogue(
        id=episode.id, domain=domain, mode=mode, planner=episode.profile["planner"], category=preference.category,
        preference=episode.profile["preference"], plan=episode.profile["plan"], searches=episode.profile["searches"],
        final_product={"id": item.id, "title": item.title, "attributes": item.attributes},
        satisfies=setup.shop.satisfies(row, preference.wanted, preference.unwanted),
        dialogue=[{"role": t.role, "text": t.text} for t in episode.turns])


def write_wos(records: Sequence[WosDialogue], path: Path) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(record.model_dump_json() + "\n")


def table5(records: Sequence[WosDialogue], seconds: float, domain: str) -> dict[str, Any]:
    """WoS Table 5 for what was written, plus the shape of the utterances."""
    n = len(records)
    utterances = [len(r.dialogue) for r in records]
    words = [len(turn["text"].split()) for r in records for turn in r.dialogue]
    return {
        "domain": domain, "dialogues": n,
        "avg_utterances": float(np.mean(utterances)) if n else 0.0,
        "avg_searches": float(np.mean([r.searches for r in records])) if n else 0.0,
        "avg_words_per_utterance": float(np.mean(words)) if words else 0.0,
        "seconds_total": seconds, "seconds_per_dialogue": seconds / n if n else 0.0,
        "final_products_satisfying": sum(r.satisfies for r in records),
        "categories": len({r.category for r in records}),
    }


def compare_planners(setup: Any, *, dialogues: int, seed: int) -> dict[str, Any]:
    """Searches, aspects and seller turns to converge, tree vs random order, paired by preference."""
    from environments.shopping.planner import Planner
    from simulators.results.stats import bootstrap_ci, paired_bootstrap_diff

    planners = {"tree": Planner(setup.shop, "tree"), "random": Planner(setup.shop, "random")}
    values: dict[str, dict[str, list[float]]] = {k: {"turns": [], "searches": [], "aspects": []} for k in planners}
    for index in range(dialogues):
        env = setup.new_episode()
        ep_seed = episode_seed(seed, index)
        env.reset(seed=ep_seed)
        for kind, planner in planners.items():
            plan, _ = planner.full_plan(env.preference, np.random.default_rng([ep_seed, 5]))
            for name in ("turns", "searches", "aspects"):
                values[kind][name].append(float(getattr(plan, name)))
    result: dict[str, Any] = {"pairs": dialogues}
    for name in ("turns", "searches", "aspects"):
        tree, rand = values["tree"][name], values["random"][name]
        result[name] = {"tree": list(bootstrap_ci(tree, seed=seed)), "random": list(bootstrap_ci(rand, seed=seed)),
                        "random_minus_tree": list(paired_bootstrap_diff(rand, tree, seed=seed))}
    return result


def write_stats(stats: dict[str, Any], out: Path) -> None:
    (out / STATS_FILE).write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
