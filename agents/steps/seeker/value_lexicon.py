"""How an offline simulated reader recognises attribute values in free text.

A language model reading "the slow-burn dread kept me up" knows the film is a horror
with a slow pace; an offline seeker needs a stand-in for that knowledge. The lexicon maps
surface phrases to (aspect, value) features:

- every attribute value of the catalog, by its own words ("horror", "1990s"), which is
  all an imported catalog offers;
- on a synthetic world, also the domain's surface phrases for each value (the ways its
  reviews and descriptions word it), which is what a reader fluent in the domain knows.
  This is the seeker's language understanding, not the recommender's: recommenders never
  get the lexicon.

Matching is case-insensitive on word boundaries, longest phrase first, without overlaps.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from environments.models import AttributeValue

if TYPE_CHECKING:
    from environments.base import ItemCard
    from environments.catalog import Catalog

Feature = tuple[str, str]  # (aspect, canonical value)
WORLD_SOURCE = "crsim.worlds"
MIN_PHRASE_CHARS = 3


@dataclass(frozen=True, slots=True)
class ValueMention:
    """One phrase of `text[start:end]` naming `feature`."""

    feature: Feature
    start: int
    end: int


def attribute_values(value: AttributeValue) -> list[str]:
    """The values of one attribute as strings (multi-valued attributes are lists)."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if str(v).strip()]
    text = str(value).strip()
    return [text] if text else []


class ValueLexicon:
    """Surface phrase (lower case) -> feature, matched in text by one compiled pattern."""

    def __init__(self, phrases: Mapping[str, Feature]):
        self.phrases = {p.lower().strip(): f for p, f in phrases.items() if len(p.strip()) >= MIN_PHRASE_CHARS}

    @classmethod
    def for_catalog(cls, catalog: Catalog) -> ValueLexicon:
        """Attribute values of the catalog, plus the domain's phrases on a synthetic world."""
        phrases: dict[str, Feature] = {}
        for item in catalog.items:
            for aspect, value in item.attributes.items():
                for v in attribute_values(value):
                    phrases.setdefault(v.lower(), (aspect, v))
        manifest = catalog.manifest
        from environments.worlds.registry import DOMAINS

        if manifest.source == WORLD_SOURCE and manifest.domain in DOMAINS:
            for aspect in DOMAINS[manifest.domain].aspects:
                for spec in aspect.values:
                    phrases[spec.value.lower()] = (aspect.name, spec.value)
                    for phrase in spec.phrases:
                        phrases.setdefault(phrase.lower(), (aspect.name, spec.value))
        return cls(phrases)

    @cached_property
    def _pattern(self) -> re.Pattern[str] | None:
        if not self.phrases:
            return None
        alternatives = sorted(self.phrases, key=lambda p: (-len(p), p))
        return re.compile(r"(?<![\w'])(" + "|".join(re.escape(p) for p in alternatives) + r")(?![\w'])",
                          re.IGNORECASE)

    def mentions(self, text: str) -> list[ValueMention]:
        if self._pattern is None:
            return []
        return [ValueMention(self.phrases[m.group(1).lower()], m.start(), m.end())
                for m in self._pattern.finditer(text)]

    def features(self, text: str) -> set[Feature]:
        return {m.feature for m in self.mentions(text)}

    def card_features(self, card: ItemCard) -> set[Feature]:
        """What a reader takes from an item card: its listed attributes and its description."""
        listed = {(aspect, v) for aspect, value in card.attributes.items() for v in attribute_values(value)}
        return listed | self.features(card.description)


def describe_feature(feature: Feature) -> str:
    """A feature as words for a narrative or a prompt ("horror (genre)")."""
    aspect, value = feature
    return f"{value} ({aspect.replace('_', ' ')})"

