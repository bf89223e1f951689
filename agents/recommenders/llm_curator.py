"""An LLM playlist curator: it writes the search query and picks what to add.

Per turn the model reads the conversation and the playlist and writes a search query
(`playlist_search`); the catalog's retriever (BM25 or dense, as the offline curators)
ranks tracks for it, and the curator's selection rules choose what to show (liked tracks
not added yet, then the best unseen ones; `Curator.select`). The model then names at
most `add_per_turn` of the shown tracks to add and says something (`playlist_pick`).
Names are linked back to the shown tracks (`link_tracks`); a name that matches none (a
track that does not exist, or one that is not on screen) is not added and is listed
under the move's `unknown_tracks`, so the log says what the model invented. Liked tracks are
added whatever the model picks: the listener asked for them.

Without a model (`llm=offline`) both steps answer as the offline curator does, so this is
the BM25/dense curator plus the hooks.
"""

from __future__ import annotations

from typing import Any

from agents.base import GraphAgent, agent_from_function
from agents.recommenders.curator import Curator, document_text, make_scorer
from agents.recommenders.playlist_query import LEXICAL_SEPARATOR
from agents.steps.playlist.steps import (
    PickInput, Picks, PlaylistPickStep, PlaylistSearchStep, SearchInput, link_tracks,
)
from environments.base import ItemCard
from environments.catalog import Catalog
from environments.models import Role
from environments.playlist import Curation


class LLMCurator(Curator):
    def __init__(self, catalog: Catalog, scorer: Any, llm: Any | None, **options: Any):
        super().__init__(catalog, scorer, **options)
        self.search = PlaylistSearchStep(llm, Role.recommender.value)
        self.pick = PlaylistPickStep(llm, Role.recommender.value)

    async def respond(self, observation: Any) -> Curation:  # type: ignore[override]
        playlist_cards = list(getattr(observation, "item_set", ()))
        fallback = self.query_parts(observation)
        query = (await self.search.run(SearchInput(observation.dialogue, playlist_cards,
                                                   LEXICAL_SEPARATOR.join(fallback)))).query
        view = self.select(observation, [query])
        offline_adds = view.new[: self.add_per_turn]
        cards = [ItemCard.of(self.catalog.item(i)) for i in view.show]
        fallback = Picks(add=[str(view.show.index(i) + 1) for i in offline_adds],
                         response=self._say(view.show, offline_adds))
        picks = await self.pick.run(PickInput(observation.dialogue, playlist_cards, cards, self.add_per_turn, fallback))
        chosen, unknown = link_tracks(picks.add, cards)
        picked = [i for i in chosen if i not in view.pending][: self.add_per_turn]
        add = self._adds(view.playlist, view.pending + picked)
        metadata: dict[str, Any] = {"query": [query]}
        if unknown:
            metadata["unknown_tracks"] = unknown
        return Curation(response=picks.response, shown=view.show, add=add, metadata=metadata)


def build(catalog: Catalog, llm: Any | None = None, *, scorer: str = "bm25", document: str = "card",
          shown: int = 10, add_per_turn: int = 3, liked_per_turn: int = 3, max_per_artist: int | None = None,
          embedding_model: str | None = None, cache_dir: str | None = None, encoder: Any = None) -> GraphAgent[None]:
    """Hydra factory for `recommender=curator_llm`."""
    score = make_scorer(scorer, catalog, document=document, encoder=encoder, embedding_model=embedding_model,
                        cache_dir=cache_dir)
    curator = LLMCurator(catalog, score, llm, shown=shown, add_per_turn=add_per_turn, liked_per_turn=liked_per_turn,
                         max_per_artist=max_per_artist, document=document_text(document))
    return agent_from_function(Role.recommender.value, curator.respond)
