"""A review-only catalog as a new user meets it: an Amazon 2018 5-core file, no metadata,
imported with `crsim data import amazon2018` and swept with `crsim run -m`.

The dialogue must make progress: the recommender asks about what the reviews talk
about (three or more different questions in five turns), BM25 improves as the seeker
answers and beats popularity, and the seeker never quotes a review. A seeker that has
said everything it knows leaves (`seeker_quit`) instead of repeating "That's about all I
can think of." (about a third of the episodes here, after two to four answers).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from amazon_fixture import write_amazon2018_5core
from crsim_testing import crsim
from environments.catalog import Catalog
from environments.search.aspect_text import sentences

EPISODES = 200


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(catalog dir, sweep dir): the fixture imported as a user would, then one two-recommender sweep."""
    root = tmp_path_factory.mktemp("review-only")
    source = write_amazon2018_5core(root / "Headphones_5.json")
    catalog = root / "headphones"
    out = crsim("data", "import", "amazon2018", str(source), "--out", str(catalog))
    assert out.returncode == 0, out.stderr
    out = crsim("run", "-m", f"environment.catalog={catalog}", "recommender=popularity,bm25",
                f"episodes={EPISODES}", "max_turns=5", "progress=false", f"hydra.sweep.dir={root / 'sweep'}")
    assert out.returncode == 0, out.stderr[-3000:]
    return catalog, root / "sweep"


def _job(sweep_dir: Path, recommender: str) -> Path:
    """The sweep job that ran `recommender` (long job names are shortened, so read its config)."""
    (job,) = [d for d in sweep_dir.iterdir() if (d / "config.yaml").exists()
              and f"agents.recommenders.{recommender}.build" in (d / "config.yaml").read_text()]
    return job


def _hits10(job: Path) -> pd.DataFrame:
    frame = pd.read_csv(job / "results.csv")
    return frame[frame.metric == "hits@10"].set_index("turn")


@pytest.mark.slow
def test_the_fixture_is_5core_and_review_only(sweep):
    catalog = Catalog.load(sweep[0])
    assert not catalog.aspects  # no attributes at all
    per_item = {item_id: len(reviews) for item_id, reviews in catalog.reviews_by_item.items()}
    per_user = {user.user_id: len(user.seen) for user in catalog.users}
    assert min(per_item.values()) >= 5 and min(per_user.values()) >= 5 and len(per_item) == len(catalog.items)


@pytest.mark.slow
def test_bm25_rises_over_turns_and_beats_popularity(sweep):
    bm25, popularity = _hits10(_job(sweep[1], "bm25")), _hits10(_job(sweep[1], "popularity"))
    assert (bm25.n == EPISODES).all()
    assert bm25.loc[5, "mean"] > bm25.loc[1, "ci_high"], bm25  # turn 5 above turn 1's whole interval
    assert bm25.loc[5, "ci_low"] > popularity.loc[5, "ci_high"], (bm25, popularity)


@pytest.mark.slow
def test_the_recommender_asks_different_questions(sweep):
    for recommender in ("bm25", "popularity"):
        for line in (_job(sweep[1], recommender) / "episodes.jsonl").read_text().splitlines():
            episode = json.loads(line)
            asked = [t for t in episode["turns"] if t["role"] == "recommender" and not t["metadata"].get("opening")]
            assert len(asked) == 5 or (episode["termination"] == "seeker_quit" and len(asked) >= 2), episode["id"]
            assert len({t["text"] for t in asked}) >= min(3, len(asked)), [t["text"] for t in asked]
            aspects = {t["metadata"].get("aspect") for t in asked if t["metadata"].get("aspect")}
            assert len(aspects) >= min(3, len(asked))


@pytest.mark.slow
def test_a_question_about_a_mined_aspect_is_answered_with_a_value_of_it(sweep):
    """The seeker knows what its target's reviews say on the aspects the recommender asks about."""
    asked = answered = 0
    for line in (_job(sweep[1], "bm25") / "episodes.jsonl").read_text().splitlines():
        turns = json.loads(line)["turns"]
        for question, reply in zip(turns, turns[1:]):
            aspect = question["metadata"].get("aspect") if question["role"] == "recommender" else None
            if aspect and reply["role"] == "seeker":
                asked += 1
                answered += any(f.startswith(f"mined:{aspect}=") for f in reply["metadata"].get("facts") or [])
    assert asked >= EPISODES and answered >= 0.2 * asked, (answered, asked)


@pytest.mark.slow
def test_no_seeker_utterance_quotes_a_review(sweep):
    def normal(text: str) -> str:
        return " " + re.sub(r"[^a-z0-9]+", " ", text.lower()).strip() + " "

    catalog = Catalog.load(sweep[0])
    quoted = {normal(s) for review in catalog.reviews for s in sentences(review.text) if len(s.split()) >= 4}
    said = [normal(t["text"]) for recommender in ("bm25", "popularity")
            for line in (_job(sweep[1], recommender) / "episodes.jsonl").read_text().splitlines()
            for t in json.loads(line)["turns"] if t["role"] == "seeker"]
    assert len(said) >= 2 * EPISODES * 3  # three answers or more per episode: the opening's and two questions
    assert not [u for u in said if any(q in u for q in quoted)]
    stated = [u for u in said if "preference" not in u and "matter" not in u and "feelings" not in u]
    assert len(stated) >= EPISODES  # and it does say things: at least one per episode on average


@pytest.mark.slow
def test_same_config_and_seed_give_identical_logs_with_a_fresh_cache(sweep, tmp_path):
    """Mining (clustering included) and the dialogue are deterministic: a second run with an
    empty cache writes the same bytes as the first."""
    catalog = sweep[0]
    runs = []
    for name in ("a", "b"):
        out = crsim("run", f"environment.catalog={catalog}", "recommender=bm25", "episodes=10", "progress=false",
                    f"hydra.run.dir={tmp_path / name}", env={"CRSIM_CACHE_DIR": str(tmp_path / f"cache-{name}")})
        assert out.returncode == 0, out.stderr[-2000:]
        runs.append((tmp_path / name / "episodes.jsonl").read_bytes())
    assert runs[0] == runs[1]
    assert list((tmp_path / "cache-a" / "aspects").glob("*.json"))  # the vocabulary was mined and cached
