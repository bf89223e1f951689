"""The LLM step report's inputs: each prompt step's real inputs, captured from offline runs.

Offline runs of the shipped experiments (`SOURCES`) are run with every `LanguageStep.run`
captured (`agents.steps.base.capture_steps`), so each step gets the inputs an episode
really gave it. Steps an offline run never reaches (the judges, TRACER's query extraction,
CRAG's link reflection) are fed after the run from its episodes (`AFTER_RUN`). What the
report does with them is `simulators.offline.llm_steps`; what counts as right is
`simulators.offline.llm_step_checks`.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from simulators.offline.llm_step_checks import CATALOG_TITLES, TRUE_TITLES, bare_title

#: what offline runs produce each step's inputs: name -> (overrides, episodes, max_turns)
SOURCES: dict[str, tuple[list[str], int, int]] = {
    "single_target": (["recommender=bm25", "seeker=target_biased"], 80, 3),
    "sniprec": (["experiment=sniprec", "recommender=sniprec_expansion", "embedding_model=minilm-int8",
                 "recommender.embedding_model=minilm-int8"], 7, 3),
    "pepper": (["experiment=pepper", "seeker=target_free", "recommender=bm25", "embedding_model=minilm-int8"], 20, 3),
    "crag": (["experiment=crag", "recommender=crag", "recommender.k=5", "embedding_model=minilm-int8"], 7, 3),
    # a seeker that names no film: CRAG guesses what it would like (crag_infer)
    "crag_no_mentions": (["experiment=crag", "recommender=crag", "recommender.k=5", "seeker.mention_liked=0",
                          "embedding_model=minilm-int8"], 14, 2),
    "playlist": (["experiment=playlist", "recommender=curator_llm", "embedding_model=minilm-int8"], 7, 3),
    "tracer": (["experiment=tracer", "embedding_model=minilm-int8", "evaluators=[]"], 26, 8),
}


def step_name(step: Any) -> str:
    """The report's name of a step: its class's (the judges name instances per criterion)."""
    return str(type(step).name)


def collect_inputs(sources: Sequence[str], per_step: int, seed: int = 0,
                   overrides: Sequence[str] = ()) -> dict[str, list[tuple[Any, Any]]]:
    """Step name -> up to `per_step` distinct (step, inputs) pairs from offline runs of `sources`
    (`overrides` are added to each source's, e.g. a smaller world)."""
    from agents.steps.base import capture_steps

    found: dict[str, list[tuple[Any, Any]]] = {}
    seen: set[tuple[str, str, str]] = set()
    for source in sources:
        own, episodes, max_turns = SOURCES[source]
        with capture_steps() as captured:
            setup, ran = run_offline([*own, *overrides], episodes, max_turns, seed)
            for feed in AFTER_RUN.get(source, ()):
                feed(setup, ran, captured)
        for step, inputs in captured:
            name = step_name(step)
            key = (name, step.prompt_name, json.dumps(step.prompt_variables(inputs), sort_keys=True, default=str))
            if key in seen or len(found.get(name, [])) >= per_step:
                continue
            seen.add(key)
            found.setdefault(name, []).append((step, inputs))
    return found


def run_offline(overrides: Sequence[str], episodes: int, max_turns: int, seed: int) -> tuple[Any, list[Any]]:
    from omegaconf import OmegaConf

    from simulators.engine.build import build_agents, build_setup
    from simulators.engine.hydra_setup import compose_config
    from simulators.engine.runner import run_episodes

    cfg = compose_config([*overrides, f"seed={seed}"])
    config = OmegaConf.to_container(cfg, resolve=True)
    setup = build_setup(config["environment"])
    agents = build_agents(config, setup)
    with tempfile.TemporaryDirectory() as tmp:
        summary = asyncio.run(run_episodes(setup, agents, episodes=episodes, max_turns=max_turns, seed=seed,
                                           concurrency=1, run_dir=Path(tmp), config_hash="llm-steps", progress=False))
        episodes_run = list(summary.episodes)  # read from the run's log, before it goes
    return setup, episodes_run


# ---------------------------------------------------------------- steps a run reaches only after it
def _judges(setup: Any, episodes: Sequence[Any], captured: list[tuple[Any, Any]]) -> None:
    """PEPPER's rubric judge and CRSArena's aspect judge on the run's episodes (offline there is
    no judge, so no run calls them): criteria and aspects in turn, one per episode."""
    from agents.steps.judge.aspects import ASPECTS, AspectInput, AspectJudgeStep
    from agents.steps.judge.rubric import CRITERIA, JudgeStep
    from environments.models import Role
    from simulators.evaluators.judge import judge_input

    aspects = list(ASPECTS)
    for n, episode in enumerate(e for e in episodes if e.error is None):
        captured.append((JudgeStep(None, CRITERIA[n % len(CRITERIA)]), judge_input(episode)))
        aspect = ASPECTS[aspects[n % len(aspects)]]
        lines = [f"{'User' if t.role == Role.seeker else 'Recommender'}: {t.text}" for t in episode.turns]
        if aspect.level == "dialogue":
            inputs = AspectInput("\n".join(lines))
        else:  # the last recommender turn, given what came before it
            last = max(k for k, t in enumerate(episode.turns) if t.role != Role.seeker)
            inputs = AspectInput("\n".join(lines[:last]), episode.turns[last].text)
        captured.append((AspectJudgeStep(None, aspect.name), inputs))


def _shopping_after(setup: Any, episodes: Sequence[Any], captured: list[tuple[Any, Any]]) -> None:
    """TRACER's query extraction (its evaluator) and single-pass scripts (`crsim generate`)."""
    from agents.steps.tracer.single_pass import SinglePassStep
    from simulators.evaluators.shopping import ShoppingEvaluator
    from simulators.offline.shopping_generate import generate_single_pass

    ShoppingEvaluator(dense=False).evaluate(episodes, setup)
    with tempfile.TemporaryDirectory() as tmp:
        generate_single_pass(setup, SinglePassStep(None), dialogues=len(episodes), seed=0, config_hash="llm-steps",
                             out=Path(tmp), bank="a", question_rate=0.3, pair_rate=0.3, progress=False)


def _catalog_of_generations(setup: Any, episodes: Sequence[Any], captured: list[tuple[Any, Any]]) -> None:
    """Remember the catalog each CRAG recommend / infer input came from, for their check."""
    from agents.steps.crag.steps import InferItemsStep, RecommendStep

    titles = frozenset(bare_title(item.title) for item in setup.catalog.items)
    for step, inputs in captured:
        if isinstance(step, (RecommendStep, InferItemsStep)):
            CATALOG_TITLES[id(inputs)] = titles


def _link_disagreements(setup: Any, episodes: Sequence[Any], captured: list[tuple[Any, Any]]) -> None:
    """CRAG's link reflection runs only where the fuzzy and BM25 links of a name disagree, which
    offline seekers' exact titles never make. Names as people write them (no year, lower case,
    no leading article, small words left out, a dropped letter; never a lone word, which could mean many titles) are
    linked to the catalog; the ones that disagree are asked about in pairs, with the title
    meant kept for the check."""
    from agents.steps.crag.steps import ExtractMentionsStep, ReflectLinksInput, ReflectLinksStep

    extract = next((step for step, _ in captured if isinstance(step, ExtractMentionsStep)), None)
    if extract is None:
        return
    linker, catalog = extract.linker, setup.catalog
    titles = [item.title for item in catalog.items]
    written = {}  # a name as written -> the titles it could be written for
    for title in titles:
        for raw in _as_people_write(title):
            written.setdefault(raw, set()).add(title)
    found = []
    for title in titles[::7]:
        for raw in _as_people_write(title):
            if written[raw] != {title}:  # "restless lantern" is how both "Restless Lantern" and "The ..." are written
                continue
            match = linker.candidates(raw)
            if not match.agree and (match.fuzzy or match.bm25):
                found.append((title, match))
                break
    step = ReflectLinksStep(linker)
    for start in range(0, len(found) - 1, 2):
        pair = found[start:start + 2]
        inputs = ReflectLinksInput(f"I loved {pair[0][1].raw} and {pair[1][1].raw}.", [m for _, m in pair], titles,
                                   catalog.item_noun)
        TRUE_TITLES[id(inputs)] = [t for t, _ in pair]
        captured.append((step, inputs))


def _as_people_write(title: str) -> list[str]:
    import re

    bare = re.sub(r"\s*\(\d{4}\)$", "", title).strip()
    unarticled = re.sub(r"^(the|a|an)\s+", "", bare, flags=re.IGNORECASE)
    words = unarticled.split()
    longest = max(range(len(words)), key=lambda k: len(words[k])) if words else 0
    typo = " ".join(w[:-2] + w[-1] if k == longest and len(w) > 4 else w for k, w in enumerate(words))
    shorter = " ".join(w for w in words if w.lower() not in {"of", "to", "the", "and", "a", "an", "in"})
    return [f for f in dict.fromkeys([unarticled.lower(), shorter.lower(), typo.lower()]) if f]


AFTER_RUN: dict[str, tuple[Callable[[Any, Sequence[Any], list[tuple[Any, Any]]], None], ...]] = {
    "pepper": (_judges,),
    "tracer": (_shopping_after,),
    "crag": (_link_disagreements, _catalog_of_generations),
    "crag_no_mentions": (_catalog_of_generations,),
}
