"""IMDb-style per-user reviews the tests write themselves, for PEPPER on an imported catalog.

Movies have genres, a director and stars in a metadata file keyed by tt-ids (the
`movies.py` metadata format); users have two liked and one disliked genre and review 12
to 20 movies each (so every user clears PEPPER's >= 10 interactions), rating 1-10 by how
the movie's genres suit them plus noise, and write two to four sentences: what they
thought of a genre the movie has, a remark on the acting or the plot, chatter. Seeded:
the same seed writes the same bytes.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

GENRES = ("Horror", "Comedy", "Drama", "Thriller", "Romance", "Sci-Fi", "Animation", "Western")
PRAISE = ("The {g} parts were wonderful.", "I loved how much {g} there is in it.", "Great {g}, really enjoyable.")
PAN = ("The {g} side was dull and annoying.", "Too much {g} for me, I hated it.", "Terrible {g}, very boring.")
REMARKS = ("The acting was solid.", "The plot had a few holes.", "Nice cinematography.", "The ending surprised me.")
CHATTER = ("Watched it with my brother.", "Saw it on a plane.", "Finally crossed it off my list.")
DIRECTORS = ("Ada Brooks", "Lev Moreno", "Kim Sato", "Ray Okafor", "June Castell")
STARS = ("Tom Vale", "Nia Roche", "Omar Fiel", "Lia Strand", "Ben Ito", "Cora Wynn")


def write_imdb_fixture(directory: Path, *, n_movies: int = 80, n_users: int = 40, seed: int = 0) -> tuple[Path, Path]:
    """Write `reviews.csv` and `movies.json` into `directory`; return their paths."""
    rnd = random.Random(seed)
    directory.mkdir(parents=True, exist_ok=True)
    movies = {}
    for m in range(n_movies):
        genres = rnd.sample(GENRES, rnd.choice((1, 2, 2)))
        movies[f"tt{1000000 + m}"] = {
            "name": f"Movie Number {m + 1} ({1970 + rnd.randrange(50)})", "genre": genres,
            "director": [rnd.choice(DIRECTORS)], "star": rnd.sample(STARS, 2),
            "plot": f"A {genres[0].lower()} story about {rnd.choice(('a family', 'two rivals', 'a lost dog', 'a town'))}."}
    ids = sorted(movies)
    rows = []
    for u in range(n_users):
        likes = rnd.sample(GENRES, 3)
        liked, disliked = set(likes[:2]), likes[2]
        for movie_id in rnd.sample(ids, rnd.randint(12, 20)):
            genres = movies[movie_id]["genre"]
            fit = sum(g in liked for g in genres) - 1.5 * (disliked in genres)
            rating = max(1, min(10, round(5.5 + 2.5 * fit + rnd.gauss(0, 1.5))))
            genre = rnd.choice(genres)
            opinion = PRAISE if genre in liked else PAN if genre == disliked else (PRAISE if rating >= 6 else PAN)
            sentences = [rnd.choice(opinion).format(g=genre.lower()), rnd.choice(REMARKS)]
            sentences += rnd.sample(CHATTER, rnd.choice((0, 1)))
            rnd.shuffle(sentences)
            rows.append({"user": f"ur{u + 1:04d}", "movie": movie_id, "rating": rating, "review": " ".join(sentences)})
    reviews = directory / "reviews.csv"
    with reviews.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["user", "movie", "rating", "review"])
        writer.writeheader()
        writer.writerows(rows)
    meta = directory / "movies.json"
    meta.write_text(json.dumps(movies, indent=1, sort_keys=True) + "\n")
    return reviews, meta
