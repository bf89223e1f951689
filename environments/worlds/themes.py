"""Playlist themes of the music world: what a listener asks for, and the goal set behind it.

A theme is an occasion ("workout", "rainy Sunday") plus the values it implies (mood,
tempo) and one or two the listener adds (an era, a genre): "upbeat 80s workout". Its
goal set is 10-30 tracks whose *true* attributes fit every constraint, drawn in
proportion to popularity (people put hits on playlists more often than deep cuts). A
theme only exists if enough tracks fit; otherwise another one is drawn. The opening
request is worded with the seeker's phrase bank and the occasion's own sentence, never
with the catalog's phrases, so the curator has to understand rather than copy.

Themes and goal sets are truth (`truth/themes.jsonl`): the evaluator scores against them;
agents never see the ids.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from environments.worlds.music_vocab import SEEKER_MUSIC_WORDS
from environments.worlds.truth import ThemeTruth

MIN_GOAL, MAX_GOAL = 10, 30
_SHORT = {"1960s": "60s", "1970s": "70s", "1980s": "80s", "1990s": "90s", "2000s": "2000s", "2010s": "2010s"}


@dataclass(frozen=True)
class Occasion:
    """Why someone wants a playlist, what it implies, and how they say it."""

    name: str
    implies: dict[str, tuple[str, ...]]  # aspect -> values the occasion allows (one is drawn)
    requests: tuple[str, ...]  # sentences with {want}: the listener's wording of the extra constraints


OCCASIONS: tuple[Occasion, ...] = (
    Occasion("workout", {"mood": ("upbeat", "intense"), "tempo": ("fast",)},
             ("I need a playlist to get me through my gym sessions: {want}.",
              "Can you put together some songs for running? Ideally {want}.")),
    Occasion("rainy sunday", {"mood": ("melancholy", "chill", "dreamy"), "tempo": ("slow", "mid-tempo")},
             ("It's grey and wet outside and I want something to stay in with: {want}.",
              "Make me a playlist for a lazy rainy afternoon: {want}.")),
    Occasion("dinner party", {"mood": ("chill", "romantic"), "tempo": ("mid-tempo", "slow")},
             ("I'm having friends over for dinner and need background music: {want}.",
              "Could you help me with music for a dinner with friends? I'd like {want}.")),
    Occasion("road trip", {"mood": ("upbeat",), "tempo": ("mid-tempo", "fast")},
             ("We're driving to the coast this weekend, I need songs for the car: {want}.",
              "Build me a road trip playlist please: {want}.")),
    Occasion("study session", {"mood": ("chill", "dreamy"), "tempo": ("slow", "mid-tempo")},
             ("I need something to focus to while I study: {want}.",
              "Can you find me music that helps me concentrate? {want_cap}.")),
    Occasion("party", {"mood": ("upbeat",), "tempo": ("fast",)},
             ("I'm throwing a party on Saturday and want people dancing: {want}.",
              "Give me songs that get a crowd moving: {want}.")),
    Occasion("date night", {"mood": ("romantic",), "tempo": ("slow", "mid-tempo")},
             ("I'm cooking for someone special tonight, I need the right songs: {want}.",
              "Help me set the mood for a date: {want}.")),
    Occasion("late-night drive", {"mood": ("dreamy", "melancholy", "intense"), "tempo": ("mid-tempo",)},
             ("I drive home late at night a lot and want a soundtrack for it: {want}.",
              "Something for driving through the city at 2am: {want}.")),
)
EXTRA_ASPECTS = ("era", "genre")


@dataclass(frozen=True)
class TrackFacts:
    """What theme drawing needs of a track: its id, true attributes and popularity."""

    item_id: str
    attributes: dict[str, str]
    popularity: float


def draw_themes(tracks: Sequence[TrackFacts], n_themes: int, rnd: random.Random,
                rng: np.random.Generator, max_tries: int = 200) -> list[ThemeTruth]:
    """`n_themes` distinct themes with goal sets of 10-30 fitting tracks (fewer themes if the
    world is too small to fit that many after `max_tries` draws per theme)."""
    themes: list[ThemeTruth] = []
    seen: set[tuple[tuple[str, str], ...]] = set()
    having: dict[tuple[str, str], set[int]] = {}
    for position, track in enumerate(tracks):
        for feature in track.attributes.items():
            having.setdefault(feature, set()).add(position)
    values = {aspect: sorted({v for a, v in having if a == aspect}) for aspect in EXTRA_ASPECTS}
    for number in range(n_themes):
        for _ in range(max_tries):
            occasion = rnd.choice(OCCASIONS)
            constraints = {aspect: rnd.choice(values) for aspect, values in occasion.implies.items()}
            for aspect in rnd.sample(EXTRA_ASPECTS, rnd.randint(1, 2)):
                constraints[aspect] = rnd.choice(values[aspect])
            key = (("occasion", occasion.name), *sorted(constraints.items()))
            fit = set.intersection(*(having.get(feature, set()) for feature in constraints.items()))
            fitting = [tracks[i] for i in sorted(fit)]
            if key in seen or len(fitting) < MIN_GOAL:
                continue
            seen.add(key)
            size = min(len(fitting), rnd.randint(MIN_GOAL, MAX_GOAL))
            weights = np.array([t.popularity for t in fitting])
            picked = rng.choice(len(fitting), size=size, replace=False, p=weights / weights.sum())
            goal = [fitting[int(i)].item_id for i in sorted(picked)]
            themes.append(ThemeTruth(theme_id=f"th{number + 1:04d}", name=theme_name(occasion.name, constraints),
                                     occasion=occasion.name, constraints=constraints,
                                     request=request(occasion, constraints, rnd), goal=goal,
                                     n_fitting=len(fitting)))
            break
    return themes


def theme_name(occasion: str, constraints: dict[str, str]) -> str:
    """"upbeat 80s rock workout": mood, era, genre, then the occasion."""
    parts = [constraints.get("mood"), _SHORT.get(constraints.get("era", ""), None), constraints.get("genre"),
             occasion]
    return " ".join(p for p in parts if p)


def request(occasion: Occasion, constraints: dict[str, str], rnd: random.Random) -> str:
    """The opening request: the occasion's sentence with the constraints in the seeker's words."""
    wants = [rnd.choice(SEEKER_MUSIC_WORDS[aspect][value]) for aspect, value in constraints.items()
             if aspect in EXTRA_ASPECTS or rnd.random() < 0.5]
    want = _join(wants) if wants else "whatever fits"
    template = rnd.choice(occasion.requests)
    return template.format(want=want, want_cap=want[:1].upper() + want[1:])


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
