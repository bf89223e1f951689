"""Review sentences that make retrieval hard the way real reviews do.

Plain sentences ("The handmade pasta was the best I've had") are the easy case. Real
reviews also compare ("unlike the raucous crowd next door, it's calm here"), name what a
place is *not* ("don't come expecting harbor views"), hedge ("the prices were fine, I
suppose"), praise in words that fit any value ("the food was great") and mention the one
dish people come for. A lexical or semantic matcher that counts mentions is fooled by
the first two; only reading polarity and negation gets them right. Every sentence is
labelled (`SentenceLabel.kind`, `present`, `contrasted`) so tests and the fidelity report
can check what a sentence really says about its item.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from environments.worlds.domain import AspectSpec, DomainSpec
from environments.worlds.signatures import REVIEW_FORMS
from environments.worlds.truth import SentenceLabel

# Another value of the same aspect ({q}) set against the item's own ({p}).
COMPARISON_FORMS = (
    "Unlike the {q} at the place next door, here it's all about the {p}.",
    "If you're after {q}, look elsewhere; this is more about the {p}.",
    "People compare it to somewhere with {q}, but really it's the {p} that defines it.",
    "I expected {q}, and got the {p} instead.",
)
# A value the item lacks, said as absent.
LACKING_FORMS = (
    "Don't come expecting {q}.",
    "There's no {q} here, in case you were wondering.",
    "I was hoping for {q}, but no luck.",
    "Anyone looking for {q} will be disappointed.",
)
SHOWN_SHARE = 0.5  # partial visibility: chance the catalog shows an aspect at all
WRONG_SHARE = 0.1  # ... and that a shown single value is wrong
HEDGE_FORMS = (
    "The {p} was fine, I suppose.",
    "The {p} was okay, nothing more.",
    "Can't decide how I feel about the {p}.",
)
# Words that fit every value of an aspect: praise that says nothing about which one.
GENERIC_NOUNS: dict[str, dict[str, str]] = {
    "restaurant": {"cuisine": "food", "price_range": "prices", "ambience": "decor", "noise": "atmosphere",
                   "service": "service", "location_style": "location", "dietary_options": "menu options",
                   "meal": "menu"},
    "movie": {"genre": "story", "era": "look", "tone": "mood", "pacing": "pacing", "themes": "script",
              "setting": "setting", "audience": "target audience"},
}
GENERIC_FORMS = {
    1: ("The {n} was great.", "Really liked the {n}.", "No complaints about the {n}."),
    -1: ("The {n} was a letdown.", "Didn't love the {n}.", "The {n} could be better."),
}


def lacking_sentence(spec: DomainSpec, aspect: str, lacked: str, rnd: random.Random) -> SentenceLabel:
    """A sentence naming a value the item does not have, as absent."""
    phrase = rnd.choice(spec.by_aspect[aspect].by_value[lacked].phrases)
    text = _capitalize(rnd.choice(LACKING_FORMS).format(q=phrase))
    return SentenceLabel(text=text, aspect=aspect, value=lacked, polarity=-1, kind="lacking", present=False)


def comparison_sentence(spec: DomainSpec, aspect: str, own: str, other: str, rnd: random.Random) -> SentenceLabel:
    """The item's value set against another value of the same aspect (which it lacks)."""
    values = spec.by_aspect[aspect].by_value
    text = _capitalize(rnd.choice(COMPARISON_FORMS).format(p=rnd.choice(values[own].phrases),
                                                            q=rnd.choice(values[other].phrases)))
    return SentenceLabel(text=text, aspect=aspect, value=own, polarity=1, kind="comparison", contrasted=other)


def hedge_sentence(spec: DomainSpec, aspect: str, own: str, rnd: random.Random) -> SentenceLabel:
    phrase = rnd.choice(spec.by_aspect[aspect].by_value[own].phrases)
    return SentenceLabel(text=_capitalize(rnd.choice(HEDGE_FORMS).format(p=phrase)), aspect=aspect, value=own,
                         polarity=0, kind="hedge")


def generic_sentence(spec: DomainSpec, aspect: str, own: str, polarity: int, rnd: random.Random) -> SentenceLabel:
    """Praise or blame in words every value of the aspect shares ("The food was great.")."""
    noun = GENERIC_NOUNS[spec.name][aspect]
    text = rnd.choice(GENERIC_FORMS[1 if polarity > 0 else -1]).format(n=noun)
    return SentenceLabel(text=text, aspect=aspect, value=own, polarity=1 if polarity > 0 else -1, kind="generic")


def signature_sentence(spec: DomainSpec, signature: str, rnd: random.Random) -> SentenceLabel:
    return SentenceLabel(text=rnd.choice(REVIEW_FORMS[spec.name]).format(s=signature), kind="signature",
                         signature=signature, polarity=1)


def _capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


def shown_attributes(
    aspects: Sequence[AspectSpec], attributes: dict[str, str | list[str]], visibility: str, rnd: random.Random
) -> dict[str, str | list[str]]:
    """What a catalog shows of an item's true `attributes`: everything (`full`), nothing
    (`none`), or (`partial`) each aspect with probability `SHOWN_SHARE`, a shown single value
    wrong `WRONG_SHARE` of the time and a list cut short - real catalogs are incomplete and
    sometimes wrong, so the text around an item must carry the evidence.

    Draws the same random numbers whatever the visibility, so switching it changes only
    what is shown, never anything else about the world. Shared by every world domain.
    """
    shown: dict[str, str | list[str]] = {}
    for aspect in aspects:
        val = attributes[aspect.name]
        show, wrong, keep = rnd.random() < SHOWN_SHARE, rnd.random() < WRONG_SHARE, rnd.random()
        others = [v.value for v in aspect.values if v.value != val]
        replacement = rnd.choice(others)
        if visibility == "full":
            shown[aspect.name] = val
        elif visibility == "partial" and show and val:
            if isinstance(val, list):
                shown[aspect.name] = val[: max(1, round(keep * len(val)))]
            else:
                shown[aspect.name] = replacement if wrong else val
    return shown
