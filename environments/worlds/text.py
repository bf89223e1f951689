"""Turning attributes into words: item titles, descriptions and labelled review sentences.

Kept apart from `generator.py` so that the numbers (who reviews what, which rating) and
the wording can change independently. All randomness comes from the `random.Random`
passed in, so the same seed gives the same text.
"""

from __future__ import annotations

import random
import re

from environments.models import AttributeValue
from environments.worlds.domain import DomainSpec, placeholders, title_part
from environments.worlds.truth import SentenceLabel

_ROMAN = ["II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"]
_SINGULAR_S = ("ss", "us", "is", "os")
_PLURAL_VERBS = {"was": "were", "wasn't": "weren't", "has": "have", "hasn't": "haven't", "is": "are",
                 "holds": "hold"}
_AFTER_P = re.compile(r"\{p\} (was|wasn't|has|hasn't|is)\b|\{p\} really (holds)\b")


def make_titles(spec: DomainSpec, n: int, rnd: random.Random) -> list[str]:
    """`n` unique titles; a repeat gets a sequel-style numeral ("The Copper Spoon II")."""
    titles: list[str] = []
    used: set[str] = set()
    for _ in range(n):
        base = _draw_title(spec, rnd)
        title, k = base, 1
        while title in used:
            k += 1
            title = f"{base} {_ROMAN[k - 2]}" if k - 2 < len(_ROMAN) else f"{base} {k}"
        used.add(title)
        titles.append(title)
    return titles


def _draw_title(spec: DomainSpec, rnd: random.Random) -> str:
    pattern = rnd.choice(spec.title_patterns)
    fields = placeholders(pattern)
    drawn: dict[str, str] = {}
    for field in fields:
        options = [w for w in spec.title_parts[title_part(field)] if w not in drawn.values()]
        drawn[field] = rnd.choice(options)
    return pattern.format(**drawn)


def describe(spec: DomainSpec, title: str, attributes: dict[str, AttributeValue], rnd: random.Random) -> str:
    """A 1-3 sentence description naming a few attributes by surface phrase, not by value."""
    present = {name for name, val in attributes.items() if val}
    usable = [t for t in spec.description_templates if set(placeholders(t)) - {"title"} <= present]
    openers = [t for t in usable if "title" in placeholders(t)]
    others = [t for t in usable if "title" not in placeholders(t)]
    chosen = [rnd.choice(openers)] + rnd.sample(others, rnd.randint(0, min(2, len(others))))
    sentences = []
    for template in chosen:
        fills = {"title": title}
        for field in placeholders(template):
            if field != "title":
                fills[field] = phrase_for(spec, field, _pick(attributes[field], rnd), rnd)
        sentences.append(_capitalize(template.format(**fills)))
    return " ".join(sentences)


def phrase_for(spec: DomainSpec, aspect: str, value: str, rnd: random.Random) -> str:
    return rnd.choice(spec.by_aspect[aspect].by_value[value].phrases)


def aspect_sentence(
    spec: DomainSpec, aspect: str, value: str, polarity: int, rnd: random.Random, used: set[str] | None = None
) -> SentenceLabel:
    """One sentence expressing `polarity` (+1 or -1) about `value`, with its label.

    Templates in `used` (already in this review) are avoided when possible, and the chosen
    one is added, so two genres do not both "absolutely deliver" in one review.
    """
    value_spec = spec.by_aspect[aspect].by_value[value]
    templates = value_spec.positive if polarity > 0 else value_spec.negative
    if used is not None:
        templates = [t for t in templates if t not in used] or templates
    template = rnd.choice(templates)
    if used is not None:
        used.add(template)
    phrase = rnd.choice(value_spec.phrases)
    text = _capitalize(_agree(template, phrase).format(p=phrase))
    return SentenceLabel(text=text, aspect=aspect, value=value, polarity=1 if polarity > 0 else -1)


def chatter_sentences(spec: DomainSpec, n: int, rnd: random.Random) -> list[SentenceLabel]:
    """`n` distinct off-topic sentences (a loop, not `rnd.sample`: that is slow for tiny n)."""
    picked: list[str] = []
    while len(picked) < n:
        text = rnd.choice(spec.chatter)
        if text not in picked:
            picked.append(text)
    return [SentenceLabel(text=text, kind="chatter") for text in picked]


def _agree(template: str, phrase: str) -> str:
    """Make "The {p} was" read "The street tacos were" when the phrase looks plural."""
    head = phrase.split()[-1].lower()
    if not head.endswith("s") or head.endswith(_SINGULAR_S) or head.endswith("'s"):
        return template

    def plural(match: re.Match[str]) -> str:
        verb = match.group(1) or match.group(2)
        return match.group(0)[: -len(verb)] + _PLURAL_VERBS[verb]

    return _AFTER_P.sub(plural, template)


def _pick(val: AttributeValue, rnd: random.Random) -> str:
    return val if isinstance(val, str) else rnd.choice(val)


def _capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]
