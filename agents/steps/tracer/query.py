"""Conversational query generation (CQG, TRACER §5.1): [category, wanted, unwanted, optional].

The offline extractor is rule-based and reads only the dialogue plus the catalog's
vocabulary (categories, aspects and the values each aspect takes) — never the
preference. For each customer utterance it takes the aspects the seller's previous
utterance named, splits the utterance into clauses, finds catalog values in each clause
(longest first, within the aspects in play, then any aspect of the category), and reads
the stance from general English cues: a negation before the value makes it unwanted, an
indifference phrase with no value makes the aspects in play optional. Later statements
about an aspect override earlier ones. The cue lists are generic, not the phrase bank's
templates; how well that holds on wording it was not written against is what the second
phrase bank measures.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from agents.steps.base import LanguageStep
from agents.steps.text import display_name, render_dialogue
from environments.models import Turn

NEGATION = re.compile(r"\b(not|no|never|avoid|without|except|nothing|don't|do not|dont|won't|hate|dislike|"
                      r"anything but|rather not|other than)\b", re.IGNORECASE)
INDIFFERENCE = re.compile(r"\b(don't mind|do not mind|doesn't matter|does not matter|no preference|don't care|"
                          r"do not care|not important|flexible|either way|whatever|any is fine|open to|not picky|"
                          r"optional|no strong feelings|up to you)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[^.!?;]+[.!?;]?")


class AspectValue(BaseModel):
    aspect: str = Field(description="Aspect name, lower case.")
    value: str = Field(description="The value as the customer said it.")


class ShoppingQuery(BaseModel):
    category: str = Field(default="", description="Product category the customer wants.")
    wanted: list[AspectValue] = Field(default_factory=list)
    unwanted: list[AspectValue] = Field(default_factory=list)
    optional: list[str] = Field(default_factory=list, description="Aspects the customer does not care about.")


@dataclass(frozen=True, slots=True)
class QueryInput:
    dialogue: Sequence[Turn]
    categories: Sequence[str]
    values: Mapping[str, Mapping[str, Sequence[str]]] = field(default_factory=dict)  # category -> aspect -> values


def _find(text: str, phrase: str) -> int:
    match = re.search(rf"(?<![\w-]){re.escape(phrase.lower())}(?![\w-])", text.lower())
    return match.start() if match else -1


def _aspects_named(text: str, aspects: Sequence[str]) -> list[str]:
    found = [(pos, a) for a in aspects if (pos := _find(text, display_name(a))) >= 0]
    return [a for _, a in sorted(found)]


def _values_in(clause: str, aspects: Sequence[str], values: Mapping[str, Sequence[str]],
               named: Sequence[str]) -> list[tuple[int, str, str]]:
    """(position, aspect, value) of catalog values in the clause, longest match first, no overlaps."""
    candidates = sorted(((v, a) for a in aspects for v in values.get(a, ())), key=lambda va: -len(va[0]))
    taken: list[tuple[int, int]] = []
    out = []
    for value, aspect in candidates:
        if value in ("yes", "no", "none") and aspect not in named:
            continue  # a bare flag word only counts for the aspect the clause names
        pos = _find(clause, value)
        if pos < 0 or any(s <= pos < e or pos <= s < pos + len(value) for s, e in taken):
            continue
        if any(a == aspect for _, a, _ in out):
            continue
        taken.append((pos, pos + len(value)))
        out.append((pos, aspect, value))
    return sorted(out)


def extract_offline(inputs: QueryInput) -> ShoppingQuery:
    customer = [t for t in inputs.dialogue if t.role == "customer"]
    category = next((c for t in customer[:2] for c in sorted(inputs.categories, key=len, reverse=True)
                     if _find(t.text, c) >= 0), "")
    values = inputs.values.get(category) or {}
    aspects = sorted(values, key=lambda a: -len(display_name(a)))
    stance: dict[str, tuple[str, str]] = {}  # aspect -> (interest, value)
    previous = ""
    for turn in inputs.dialogue:
        if turn.role != "customer":
            previous = turn.text
            continue
        in_play = _aspects_named(previous, aspects)
        for clause in _CLAUSE.findall(turn.text):
            if "?" in clause:
                continue
            named = _aspects_named(clause, aspects)
            scope = named or in_play
            indifferent = INDIFFERENCE.search(clause) is not None
            # "no preference" must not read as the value "no": indifference phrases are blanked first
            plain = INDIFFERENCE.sub(lambda m: " " * len(m.group(0)), clause)
            found = _values_in(plain, list(dict.fromkeys([*scope, *aspects])), values, [*named, *in_play])
            for pos, aspect, value in found:
                negated = NEGATION.search(plain[:pos]) is not None
                stance[aspect] = ("unwanted" if negated else "wanted", value)
            if not found and indifferent:
                for aspect in scope:
                    stance[aspect] = ("optional", "")
    query = ShoppingQuery(category=category)
    for aspect, (interest, value) in stance.items():
        if interest == "optional":
            query.optional.append(aspect)
        else:
            getattr(query, interest).append(AspectValue(aspect=aspect, value=value))
    return query


class ExtractQueryStep(LanguageStep[QueryInput, ShoppingQuery]):
    name = "shopping_extract_query"
    prompt_name = "shopping_extract_query"
    output_model = ShoppingQuery

    def __init__(self, llm: Any | None = None, role: str = "evaluator"):
        super().__init__(llm, role)

    def offline(self, inputs: QueryInput) -> ShoppingQuery:
        return extract_offline(inputs)

    def prompt_variables(self, inputs: QueryInput) -> dict[str, Any]:
        aspects = sorted({a for per in inputs.values.values() for a in per})
        return {"dialogue": render_dialogue(inputs.dialogue, limit=200), "aspects": ", ".join(aspects) or "(any)"}

    def accept(self, output: ShoppingQuery, inputs: QueryInput) -> ShoppingQuery:
        def norm(av: AspectValue) -> AspectValue:
            return AspectValue(aspect=av.aspect.strip().lower().replace(" ", "_"), value=av.value.strip().lower())
        return ShoppingQuery(category=output.category.strip().lower(), wanted=[norm(v) for v in output.wanted],
                             unwanted=[norm(v) for v in output.unwanted],
                             optional=[a.strip().lower().replace(" ", "_") for a in output.optional])
