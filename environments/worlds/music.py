"""The music world: tracks grouped by artists and albums, listeners, and playlist themes.

Built for playlist curation (CPCD's task): a seeker wants a *set* of tracks for a theme
("upbeat 80s workout") and a curator has to find them. What makes that realistic:
- tracks belong to albums and artists, and inherit their character (an artist's home
  genre and typical mood, an album's era), so "more like the second one" has structure
  to follow, and a few tracks are other versions of a song ("(Live)", "(Remastered)")
  that share a cluster, as CPCD's tracks do;
- popularity is heavy-tailed like real play counts: a Zipf share per artist times a
  Zipf share per album position, with log-normal noise; the catalog shows the count;
- the catalog shows artist and album always, but genre, mood, tempo and era only in
  part and sometimes wrongly (`noise.shown_attributes`, the same rule as the review
  worlds), and the description paraphrases one or two true values;
- listeners have latent tastes (liked/disliked genres, moods, eras, tempos) and play
  mostly what suits them among what is popular (`interactions.jsonl`: plays);
- themes (`themes.py`) define goal sets of 10-30 tracks from the true attributes.

Truth (true attributes, tastes, themes with their goal sets) is written under `truth/`.
Every step draws from its own named random stream; the same arguments give
byte-identical files.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from environments.catalog.interactions import INTERACTIONS, Interaction
from environments.catalog.jsonl import write_jsonl
from environments.catalog.store import Catalog
from environments.models import CatalogManifest, Item, SeenItem, UserProfile
from environments.worlds.music_vocab import (
    ALBUM_PATTERNS, ARTIST_FIRST, ARTIST_SECOND, BY_ASPECT, MUSIC_ASPECTS, PERSON_FIRST, PERSON_LAST,
    TITLE_PATTERNS, TITLE_WORDS, VERSION_TAGS,
)
from environments.worlds.noise import shown_attributes
from environments.worlds.themes import TrackFacts, draw_themes
from environments.worlds.truth import ItemTruth, ThemeTruth, UserTruth

GENERATOR_VERSION = 1
DOMAIN = "music"
TRUTH_DIR = "truth"
VISIBILITY = ("full", "partial", "none")

_TRACKS_PER_ARTIST = 12
_HOME_GENRE, _HOME_MOOD = 0.85, 0.5  # chance a track keeps its artist's genre / typical mood
_VERSION_SHARE = 0.06  # tracks that are another version of an earlier song
_ARTIST_ZIPF, _TRACK_ZIPF = 1.0, 0.8
_TASTE_BIAS = 1.0  # how strongly listeners play what suits them
_HISTORY = (20, 60)  # tracks per listener
# Tempo follows mood: (slow, mid-tempo, fast) weights per mood.
_TEMPO_BY_MOOD = {"upbeat": (0.1, 0.4, 0.5), "intense": (0.05, 0.3, 0.65), "chill": (0.45, 0.5, 0.05),
                  "melancholy": (0.6, 0.35, 0.05), "romantic": (0.6, 0.35, 0.05), "dreamy": (0.45, 0.45, 0.1)}
_DESCRIPTIONS = ("{p} and {q}.", "All {p}, with {q} underneath.", "{p}; {q} carries it.", "{p}.",
                 "Built on {p}.")


@dataclass
class MusicWorld:
    """A generated music catalog, its listeners' plays, and the truth behind them."""

    catalog: Catalog
    plays: list[Interaction]
    users: list[UserTruth]
    items: list[ItemTruth]
    themes: list[ThemeTruth]

    def save(self, directory: Path) -> Path:
        """Catalog files, `interactions.jsonl` (plays) and `truth/{users,reviews,items,themes}.jsonl`
        (`reviews` is empty: the music world has none, but truth readers expect the file)."""
        directory = Path(directory)
        self.catalog.save(directory)
        write_jsonl(directory / INTERACTIONS, self.plays)
        write_jsonl(directory / TRUTH_DIR / "users.jsonl", self.users)
        write_jsonl(directory / TRUTH_DIR / "reviews.jsonl", [])
        write_jsonl(directory / TRUTH_DIR / "items.jsonl", self.items)
        write_jsonl(directory / TRUTH_DIR / "themes.jsonl", self.themes)
        return directory


def generate(domain: str = DOMAIN, **arguments: object) -> MusicWorld:
    """The registry's entry point (see `registry.generator_module`)."""
    return generate_music_world(**arguments)  # type: ignore[arg-type]


def generate_music_world(*, n_items: int = 3000, n_users: int = 1200, seed: int = 0,
                         attribute_visibility: str = "partial", n_themes: int = 200,
                         min_reviews_per_item: int = 0) -> MusicWorld:
    """Generate the music world; deterministic in its arguments. `min_reviews_per_item` is
    accepted for the shared world arguments and unused: tracks have plays, not reviews."""
    if n_items < 1 or n_users < 1 or n_themes < 0:
        raise ValueError("n_items and n_users must be >= 1 and n_themes >= 0")
    if attribute_visibility not in VISIBILITY:
        raise ValueError(f"attribute_visibility={attribute_visibility!r}; expected one of {', '.join(VISIBILITY)}")
    item_rnd, user_rnd, shown_rnd, theme_rnd = (random.Random(f"crsim-music-{seed}-{stream}")
                                                for stream in ("items", "users", "shown", "themes"))
    rng = np.random.default_rng([seed, GENERATOR_VERSION, 7])

    tracks = _tracks(n_items, item_rnd, rng)
    items, truth = [], []
    for i, track in enumerate(tracks):
        true = {aspect.name: track[aspect.name] for aspect in MUSIC_ASPECTS}
        shown = shown_attributes(MUSIC_ASPECTS, true, attribute_visibility, shown_rnd)
        item_id = f"t{i + 1:05d}"
        items.append(Item(
            id=item_id, title=track["title"], category="track",
            attributes={"artist": [track["artist"]], "album": track["album"], **shown},
            description=_describe(true, item_rnd),
            extra={"artist_id": track["artist_id"], "album_id": track["album_id"],
                   "cluster_id": f"c{track['cluster'] + 1:05d}", "play_count": track["plays"]}))
        truth.append(ItemTruth(item_id=item_id, attributes={"artist": track["artist"], "album": track["album"],
                                                            **true},
                               shown=shown, cluster=track["cluster"], popularity=round(track["popularity"], 8)))

    tastes = [_taste(user_rnd) for _ in range(n_users)]
    user_ids = [f"u{u + 1:05d}" for u in range(n_users)]
    popularity = np.array([t["popularity"] for t in tracks])
    users, plays = _listening(items, tracks, tastes, user_ids, popularity, rng)
    facts = [TrackFacts(items[i].id, {a.name: tracks[i][a.name] for a in MUSIC_ASPECTS}, tracks[i]["popularity"])
             for i in range(n_items)]
    themes = draw_themes(facts, n_themes, theme_rnd, np.random.default_rng([seed, GENERATOR_VERSION, 11]))
    manifest = CatalogManifest(
        name=f"world-music-s{seed}", domain=DOMAIN, item_noun="tracks", source="crsim.worlds",
        extra={"generator_version": GENERATOR_VERSION, "n_items": n_items, "n_users": n_users, "seed": seed,
               "attribute_visibility": attribute_visibility, "n_themes": len(themes)})
    user_truth = [UserTruth(user_id=user_ids[u], likes=_side(tastes[u], 1), dislikes=_side(tastes[u], -1),
                            weights={a: dict(sorted(vs.items())) for a, vs in _by_aspect(tastes[u]).items()})
                  for u in range(n_users)]
    return MusicWorld(Catalog(manifest, items, [], users), plays, user_truth, truth, themes)


def _tracks(n_items: int, rnd: random.Random, rng: np.random.Generator) -> list[dict]:
    """Tracks in catalog order: artists -> albums -> tracks, some as versions of earlier songs."""
    n_artists = max(1, round(n_items / _TRACKS_PER_ARTIST))
    artist_share = 1.0 / (rng.permutation(n_artists) + 1.0) ** _ARTIST_ZIPF
    artist_share /= artist_share.sum()
    names: set[str] = set()
    artists = []
    for a in range(n_artists):
        name = _unique(names, lambda: (f"{rnd.choice(PERSON_FIRST)} {rnd.choice(PERSON_LAST)}" if rnd.random() < 0.4
                                       else f"The {rnd.choice(ARTIST_FIRST)} {rnd.choice(ARTIST_SECOND)}"))
        artists.append({"id": f"ar{a + 1:04d}", "name": name, "genre": _weighted(BY_ASPECT["genre"], rnd),
                        "mood": _weighted(BY_ASPECT["mood"], rnd),
                        "era": rnd.randrange(len(BY_ASPECT["era"].values))})
    # Tracks per artist: everyone has some, popular artists have more (they release more).
    counts = np.ones(n_artists, dtype=int) if n_items >= n_artists else np.zeros(n_artists, dtype=int)
    counts += rng.multinomial(n_items - int(counts.sum()), 0.3 * artist_share + 0.7 / n_artists)
    tracks: list[dict] = []
    eras = [v.value for v in BY_ASPECT["era"].values]
    albums = 0
    for a, artist in enumerate(artists):
        left, album_no, songs = int(counts[a]), 0, []
        while left > 0:
            size = min(left, rnd.randint(6, 12))
            era = eras[min(len(eras) - 1, artist["era"] + (album_no // 2 if rnd.random() < 0.7 else album_no))]
            albums += 1
            album = _album_name(rnd)
            for position in range(size):
                if songs and rnd.random() < _VERSION_SHARE:
                    original = rnd.choice(songs)
                    track = {**original, "title": f"{original['title']} {rnd.choice(VERSION_TAGS)}"}
                else:
                    mood = artist["mood"] if rnd.random() < _HOME_MOOD else _weighted(BY_ASPECT["mood"], rnd)
                    tempo = rnd.choices([v.value for v in BY_ASPECT["tempo"].values], _TEMPO_BY_MOOD[mood])[0]
                    genre = artist["genre"] if rnd.random() < _HOME_GENRE else _weighted(BY_ASPECT["genre"], rnd)
                    track = {"title": _title(rnd), "genre": genre, "mood": mood, "tempo": tempo, "era": era,
                             "cluster": -1}
                track.update(artist=artist["name"], artist_id=artist["id"], album=album, album_id=f"al{albums:05d}",
                             share=float(artist_share[a]) / (position + 1.0) ** _TRACK_ZIPF)
                if track["cluster"] < 0:
                    track["cluster"] = len(tracks)
                    songs.append(track)
                tracks.append(track)
            left -= size
            album_no += 1
    noise = rng.lognormal(0.0, 0.6, len(tracks))
    share = np.array([t["share"] for t in tracks]) * noise
    share /= share.sum()
    for track, p in zip(tracks, share):
        track["popularity"] = float(p)
        track["plays"] = int(round(p * len(tracks) * 20_000))
        del track["share"]
    return tracks


def _taste(rnd: random.Random) -> dict[tuple[str, str], float]:
    """Latent likes (1-2 genres, 1-2 moods, an era, sometimes a tempo) and dislikes."""
    taste: dict[tuple[str, str], float] = {}
    for aspect, n_likes, n_dislikes in (("genre", rnd.randint(1, 2), 1), ("mood", rnd.randint(1, 2), rnd.randint(0, 1)),
                                        ("era", 1, 0), ("tempo", rnd.randint(0, 1), rnd.randint(0, 1))):
        values = [v.value for v in BY_ASPECT[aspect].values]
        chosen = rnd.sample(values, n_likes + n_dislikes)
        for value in chosen[:n_likes]:
            taste[(aspect, value)] = round(rnd.uniform(0.6, 1.5), 2)
        for value in chosen[n_likes:]:
            taste[(aspect, value)] = -round(rnd.uniform(0.8, 1.8), 2)
    return taste


def _listening(items: list[Item], tracks: list[dict], tastes: list[dict], user_ids: list[str],
               popularity: np.ndarray, rng: np.random.Generator) -> tuple[list[UserProfile], list[Interaction]]:
    """Each listener plays 20-60 tracks drawn by popularity x exp(bias x affinity); plays per
    track grow with affinity. Returns the users (seen tracks, no ratings) and their plays."""
    columns = {(a.name, v.value): j for j, (a, v) in enumerate((a, v) for a in MUSIC_ASPECTS for v in a.values)}
    present = np.zeros((len(tracks), len(columns)))
    for i, track in enumerate(tracks):
        present[i, [columns[(a.name, track[a.name])] for a in MUSIC_ASPECTS]] = 1.0
    weights = np.zeros((len(tastes), len(columns)))
    for u, taste in enumerate(tastes):
        for feature, weight in taste.items():
            weights[u, columns[feature]] = weight
    affinity = present @ weights.T  # (tracks, users)
    users, plays = [], []
    for u, user_id in enumerate(user_ids):
        p = popularity * np.exp(_TASTE_BIAS * affinity[:, u])
        n = min(len(items), int(rng.integers(_HISTORY[0], _HISTORY[1] + 1)))
        picked = sorted(int(i) for i in rng.choice(len(items), size=n, replace=False, p=p / p.sum()))
        counts = 1 + rng.poisson(2.0 * np.exp(np.clip(affinity[picked, u], -2, 2)))
        users.append(UserProfile(user_id=user_id, seen=[SeenItem(item_id=items[i].id) for i in picked]))
        plays += [Interaction(user_id=user_id, item_id=items[i].id, value=float(c), source="world")
                  for i, c in zip(picked, counts)]
    return users, plays


def _describe(true: dict[str, str], rnd: random.Random) -> str:
    aspects = rnd.sample(list(true), 2)
    p, q = (rnd.choice(BY_ASPECT[a].by_value[true[a]].phrases) for a in aspects)
    text = rnd.choice(_DESCRIPTIONS).format(p=p, q=q)
    return text[:1].upper() + text[1:]


def _title(rnd: random.Random) -> str:
    a, b, c = rnd.sample(TITLE_WORDS, 3)
    return rnd.choice(TITLE_PATTERNS).format(a=a, b=b, c=c)


def _album_name(rnd: random.Random) -> str:
    a, b = rnd.sample(TITLE_WORDS, 2)
    return rnd.choice(ALBUM_PATTERNS).format(a=a, b=b)


def _unique(used: set[str], draw) -> str:
    name = draw()
    k = 1
    while name in used:
        k += 1
        name = f"{draw()}" if k < 5 else f"{name} {k}"
    used.add(name)
    return name


def _weighted(aspect, rnd: random.Random) -> str:
    return rnd.choices([v.value for v in aspect.values], [v.weight for v in aspect.values])[0]


def _by_aspect(taste: dict[tuple[str, str], float]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for (aspect, value), weight in taste.items():
        out.setdefault(aspect, {})[value] = weight
    return {a.name: out[a.name] for a in MUSIC_ASPECTS if a.name in out}


def _side(taste: dict[tuple[str, str], float], sign: int) -> dict[str, list[str]]:
    """Liked (sign 1) or disliked (-1) values per aspect, strongest first."""
    out: dict[str, list[str]] = {}
    for aspect, values in _by_aspect(taste).items():
        mine = sorted((v for v, w in values.items() if w * sign > 0), key=lambda v: (-abs(values[v]), v))
        if mine:
            out[aspect] = mine
    return out
