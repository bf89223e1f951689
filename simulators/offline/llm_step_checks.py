"""The LLM step report's semantic checks: per step, is a valid answer also a right one?

A step's answer can parse and still be wrong: a seeker answer stating a value its target
does not have, a curator picking a track that is not on screen. `CHECKS` maps a step name
to a check `(step, output, inputs) -> bool | None` (None: nothing to check on this input),
which `simulators.offline.llm_steps.measure_step` runs on the model's answer and on the
offline implementation's, so the report shows what the model is up against. Some checks
need a truth the inputs do not hold; the input feeders record it here (`TRUE_TITLES`,
`CATALOG_TITLES`), keyed by the input's id.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

#: a link-reflection input's true titles (by the input's id), for its semantic check
TRUE_TITLES: dict[int, list[str]] = {}
#: the catalog's bare titles, by the id of a CRAG generation step's input
CATALOG_TITLES: dict[int, frozenset[str]] = {}


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
    from agents.steps.playlist.steps import link_tracks

    names, shown = getattr(output, "add", None), getattr(inputs, "shown", None)
    if names is None or shown is None:
        return None
    _linked, unknown = link_tracks(names, shown)
    return not unknown


def _links_what_was_named(step: Any, output: Any, inputs: Any) -> bool | None:
    """crag_extract: the names it extracts link to the catalog items the text names (the
    offline extractor's exact-title finding): none missed, none invented."""
    from agents.steps.crag.entity_linking import tie_rule

    def linked(names: Sequence[str]) -> set[int]:
        return {p for p in (tie_rule(step.linker.index, step.linker.candidates(n))[0] for n in names)
                if p is not None}

    return linked([m.name for m in output.mentions]) == linked([m.name for m in step.offline(inputs).mentions])


def _chose_the_title_meant(step: Any, output: Any, inputs: Any) -> bool | None:
    """crag_link_reflect: each decision picks the match whose title is the one the name was made from."""
    truth = TRUE_TITLES.get(id(inputs))
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
    titles = CATALOG_TITLES.get(id(inputs))
    if titles is None or not output.titles:
        return None if titles is None else False
    return all(bare_title(t) in titles for t in output.titles)


def bare_title(title: str) -> str:
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
