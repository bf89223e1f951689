"""Offline set-seeking seekers for playlist curation: target-biased and target-free.

The target-biased seeker knows its goal set's *theme* — the `ThemeBrief` the playlist
environment gives it under `disclose: theme` (the share of goal tracks with each genre,
mood, tempo, era and artist), never the goal's ids. The target-free one (`disclose:
request`, `seeker=set_seeker_free`) knows only what it asked for and a listener's general
taste (liked and disliked values); on an imported catalog, where a request's constraints
are not recorded, it reads them from its own request with the catalog's values. Both
judge each track they see the way a listener would: by what the card shows (the listed
attributes, and the values its description words, read through a `ValueLexicon`: on the
music world the domain's phrases stand in for a listener's ear). A track fits when some
of its visible values are ones the theme wants and none contradicts it; it misfits when
contradictions outweigh fits; otherwise the seeker cannot tell and says nothing about it.

Each turn it likes fitting shown tracks, dislikes misfits, asks to take misfits off the
playlist, and adds one thing the theme wants that it has not said yet, in its own words
(`SEEKER_MUSIC_WORDS` on the world, never the catalog's phrases), so the curator's query
grows (the target-free seeker then names what its taste likes). It declares the playlist
complete (`accept`) once the playlist holds as many tracks as it wants and it removed
nothing this turn. What it said is kept in its turns' metadata (`stated`), so it needs no
memory of its own and replays exactly.

With a model (`llm@seeker.llm=...`) the listener's reply is the model's
(`playlist_seeker`: it reads its brief in words, the numbered tracks shown and the
playlist, and answers with numbers); the rule-based reply is its offline fallback.
Numbers outside the lists are dropped and noted in the turn's `ignored`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from agents.base import GraphAgent, agent_from_function
from agents.steps.base import capturing, note_step_inputs
from agents.steps.playlist.steps import PlaylistSeekerStep, SeekerInput, SeekerMove, brief_text
from agents.steps.seeker.talk import ORDINALS
from agents.steps.seeker.value_lexicon import Feature, ValueLexicon
from environments.base import ItemCard, SeekerReply
from environments.catalog import Catalog
from environments.models import Role

THEME_ASPECTS = ("mood", "genre", "era", "tempo")  # the order a listener brings them up in


@dataclass(frozen=True)
class Verdict:
    """How a card fits the theme: values that fit, values that contradict it."""

    fits: int
    conflicts: int

    @property
    def kind(self) -> str | None:
        if self.fits and not self.conflicts:
            return "like"
        if self.conflicts > self.fits:
            return "dislike"
        return None


class SetSeeker:
    """The judging and talking policy (see the module docstring)."""

    def __init__(self, lexicon: ValueLexicon, words: dict[str, dict[str, list[str]]], min_share: float = 0.5):
        self.lexicon, self.words, self.min_share = lexicon, words, min_share

    @staticmethod
    def step_input(observation: Any, rule: SeekerReply) -> SeekerInput:
        """What the model is given: the brief, the screen, and the rule-based move as its fallback."""
        shown, playlist = list(observation.shown), list(observation.item_set)
        number = {card.id: n for n, card in enumerate(shown, 1)}
        in_set = {card.id: n for n, card in enumerate(playlist, 1)}
        fallback = SeekerMove(text=rule.text, like=[number[i] for i, k in rule.feedback.items() if k == "like"],
                              dislike=[number[i] for i, k in rule.feedback.items() if k == "dislike"],
                              remove=[in_set[i] for i in rule.remove], done=rule.accept)
        return SeekerInput(brief_text(observation.profile), observation.dialogue, playlist, shown,
                           observation.profile.size, fallback)

    async def respond_with(self, step: PlaylistSeekerStep, observation: Any) -> SeekerReply:
        """The model's reply, with the rule-based one as its fallback."""
        rule = self.respond(observation)
        inputs = self.step_input(observation, rule)
        move = await step.run(inputs)
        if move is inputs.fallback:
            return rule
        shown, playlist = inputs.shown, inputs.playlist
        ignored: list[int] = []
        feedback = {}
        for kind, numbers in (("like", move.like), ("dislike", move.dislike)):
            for n in numbers:
                if 1 <= n <= len(shown):
                    feedback[shown[n - 1].id] = kind
                else:
                    ignored.append(n)
        remove = [playlist[n - 1].id for n in move.remove if 1 <= n <= len(playlist)]
        ignored += [n for n in move.remove if not 1 <= n <= len(playlist)]
        metadata: dict[str, Any] = {"stated": [], **({"ignored": ignored} if ignored else {})}
        return SeekerReply(text=move.text, feedback=feedback, remove=remove, accept=move.done and not remove,
                           metadata=metadata)

    def judge(self, card: ItemCard, brief: Any) -> Verdict:
        """Theme values: a shown value of a wanted aspect fits or contradicts. Taste (target-
        free): a disliked value contradicts; a liked one fits where the theme says nothing."""
        seen = self.lexicon.card_features(card)
        fits = conflicts = 0
        for aspect in THEME_ASPECTS:
            wanted = set(self._wanted(brief, aspect))
            shown = {value for name, value in seen if name == aspect}
            weights = brief.taste.get(aspect, {})
            if wanted and shown:
                fits += bool(shown & wanted)
                conflicts += not shown & wanted
            elif any(weights.get(value, 0.0) > 0 for value in shown):
                fits += 1
            conflicts += any(weights.get(value, 0.0) < 0 for value in shown - wanted)
        artists = set(brief.values.get("artist", {}))
        fits += bool(artists & {value for name, value in seen if name == "artist"})
        return Verdict(fits, conflicts)

    def _wanted(self, brief: Any, aspect: str) -> list[str]:
        wanted = brief.wanted(aspect, self.min_share)
        if not wanted and not brief.values:  # nothing disclosed but the request: read it
            wanted = sorted(value for name, value in self.lexicon.features(brief.request) if name == aspect)
        return wanted

    def respond(self, observation: Any) -> SeekerReply:
        brief = observation.profile
        rnd = random.Random(f"{observation.episode_seed}-{observation.turn}")
        feedback = {}
        for card in observation.shown:
            kind = self.judge(card, brief).kind
            if kind:
                feedback[card.id] = kind
        remove = [card.id for card in observation.item_set if self.judge(card, brief).kind == "dislike"]
        stated = [tuple(f) for t in observation.dialogue if t.role == Role.seeker
                  for f in t.metadata.get("stated", [])]
        wish = self._next_wish(brief, set(stated))
        size = len(observation.item_set) - len(remove)
        done = size >= brief.size and not remove
        text = self._say(observation.shown, feedback, remove, observation.item_set, wish, done, rnd)
        return SeekerReply(text=text, feedback=feedback, remove=remove, accept=done,
                           metadata={"stated": [list(f) for f in ([wish] if wish else [])]})

    def _next_wish(self, brief: Any, stated: set[Feature]) -> Feature | None:
        for aspect in (*THEME_ASPECTS, "artist"):
            wanted = self._wanted(brief, aspect) if aspect != "artist" else brief.wanted(aspect, 0.0)
            for value in wanted:
                if (aspect, value) not in stated:
                    return aspect, value
        liked = sorted(((weight, aspect, value) for aspect, values in brief.taste.items()
                        for value, weight in values.items() if weight > 0 and aspect in THEME_ASPECTS
                        and not self._wanted(brief, aspect)), reverse=True)
        return next(((aspect, value) for _, aspect, value in liked if (aspect, value) not in stated), None)

    def _words(self, feature: Feature, rnd: random.Random) -> str:
        aspect, value = feature
        options = self.words.get(aspect, {}).get(value)
        if options:
            return rnd.choice(options)
        return f"more by {value}" if aspect == "artist" else f"more {value}"

    def _say(self, shown: Sequence[ItemCard], feedback: dict[str, str], remove: Sequence[str],
             playlist: Sequence[ItemCard], wish: Feature | None, done: bool, rnd: random.Random) -> str:
        position = {card.id: ORDINALS[i] if i < len(ORDINALS) else f"number {i + 1}" for i, card in enumerate(shown)}
        liked = [position[i] for i, kind in feedback.items() if kind == "like"]
        disliked = [position[i] for i, kind in feedback.items() if kind == "dislike"]
        sentences = []
        if liked:
            sentences.append(f"I like the {_join(liked)} one{'s' if len(liked) > 1 else ''}.")
        if disliked:
            sentences.append(f"The {_join(disliked)} {'ones don' if len(disliked) > 1 else 'one doesn'}'t fit.")
        if remove:
            cards = {card.id: card for card in playlist}
            named = [_name(cards[i], [*playlist, *shown]) for i in remove]
            sentences.append(f"Please take {_join(named)} off the playlist.")
        if done:
            sentences.append(rnd.choice(("That's a great playlist, thanks!", "Perfect, I'll keep this one.")))
        elif wish:
            sentences.append(rnd.choice(("Could you find me {w}?", "I'd like {w}.", "Remember, {w}.")).format(
                w=self._words(wish, rnd)))
        elif not liked:
            sentences.append("Can you show me something else?")
        return " ".join(sentences)


def _name(card: ItemCard, around: Sequence[ItemCard]) -> str:
    """'Title', or 'Title' by Artist when another track in view shares the title (covers and
    common titles: the curator must know which one to remove)."""
    if any(other.id != card.id and other.title.lower() == card.title.lower() for other in around):
        artist = card.attributes.get("artist")
        artist = ", ".join(artist) if isinstance(artist, list) else artist
        if artist:
            return f"'{card.title}' by {artist}"
    return f"'{card.title}'"


def _join(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def lexicon_for(catalog: Catalog) -> tuple[ValueLexicon, dict[str, dict[str, list[str]]]]:
    """The catalog's values (plus the music world's phrases on a music world) and the
    seeker's own words for them (empty on an imported catalog: it then says the value)."""
    phrases = dict(ValueLexicon.for_catalog(catalog).phrases)
    words: dict[str, dict[str, list[str]]] = {}
    if catalog.manifest.domain == "music" and catalog.manifest.source == "crsim.worlds":
        from environments.worlds.music_vocab import MUSIC_ASPECTS, SEEKER_MUSIC_WORDS

        for aspect in MUSIC_ASPECTS:
            for spec in aspect.values:
                phrases[spec.value.lower()] = (aspect.name, spec.value)
                for phrase in spec.phrases:
                    phrases.setdefault(phrase.lower(), (aspect.name, spec.value))
        words = SEEKER_MUSIC_WORDS
    return ValueLexicon(phrases), words


def build(catalog: Catalog, llm: Any | None = None, *, min_share: float = 0.5) -> GraphAgent[None]:
    """Hydra factory for `seeker=set_seeker` and `seeker=set_seeker_free` (which one is the
    environment's `disclose`)."""
    seeker = SetSeeker(*lexicon_for(catalog), min_share)
    step = PlaylistSeekerStep(llm, Role.seeker.value)
    if llm is None:
        def respond(observation: Any) -> SeekerReply:
            rule = seeker.respond(observation)
            if capturing():  # the step report measures the model on what this seeker saw
                note_step_inputs(step, seeker.step_input(observation, rule))
            return rule

        return agent_from_function(Role.seeker.value, respond)
    return agent_from_function(Role.seeker.value, partial(seeker.respond_with, step))
