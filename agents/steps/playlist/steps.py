"""Language steps of playlist curation: the curator's search query and picks, the seeker's reply.

Each has an offline twin that is exactly what the offline agents do (the CPCD query, the
top new tracks, the rule-based set seeker's reply), so a failed LLM answer falls back to
the behaviour the offline sweep measures, never to an empty move.

The LLM sees tracks as numbered lines and answers with numbers (seeker) or names
(curator, as CPCD's systems name tracks); turning those back into catalog ids, and
refusing a name that matches no shown track, is the agents' job (`link_tracks`), so the
refusal is logged rather than hidden in a parser.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field, create_model

from agents.steps.base import LanguageStep
from agents.steps.text import repeats_a_sentence, whole_sentences
from environments.base import ItemCard
from environments.models import Turn


class SearchQuery(BaseModel):
    query: str = Field(description="What to search the music catalog for.")


# What a model writes, capped so a grammar-constrained model cannot loop into its token cap
# (a 1.5B model listed artists in its query, and its listener's message ran on: 2 of 20 each).
class CappedQuery(SearchQuery):
    query: str = Field(max_length=200, description="What to search the music catalog for.")


class Picks(BaseModel):
    add: list[str] = Field(default_factory=list, description="Tracks to add, as named in the list shown.")
    response: str = Field(description="What the curator says to the listener.")


@functools.lru_cache(maxsize=64)
def picks_up_to(count: int) -> type[Picks]:
    """`Picks` as the model answers it: at most `count` tracks and a 300-character reply, which
    a grammar-constrained model cannot run past (a 1.5B model listed tracks in its reply until
    its token cap cut the answer off)."""
    return create_model("Picks", __base__=Picks, add=(list[str], Field(
        default_factory=list, max_length=count, description="Tracks to add, as named in the list shown.")),
        response=(str, Field(max_length=300, description="What the curator says to the listener.")))


class SeekerMove(BaseModel):
    text: str = Field(description="What the listener says.")
    like: list[int] = Field(default_factory=list, description="Numbers of shown tracks it likes.")
    dislike: list[int] = Field(default_factory=list, description="Numbers of shown tracks it dislikes.")
    remove: list[int] = Field(default_factory=list, description="Numbers of playlist tracks to take off.")
    done: bool = Field(default=False, description="Whether the playlist is complete.")


class CappedSeekerMove(SeekerMove):
    text: str = Field(max_length=240, description="What the listener says.")


def dialogue_text(turns: Sequence[Turn]) -> str:
    return "\n".join(f"{'listener' if t.role == 'seeker' else 'curator'}: {t.text}" for t in turns)


def numbered(cards: Sequence[ItemCard]) -> str:
    """'1. Title by Artist (genre: rock; mood: upbeat) description' per card; 'none' if empty."""
    if not cards:
        return "none"
    lines = []
    for position, card in enumerate(cards, 1):
        artist = card.attributes.get("artist")
        artist = ", ".join(artist) if isinstance(artist, list) else artist
        values = "; ".join(f"{key}: {', '.join(v) if isinstance(v, list) else v}"
                           for key, v in card.attributes.items() if key not in ("artist", "album") and v)
        line = f"{position}. {card.title}" + (f" by {artist}" if artist else "")
        lines.append(line + (f" ({values})" if values else "") + (f" {card.description}" if card.description else ""))
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class SearchInput:
    dialogue: Sequence[Turn]
    playlist: Sequence[ItemCard]
    fallback: str  # the CPCD query the offline curator would use


class PlaylistSearchStep(LanguageStep[SearchInput, SearchQuery]):
    name = "playlist_search"
    prompt_name = "playlist_search"
    output_model = SearchQuery
    llm_output_model = CappedQuery

    def offline(self, inputs: SearchInput) -> SearchQuery:
        return SearchQuery(query=inputs.fallback)

    def prompt_variables(self, inputs: SearchInput) -> dict[str, object]:
        return {"dialogue": dialogue_text(inputs.dialogue), "playlist": numbered(inputs.playlist)}

    def accept(self, output: SearchQuery, inputs: SearchInput) -> SearchQuery:
        return SearchQuery(query=output.query) if output.query.strip() else self.offline(inputs)


@dataclass(frozen=True, slots=True)
class PickInput:
    dialogue: Sequence[Turn]
    playlist: Sequence[ItemCard]
    shown: Sequence[ItemCard]
    count: int  # at most this many new tracks
    fallback: Picks  # the offline curator's move


class PlaylistPickStep(LanguageStep[PickInput, Picks]):
    name = "playlist_pick"
    prompt_name = "playlist_pick"
    output_model = Picks

    def offline(self, inputs: PickInput) -> Picks:
        return inputs.fallback

    def prompt_variables(self, inputs: PickInput) -> dict[str, object]:
        return {"dialogue": dialogue_text(inputs.dialogue), "playlist": numbered(inputs.playlist),
                "shown": numbered(inputs.shown), "count": inputs.count}

    def answer_model(self, inputs: PickInput) -> type[BaseModel]:
        return picks_up_to(max(inputs.count, 1))

    def check(self, output: BaseModel, inputs: PickInput) -> str | None:
        """A message either side sent before, or one with such a sentence, is refused: the
        1.5B curator said the same sentences word for word, turn after turn, whatever the
        listener answered, and once refused it sent the listener's message back as its own,
        with a sentence added. Compared as it would be sent (`accept` drops a sentence cut
        off at the length cap): compared raw, the cut-off fragment hid every repeat of a
        capped reply."""
        if repeats_a_sentence(whole_sentences(getattr(output, "response", "")), inputs.dialogue):
            return "this was said before; say something new about the tracks shown now"
        return None

    def accept(self, output: Picks, inputs: PickInput) -> Picks:
        return Picks(add=list(output.add), response=whole_sentences(output.response))


@dataclass(frozen=True, slots=True)
class SeekerInput:
    brief: str  # what the listener wants, in words (`brief_text`)
    dialogue: Sequence[Turn]
    playlist: Sequence[ItemCard]
    shown: Sequence[ItemCard]
    size: int
    fallback: SeekerMove  # the rule-based seeker's move


class PlaylistSeekerStep(LanguageStep[SeekerInput, SeekerMove]):
    name = "playlist_seeker"
    prompt_name = "playlist_seeker"
    output_model = SeekerMove
    llm_output_model = CappedSeekerMove

    def offline(self, inputs: SeekerInput) -> SeekerMove:
        return inputs.fallback

    def prompt_variables(self, inputs: SeekerInput) -> dict[str, object]:
        return {"brief": inputs.brief, "dialogue": dialogue_text(inputs.dialogue),
                "playlist": numbered(inputs.playlist), "shown": numbered(inputs.shown), "count": inputs.size}

    def check(self, output: BaseModel, inputs: SeekerInput) -> str | None:
        """A message either side sent before, or one with such a sentence, is refused (the
        1.5B listener repeated its first verdict word for word, about tracks no longer shown,
        or sent the curator's), and so is finishing with a playlist under half the size it
        wants (it once finished at 3 of 15)."""
        if repeats_a_sentence(whole_sentences(getattr(output, "text", "")), inputs.dialogue):
            return "this was said before; say what you think of the tracks shown now"
        if getattr(output, "done", False) and 2 * len(inputs.playlist) < inputs.size:
            return (f"your playlist has {len(inputs.playlist)} tracks and you want about {inputs.size}: "
                    "do not finish yet")
        return None

    def accept(self, output: SeekerMove, inputs: SeekerInput) -> SeekerMove:
        move = SeekerMove(**output.model_dump())
        move.text = whole_sentences(move.text)
        return move if move.text else self.offline(inputs)


def brief_text(brief: object) -> str:
    """A `ThemeBrief` as the listener would hold it in mind: what it asked for, how the songs
    it has in mind tend to be (target-biased), what it likes and dislikes in general."""
    values = getattr(brief, "values", {})
    taste = getattr(brief, "taste", {})
    lines = [f"You asked: {getattr(brief, 'request', '')}"]
    for aspect, shares in values.items():
        lines.append(f"{aspect}: " + ", ".join(f"{value} ({share:.0%} of the songs you have in mind)"
                                                 for value, share in shares.items()))
    likes = [value for values_ in taste.values() for value, weight in values_.items() if weight > 0]
    dislikes = [value for values_ in taste.values() for value, weight in values_.items() if weight < 0]
    if likes:
        lines.append("In general you like: " + ", ".join(likes))
    if dislikes:
        lines.append("In general you dislike: " + ", ".join(dislikes))
    return "\n".join(lines)


def link_tracks(names: Sequence[str], shown: Sequence[ItemCard]) -> tuple[list[str], list[str]]:
    """Shown track ids for `names` (a title, 'Title by Artist', or a list number) and the
    names that match no shown track. A title shared by several shown tracks needs its
    artist; a title that itself contains ' by ' ('Stand by Me') still matches whole."""
    linked, unknown = [], []
    for name in names:
        text = name.strip().strip("'\"").strip()
        number = text.rstrip(".")
        if number.isdigit() and 1 <= int(number) <= len(shown):
            linked.append(shown[int(number) - 1].id)
            continue
        match = _one_match(text, shown)
        if match is None:
            unknown.append(name)
        else:
            linked.append(match.id)
    return list(dict.fromkeys(linked)), unknown


def _one_match(text: str, shown: Sequence[ItemCard]) -> ItemCard | None:
    """The one shown card `text` names: the whole text as a title, else each ' by ' split
    read as title and artist (the first split that names exactly one card)."""
    splits = [(text, "")] + [(text[:i], text[i + 4:]) for i in range(len(text)) if text.startswith(" by ", i)]
    for title, artist in splits:
        matches = [card for card in shown if card.title.lower() == title.strip().lower()
                   and artist.strip().lower() in _artist(card).lower()]
        if len(matches) == 1:
            return matches[0]
    return None


def _artist(card: ItemCard) -> str:
    artist = card.attributes.get("artist")
    return ", ".join(artist) if isinstance(artist, list) else str(artist or "")
