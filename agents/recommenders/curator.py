"""Offline playlist curators: retrieve with CPCD's query, show the best new tracks, add some.

Each turn a curator builds CPCD's query from the conversation (`playlist_query`: the
seeker's utterances, interleaved in `user+items` mode with the text of the tracks it
liked after each), scores every track with its retriever — BM25 or dense over track
text, or play-count popularity, which ignores the conversation — and answers with a
`Curation`:

- shown (Y_t): tracks the seeker liked that are not in the playlist yet (so they can be
  added: a curator may only add what it shows), then the best tracks it has not shown
  before, then the best of those shown without a reaction; never a track in the playlist,
  one the seeker disliked or removed, or another version of a song already in it;
- added: those liked tracks plus the first `add_per_turn` new ones ("top-k"), at most
  `max_per_artist` tracks per artist in the playlist when that diversity option is set.

Documents: `track` is CPCD's "<title> by <artist> from <album>" (all a CPCD catalog has);
`card` (default) adds the shown attributes and the description, which is where a music
world's genre, mood and era are written.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import GraphAgent, agent_from_function
from agents.recommenders.playlist_query import DENSE_SEPARATOR, LEXICAL_SEPARATOR, query_parts
from environments.catalog import Catalog
from environments.catalog.stats import play_counts
from environments.datasets.cpcd import track_text
from environments.errors import CrsimError
from environments.models import Item, Role
from environments.playlist import Curation

SCORERS = ("bm25", "dense", "popularity")
DOCUMENTS = ("card", "track")
Scorer = Callable[[list[str]], np.ndarray]


def card_text(item: Item) -> str:
    """Track text plus the shown attributes (other than artist and album) and the description."""
    values = [v for key, value in item.attributes.items() if key not in ("artist", "album")
              for v in ([value] if isinstance(value, str) else value)]
    return " ".join(part for part in (track_text(item) + ".", " ".join(values), item.description) if part.strip())


def document_text(document: str) -> Callable[[Item], str]:
    """The text a track is retrieved by (and a liked track enters the query as)."""
    if document not in DOCUMENTS:
        raise CrsimError(f"recommender.document={document!r}; expected one of {', '.join(DOCUMENTS)}")
    return card_text if document == "card" else track_text


def make_scorer(kind: str, catalog: Catalog, *, document: str = "card", encoder: Any = None,
                embedding_model: str | None = None, cache_dir: str | None = None) -> Scorer:
    """Query parts (latest first) -> one score per catalog track."""
    text = document_text(document)
    if kind == "popularity":
        counts = play_counts(catalog)
        return lambda _parts: counts
    if kind == "bm25":
        from environments.search import BM25Index

        index = BM25Index.build(catalog, cache_dir, document=lambda item, _reviews: text(item))
        return lambda parts: index.scores(LEXICAL_SEPARATOR.join(parts)) if parts else np.zeros(len(catalog.items))
    if kind == "dense":
        from environments.search.dense import DenseIndex
        from environments.search.encoders import get_encoder

        dense = DenseIndex.build(catalog, encoder or get_encoder(embedding_model), cache_dir, show_progress=False,
                                 document=text, exact=True)
        return lambda parts: dense.scores(DENSE_SEPARATOR.join(parts)) if parts else np.zeros(len(catalog.items))
    raise CrsimError(f"recommender.scorer={kind!r}; expected one of {', '.join(SCORERS)}")


@dataclass(frozen=True, slots=True)
class Selection:
    """One turn's candidates: the playlist, what to show, liked tracks shown to be added,
    and tracks never shown before (in ranked order): the ones a curator may pick from."""

    playlist: list[str]
    show: list[str]
    pending: list[str]
    new: list[str]


class Curator:
    """The curation policy around a scorer (see the module docstring)."""

    def __init__(self, catalog: Catalog, scorer: Scorer, *, query: str = "user+items", shown: int = 10,
                 add_per_turn: int = 3, liked_per_turn: int = 3, max_per_artist: int | None = None,
                 document: Callable[[Item], str] = track_text):
        self.catalog, self.scorer, self.query, self.document = catalog, scorer, query, document
        self.shown, self.add_per_turn, self.liked_per_turn = shown, add_per_turn, liked_per_turn
        self.max_per_artist = max_per_artist
        self.cluster = {item.id: str(item.extra.get("cluster_id") or item.id) for item in catalog.items}
        self.artist = {item.id: _first(item.attributes.get("artist")) for item in catalog.items}

    def respond(self, observation: Any) -> Curation:
        parts = self.query_parts(observation)
        view = self.select(observation, parts)
        add = self._adds(view.playlist, view.pending + view.new[: self.add_per_turn])
        return Curation(response=self._say(view.show, add), shown=view.show, add=add,
                        metadata={"query": parts[:1], "scorer_parts": len(parts)})

    def query_parts(self, observation: Any) -> list[str]:
        """CPCD's query over the conversation so far (latest first)."""
        seeker_turns = [t for t in observation.dialogue if t.role == Role.seeker]
        liked_after = [[i for i, kind in t.feedback.items() if kind == "like"][: self.liked_per_turn]
                       for t in seeker_turns[1:]]
        return query_parts([t.text for t in seeker_turns], liked_after, self.query,
                           lambda i: self.document(self.catalog.item(i)) if i in self.catalog.item_index else i)

    def select(self, observation: Any, parts: list[str]) -> Selection:
        """What to show for a query: liked tracks not yet added, then the best unseen ones."""
        seeker_turns = [t for t in observation.dialogue if t.role == Role.seeker]
        playlist = [card.id for card in getattr(observation, "item_set", ())]
        rejected = {i for t in seeker_turns for i, kind in t.feedback.items() if kind == "dislike"}
        rejected |= {i for t in seeker_turns for i in t.removed}
        shown_before = {i for t in observation.dialogue if t.role == Role.recommender for i in t.items_shown}
        liked = {i for t in seeker_turns for i, kind in t.feedback.items() if kind == "like"}
        pending = [i for t in seeker_turns for i, kind in t.feedback.items()
                   if kind == "like" and i not in playlist and i not in rejected]
        blocked = set(playlist) | rejected | set(pending)
        taken = {self.cluster[i] for i in playlist}
        scores = np.asarray(self.scorer(parts), dtype=np.float64)
        order = np.argsort(-scores, kind="stable")
        fresh, stale = [], []
        for position in order.tolist():
            item_id = self.catalog.item_ids[position]
            if item_id in blocked or self.cluster[item_id] in taken:
                continue
            (stale if item_id in shown_before or item_id in liked else fresh).append(item_id)
            if len(fresh) >= self.shown:
                break
        show = list(dict.fromkeys(pending))[: self.shown]
        show += (fresh + stale)[: self.shown - len(show)]
        return Selection(playlist, show, [i for i in show if i in pending],
                         [i for i in show if i not in pending and i not in shown_before])

    def _adds(self, playlist: Sequence[str], wanted: Sequence[str]) -> list[str]:
        if self.max_per_artist is None:
            return list(wanted)
        per_artist = Counter(self.artist[i] for i in playlist)
        kept = []
        for item_id in wanted:
            if per_artist[self.artist[item_id]] < self.max_per_artist:
                per_artist[self.artist[item_id]] += 1
                kept.append(item_id)
        return kept

    def _text(self, item_id: str) -> str:
        return track_text(self.catalog.item(item_id)) if item_id in self.catalog.item_index else item_id

    def _say(self, show: Sequence[str], add: Sequence[str]) -> str:
        if not show:
            return "I'm out of ideas for this playlist; what else would you like?"
        listing = "; ".join(self._text(i) for i in show[:3])
        added = f" I've added {len(add)} of them to your playlist." if add else ""
        return f"Here are some tracks: {listing}{' and more' if len(show) > 3 else ''}.{added} What do you think?"


def build(catalog: Catalog, llm: Any | None = None, *, scorer: str = "bm25", query: str = "user+items",
          document: str = "card", shown: int = 10, add_per_turn: int = 3, liked_per_turn: int = 3,
          max_per_artist: int | None = None, embedding_model: str | None = None, cache_dir: str | None = None,
          encoder: Any = None) -> GraphAgent[None]:
    """Hydra factory for `recommender=curator_bm25|curator_dense|curator_popularity` (offline:
    `llm` is accepted and unused)."""
    score = make_scorer(scorer, catalog, document=document, encoder=encoder, embedding_model=embedding_model,
                        cache_dir=cache_dir)
    curator = Curator(catalog, score, query=query, shown=shown, add_per_turn=add_per_turn,
                      liked_per_turn=liked_per_turn, max_per_artist=max_per_artist,
                      document=document_text(document))
    return agent_from_function(Role.recommender.value, curator.respond)


def _first(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return str(value[0]) if value else ""
    return str(value or "")


__all__: Sequence[str] = ("Curator", "build", "card_text", "make_scorer", "play_counts")
