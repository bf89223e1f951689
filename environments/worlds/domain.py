"""Domain specifications for synthetic worlds: aspects, values and how people talk about them.

A synthetic world is only useful for comparing retrieval methods if the same fact is
written in many ways: a seeker asks for "italian", a review only says "handmade gnocchi".
So every value carries several surface phrases plus sentence templates that praise or
criticise it, and validation insists that at least a third of the phrases avoid the
canonical word. That keeps lexical (BM25) and semantic (embedding) retrieval from
trivially agreeing. Specs are frozen: they are shared module-level data.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cached_property
from string import Formatter
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field, model_validator

_WORD = re.compile(r"[a-z0-9]+")


def canonical_stems(value: str) -> list[str]:
    """Four-letter stems of a canonical value's words ("gluten-free" -> ["glut", "free"]).

    A short prefix catches inflections a stemmer would also catch ("Italy", "italian"),
    so a phrase that passes `names_value(...) is False` really needs semantics to match.
    """
    return [word[:4] for word in _WORD.findall(value.lower()) if len(word) >= 3]


def names_value(text: str, value: str) -> bool:
    """Whether `text` contains a word starting with a stem of the canonical `value`."""
    words = _WORD.findall(text.lower())
    return any(word.startswith(stem) for stem in canonical_stems(value) for word in words)


def placeholders(template: str) -> list[str]:
    """Field names used in a `str.format` template, in order."""
    return [field for _, field, _, _ in Formatter().parse(template) if field is not None]


def title_part(field: str) -> str:
    """Title-pattern field -> part name: `noun2` draws from `noun` (a second, distinct draw)."""
    return field.rstrip("0123456789")


class _Spec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ValueSpec(_Spec):
    """One canonical value of an aspect and the ways reviews express it."""

    value: str = Field(description="Canonical value, as stored in Item.attributes.")
    positive: list[str] = Field(description="Templates with one '{p}' praising/expressing it.")
    negative: list[str] = Field(description="Templates with one '{p}' expressing dislike.")
    phrases: list[str] = Field(description="Surface forms filled into '{p}'.")
    weight: float = Field(default=1.0, gt=0, description="Relative frequency among items.")

    @model_validator(mode="after")
    def _check(self) -> ValueSpec:
        if len(self.positive) < 3 or len(self.negative) < 2 or len(self.phrases) < 3:
            raise ValueError(f"value '{self.value}' needs >=3 positive, >=2 negative, >=3 phrases")
        for template in self.positive + self.negative:
            if placeholders(template) != ["p"]:
                raise ValueError(f"template {template!r} of '{self.value}' must use '{{p}}' once")
        for phrase in self.phrases:
            if "{" in phrase or "}" in phrase:
                raise ValueError(f"phrase {phrase!r} of '{self.value}' contains a brace")
        plain = sum(not names_value(phrase, self.value) for phrase in self.phrases)
        if 3 * plain < len(self.phrases):
            raise ValueError(
                f"value '{self.value}': only {plain}/{len(self.phrases)} phrases avoid the canonical word"
            )
        return self


class AspectSpec(_Spec):
    """An attribute items have (cuisine, genre) with its possible values."""

    name: str = Field(description="Attribute key in Item.attributes.")
    display: str = Field(description="Human wording, e.g. 'price range'.")
    multi_valued: bool = Field(default=False, description="Items hold a list of values.")
    values: list[ValueSpec]
    min_values: int = Field(default=1, ge=0, description="Fewest values per item (multi-valued).")
    max_values: int = Field(default=1, ge=1, description="Most values per item (multi-valued).")
    max_likes: int = Field(default=1, ge=1, description="Most values one user likes here.")
    dislikable: bool = Field(default=True, description="Whether users may dislike its values.")
    salience: float = Field(default=1.0, gt=0, description="How often users care/talk about it.")

    @model_validator(mode="after")
    def _check(self) -> AspectSpec:
        names = [spec.value for spec in self.values]
        if len(set(names)) != len(names):
            raise ValueError(f"aspect '{self.name}' has duplicate values")
        if not self.multi_valued and (self.min_values, self.max_values) != (1, 1):
            raise ValueError(f"single-valued aspect '{self.name}' must have min=max=1 values")
        if self.min_values > self.max_values or self.max_values > len(self.values):
            raise ValueError(f"aspect '{self.name}' has an impossible value count range")
        return self

    @cached_property
    def by_value(self) -> dict[str, ValueSpec]:
        return {spec.value: spec for spec in self.values}


class DomainSpec(_Spec):
    """Everything needed to generate one domain's world."""

    name: str = Field(description="Domain key: 'restaurant' or 'movie'.")
    item_noun: str = Field(description="Plural noun used in prompts.")
    category: str = Field(description="Item.category of every item.")
    aspects: list[AspectSpec]
    title_patterns: list[str] = Field(description="Format strings over title parts.")
    title_parts: dict[str, list[str]] = Field(description="Part name -> words.")
    description_templates: list[str] = Field(description="Format strings over aspects and 'title'.")
    chatter: list[str] = Field(description="Off-topic review sentences.")

    @model_validator(mode="after")
    def _check(self) -> DomainSpec:
        aspect_names = {aspect.name for aspect in self.aspects}
        if len(aspect_names) != len(self.aspects):
            raise ValueError(f"domain '{self.name}' has duplicate aspects")
        for template in self.description_templates:
            unknown = set(placeholders(template)) - aspect_names - {"title"}
            if unknown:
                raise ValueError(f"description template {template!r} uses unknown {sorted(unknown)}")
        if not any("title" in placeholders(t) for t in self.description_templates):
            raise ValueError(f"domain '{self.name}' needs a description template with '{{title}}'")
        for pattern in self.title_patterns:
            for field in placeholders(pattern):
                if title_part(field) not in self.title_parts:
                    raise ValueError(f"title pattern {pattern!r} uses unknown part '{field}'")
        if len(self.chatter) < 25:
            raise ValueError(f"domain '{self.name}' needs >=25 chatter sentences")
        seen: dict[str, str] = {}
        for aspect in self.aspects:
            for spec in aspect.values:
                for phrase in spec.phrases:
                    key = phrase.lower()
                    if key in seen:
                        raise ValueError(f"phrase {phrase!r} used by both {seen[key]} and {spec.value}")
                    seen[key] = spec.value
        return self

    @cached_property
    def by_aspect(self) -> dict[str, AspectSpec]:
        return {aspect.name: aspect for aspect in self.aspects}


class ValueDraft(NamedTuple):
    """A value before its aspect's shared templates are merged in (see `aspect`)."""

    value: str
    phrases: list[str]
    positive: list[str]
    negative: list[str]
    weight: float


def value(
    name: str,
    phrases: list[str],
    positive: Sequence[str] = (),
    negative: Sequence[str] = (),
    weight: float = 1.0,
) -> ValueDraft:
    """Declare a value with its own phrases and any value-specific templates."""
    return ValueDraft(name, list(phrases), list(positive), list(negative), weight)


def aspect(
    name: str,
    display: str,
    values: list[ValueDraft],
    *,
    positive: Sequence[str],
    negative: Sequence[str],
    **options: object,
) -> AspectSpec:
    """Build an aspect, appending its generic templates to every value's own.

    Generic templates ("Loved the {p}.") work for any value of the aspect, so phrase banks
    only need one or two value-specific sentences each and still get variety.
    """
    specs = [
        ValueSpec(
            value=draft.value,
            phrases=draft.phrases,
            positive=draft.positive + list(positive),
            negative=draft.negative + list(negative),
            weight=draft.weight,
        )
        for draft in values
    ]
    return AspectSpec(name=name, display=display, values=specs, **options)  # type: ignore[arg-type]
