"""What a target-biased seeker knows about its target's attributes, and how people say it.

A seeker speaks from its target's truth, not from the catalog: on a synthetic world the
catalog shows only part of an item's attributes (some wrong), while the seeker knows
them all, like a person who knows what they want. It also needs words that are not the
catalog's: on a world those come from `environments.worlds.seeker_talk` (a phrase bank
disjoint from the reviews'), with the values it could say it does *not* want and vague
wordings ("nothing too pricey"). On a real catalog there is no truth: the item's shown
attributes are all it knows, said by their plain value.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from environments.catalog import Catalog
from environments.catalog.store import load_manifest
from environments.models import AttributeValue, Item
from environments.search.word_stats import VAGUE

if TYPE_CHECKING:
    from environments.worlds.truth import ItemTruth


@dataclass(frozen=True, slots=True)
class TargetFact:
    """One value of the target: how to say it, what to say it is not, vaguer ways."""

    aspect: str
    aspect_display: str
    value: str
    says: tuple[str, ...]
    avoid: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (other value, its wordings): "anything but ..."
    vague: tuple[str, ...] = ()
    salience: float = 1.0


@dataclass(frozen=True, slots=True)
class TargetKnowledge:
    """Everything attribute-like the seeker knows about its target."""

    facts: tuple[TargetFact, ...]
    signatures: tuple[str, ...] = ()


def target_knowledge(catalog: Catalog, item: Item) -> TargetKnowledge:
    """From the world's truth and seeker phrase bank if `catalog` is a world, else from `item`."""
    world = _world_truth(str(catalog.path)) if catalog.path is not None else None
    if world is not None:
        domain, items = world
        truth = items.get(item.id)
        if truth is not None:
            return TargetKnowledge(tuple(domain_facts(domain, truth.attributes)), tuple(truth.signatures))
    return plain_knowledge(item.attributes)


def is_world(catalog: Catalog) -> bool:
    """Whether `catalog` is a synthetic world (its seekers speak from the world's truth)."""
    return catalog.path is not None and _world_truth(str(catalog.path)) is not None


def plain_knowledge(attributes: dict[str, AttributeValue]) -> TargetKnowledge:
    """Shown attributes, each said by its value ("size_range" -> "size range"): all a seeker
    knows on a catalog without truth.

    A value that names nothing a shopper wants ("General", a clothing catalog's division:
    "General would be great" read as nonsense to blind raters) is not said, and a value two
    attributes share ("Dresses" as department and class) is said once."""
    facts, said = [], set()
    for aspect, val in attributes.items():
        for value in [val] if isinstance(val, str) else list(val or []):
            words = _words(str(value))
            if words and words.lower() not in said and not set(words.lower().split()) <= VAGUE:
                said.add(words.lower())
                facts.append(TargetFact(aspect, _words(aspect), str(value), (words,)))
    return TargetKnowledge(tuple(facts))


def _words(key: str) -> str:
    return key.replace("_", " ").strip()


@cache
def _world_truth(path: str) -> tuple[str, dict[str, ItemTruth]] | None:
    """(domain, item truth by id) for a world directory; None for any other catalog."""
    from environments.worlds import load_item_truth

    items = load_item_truth(path)
    return (load_manifest(Path(path)).domain, items) if items else None


def domain_facts(domain: str, attributes: dict[str, AttributeValue]) -> list[TargetFact]:
    """The values of `attributes` as a person talks about them in a world `domain` (its
    seeker phrase bank): also how a target-free seeker words the values it likes."""
    from environments.worlds import get_domain
    from environments.worlds.seeker_talk import SEEKER_WORDS, VAGUE

    spec, words = get_domain(domain), SEEKER_WORDS[domain]
    facts = []
    for aspect in spec.aspects:
        val = attributes.get(aspect.name)
        values = [val] if isinstance(val, str) else list(val or [])
        for value in values:
            avoid = ()
            if aspect.dislikable and not aspect.multi_valued:
                avoid = tuple((other.value, tuple(words[aspect.name][other.value]))
                              for other in aspect.values if other.value != value)
            vague = tuple(phrase for name, phrase, fits in VAGUE.get(domain, []) if name == aspect.name
                          and value in fits)
            facts.append(TargetFact(aspect.name, aspect.display, value, tuple(words[aspect.name][value]),
                                    avoid, vague, aspect.salience))
    return facts
