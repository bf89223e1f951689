"""Measuring a catalog: the shape statistics a synthetic world and a real catalog are
compared on (`environments.catalog.stats` holds the records and the catalog-only measures).

Aspects per review are counted with the catalog's own mined aspect vocabulary
(`environments.search.aspects`), so the same measure applies to a world and to a
review-only import; a music catalog's goal playlists are counted as the playlist protocol
loads them (`environments.playlist.goals`). Reading both is why this sits above the
catalog, the search indexes and the protocols rather than in the catalog package.
"""

from __future__ import annotations

from collections import Counter

from environments.catalog.stats import (
    MUSIC_DOMAINS, CatalogStats, Distribution, MusicStats, gini, play_counts_and_source, top_share,
)
from environments.catalog.store import Catalog


def catalog_statistics(catalog: Catalog, aspect_terms: dict[str, str] | None = None) -> CatalogStats:
    """Shape statistics of `catalog`; `aspect_terms` (term -> aspect) enables aspects per review."""
    from environments.search.aspect_text import find_mentions, sentences, term_index, tokens

    per_item = Counter(r.item_id for r in catalog.reviews)
    per_user = Counter(r.user_id for r in catalog.reviews)
    index = term_index(aspect_terms) if aspect_terms is not None else None
    n_sentences, n_words, n_aspects = [], [], []
    for review in catalog.reviews:
        split = sentences(review.text)
        n_sentences.append(len(split))
        n_words.append(len(review.text.split()))
        if index is not None:
            named = {m.aspect for s in split for m in find_mentions(tokens(s), index)}
            n_aspects.append(len(named))
    signatures = Counter(_signature(item.attributes) for item in catalog.items)
    unique = sum(1 for item in catalog.items if signatures[_signature(item.attributes)] == 1)
    return CatalogStats(
        items=len(catalog.items), reviews=len(catalog.reviews), users=len(catalog.users),
        reviews_per_item=Distribution.of([per_item.get(item.id, 0) for item in catalog.items]),
        reviews_per_user=Distribution.of(list(per_user.values())),
        sentences_per_review=Distribution.of(n_sentences), words_per_review=Distribution.of(n_words),
        aspects_per_review=Distribution.of(n_aspects) if index is not None else None,
        attributes_per_item=Distribution.of([sum(1 for v in item.attributes.values() if v)
                                             for item in catalog.items]),
        unique_attribute_combinations=round(unique / max(1, len(catalog.items)), 4),
        music=music_statistics(catalog) if catalog.manifest.domain in MUSIC_DOMAINS else None,
    )


def music_statistics(catalog: Catalog) -> MusicStats:
    """`MusicStats` of a music catalog; goal playlists need it loaded from a directory
    (world themes live under `truth/`, conversations in `dialogues.jsonl`)."""
    from environments.errors import CrsimError
    from environments.playlist.goals import load_goals

    per_artist: Counter[str] = Counter()
    per_album: Counter[tuple[str, ...]] = Counter()
    for item in catalog.items:
        artists = _values(item.attributes.get("artist"))
        per_artist.update(dict.fromkeys(artists, 1))
        album = item.attributes.get("album")
        if isinstance(album, str) and album.strip():
            # Album titles repeat across artists ("Greatest Hits"): the world's album id, else title + lead artist.
            album_id = item.extra.get("album_id")
            per_album[(str(album_id),) if album_id else (album.strip(), artists[0] if artists else "")] += 1
    counts, source = play_counts_and_source(catalog)
    try:
        goals = load_goals(catalog) if catalog.path is not None else []
    except CrsimError:  # no themes and no conversations with goal sets
        goals = []
    return MusicStats(
        artists=len(per_artist), albums=len(per_album),
        tracks_per_artist=Distribution.of(list(per_artist.values())),
        tracks_per_album=Distribution.of(list(per_album.values())),
        play_source=source,
        top_play_share=round(top_share(counts), 4) if source else None,
        play_gini=round(gini(counts), 4) if source else None,
        goal_playlists=len(goals),
        goal_playlist_size=Distribution.of([len(goal.items) for goal in goals]) if goals else None,
    )


def _values(value: object) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    return [str(v) for v in value if str(v).strip()] if isinstance(value, (list, tuple)) else []


def _signature(attributes: dict) -> str:
    return repr(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in attributes.items() if v))
