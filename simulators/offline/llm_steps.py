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


def _states_a_target_value(step: Any, output: Any, inputs: Any) -> bool | None:
    """seeker_answer: the answer says something the seeker's facts hold (a fact key it names is one of them)."""
    keys = getattr(output, "fact_keys", None)
    facts = getattr(inputs, "facts", None)
    if keys is None or facts is None:
        return None
    known = {getattr(f, "key", None) for f in facts}
    return bool(keys) and all(k in known for k in keys)


def _picked_on_screen(step: Any, output: Any, inputs: Any) -> bool | None:
    """playlist_pick: every track it names links to a track on screen (`link_tracks`, as the curator reads it)."""
    from agents.steps.playlist import link_tracks

    names, shown = getattr(output, "add", None), getattr(inputs, "shown", None)
    if names is None or shown is None:
        return None
    _linked, unknown = link_tracks(names, shown)
    return not unknown


def _links_what_was_named(step: Any, output: Any, inputs: Any) -> bool | None:
    """crag_extract: the names it extracts link to the catalog items the text names (the
    offline extractor's exact-title finding): none missed, none invented."""
    from agents.steps.entity_linking import tie_rule

    def linked(names: Sequence[str]) -> set[int]:
        return {p for p in (tie_rule(step.linker.index, step.linker.candidates(n))[0] for n in names)
                if p is not None}

    return linked([m.name for m in output.mentions]) == linked([m.name for m in step.offline(inputs).mentions])


def _chose_the_title_meant(step: Any, output: Any, inputs: Any) -> bool | None:
    """crag_link_reflect: each decision picks the match whose title is the one the name was made from."""
    truth = _TRUE_TITLES.get(id(inputs))
    if truth is None:
        return None
    for decision, found, title in zip(output.decisions, inputs.disagreements, truth):
        chosen = found.fuzzy if decision.method == "fuzzy" else found.bm25 if decision.method == "bm25" else None
        if chosen is None or inputs.titles[chosen.item] != title:
            return False
    return True


def _is_a_question(step: Any, output: Any, inputs: Any) -> bool | None:
    """clarify_question: it asks something (ends with a question mark), and asks the person,
    not about a candidate ("What is the cuisine of Place 05?" names one: the person cannot know)."""
    from agents.steps.text import normalised

    question = f" {normalised(output.question)} "
    names_one = any(f" {normalised(item.title)} " in question for item in inputs.candidates if item.title.strip())
    return output.question.strip().endswith("?") and not names_one


def _agrees_with_own_ratings(step: Any, output: Any, inputs: Any) -> bool | None:
    """pepper_reflect: an item the person has seen and rated 4-5 (1-2) is liked (disliked),
    as its own review says; None when no such item was shown."""
    verdicts = []
    for reaction in output.reactions:
        rating = inputs.own_reviews.get(reaction.item_id, (None, ""))[0]
        if rating is not None and (rating >= 4 or rating <= 2):
            verdicts.append(reaction.reaction == ("like" if rating >= 4 else "dislike"))
    return all(verdicts) if verdicts else None


def _names_catalog_items(step: Any, output: Any, inputs: Any) -> bool | None:
    """crag_infer, crag_recommend: every title it names is one of the catalog's (year and case aside)."""
    titles = _CATALOG_TITLES.get(id(inputs))
    if titles is None or not output.titles:
        return None if titles is None else False
    return all(_bare_title(t) in titles for t in output.titles)


def _bare_title(title: str) -> str:
    import re

    from agents.steps.text import normalised

    return normalised(re.sub(r"\s*\(\d{4}\)\s*$", "", title))


def _about_a_shown_item(step: Any, output: Any, inputs: Any) -> bool | None:
    """item_answer: the item it says the question is about is one on screen (an id, as given)."""
    if not output.answer:
        return None
    return output.item_id is None or output.item_id in inputs.shown


def _known_category(step: Any, output: Any, inputs: Any) -> bool | None:
    """shopping_extract_query: the category is one of the shop's and every aspect is one it has."""
    if output.category not in inputs.categories:
        return False
    aspects = inputs.values.get(output.category, {})
    return all(a.aspect in aspects for a in output.wanted)


CHECKS: dict[str, Callable[[Any, Any, Any], bool | None]] = {
    "seeker_answer": _states_a_target_value,
    "playlist_pick": _picked_on_screen,
    "crag_extract": _links_what_was_named,
    "crag_link_reflect": _chose_the_title_meant,
    "clarify_question": _is_a_question,
    "crag_infer": _names_catalog_items,
    "pepper_reflect": _agrees_with_own_ratings,
    "crag_recommend": _names_catalog_items,
    "item_answer": _about_a_shown_item,
    "shopping_extract_query": _known_category,
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
            setup, ran = _run_offline([*own, *overrides], episodes, max_turns, seed)
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


def _run_offline(overrides: Sequence[str], episodes: int, max_turns: int, seed: int) -> tuple[Any, list[Any]]:
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
        summary = asyncio.run(run_episodes(setup, agents, episodes=episodes, max_turns=max_turns, seed=seed,
                                           concurrency=1, run_dir=Path(tmp), config_hash="llm-steps", progress=False))
        episodes_run = list(summary.episodes)  # read from the run's log, before it goes
    return setup, episodes_run


# ---------------------------------------------------------------- steps a run reaches only after it
def _judges(setup: Any, episodes: Sequence[Any], captured: list[tuple[Any, Any]]) -> None:
    """PEPPER's rubric judge and CRSArena's aspect judge on the run's episodes (offline there is
    no judge, so no run calls them): criteria and aspects in turn, one per episode."""
    from agents.steps.aspect_judge import ASPECTS, AspectInput, AspectJudgeStep
    from agents.steps.judge import CRITERIA, JudgeStep
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
    from agents.steps.shopping_single_pass import SinglePassStep
    from simulators.evaluators.shopping import ShoppingEvaluator
    from simulators.offline.shopping_generate import generate_single_pass

    ShoppingEvaluator(dense=False).evaluate(episodes, setup)
    with tempfile.TemporaryDirectory() as tmp:
        generate_single_pass(setup, SinglePassStep(None), dialogues=len(episodes), seed=0, config_hash="llm-steps",
                             out=Path(tmp), bank="a", question_rate=0.3, pair_rate=0.3, progress=False)


#: a link-reflection input's true titles (by the input's id), for its semantic check
_TRUE_TITLES: dict[int, list[str]] = {}
#: the catalog's bare titles, by the id of a CRAG generation step's input
_CATALOG_TITLES: dict[int, frozenset[str]] = {}


def _catalog_of_generations(setup: Any, episodes: Sequence[Any], captured: list[tuple[Any, Any]]) -> None:
    """Remember the catalog each CRAG recommend / infer input came from, for their check."""
    from agents.steps.crag import InferItemsStep, RecommendStep

    titles = frozenset(_bare_title(item.title) for item in setup.catalog.items)
    for step, inputs in captured:
        if isinstance(step, (RecommendStep, InferItemsStep)):
            _CATALOG_TITLES[id(inputs)] = titles


def _link_disagreements(setup: Any, episodes: Sequence[Any], captured: list[tuple[Any, Any]]) -> None:
    """CRAG's link reflection runs only where the fuzzy and BM25 links of a name disagree, which
    offline seekers' exact titles never make. Names as people write them (no year, lower case,
    no leading article, small words left out, a dropped letter; never a lone word, which could mean many titles) are
    linked to the catalog; the ones that disagree are asked about in pairs, with the title
    meant kept for the check."""
    from agents.steps.crag import ExtractMentionsStep, ReflectLinksInput, ReflectLinksStep

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
        _TRUE_TITLES[id(inputs)] = [t for t, _ in pair]
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

    for module in pkgutil.iter_modules(agents.steps.__path__):  # every step class, run or not
        importlib.import_module(f"agents.steps.{module.name}")
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
