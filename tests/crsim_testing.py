"""Helpers shared by the test suite (importable because the root conftest puts tests/ on sys.path).

The tiny catalog is small enough to reason about in a test (which item should BM25
find?) and needs no model. `HashEncoder` stands in for sentence embeddings where a test
checks control flow rather than semantics: bag-of-words vectors, normalised, so cosine
similarity is word overlap. `make_episode` builds a logged episode from target ranks.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zlib
from functools import lru_cache
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from environments.catalog import Catalog
from environments.models import (
    CatalogManifest, Episode, Item, Review, SeenItem, TargetRank, TerminationReason, TurnEvaluation, UserProfile,
)

CUISINES = ["thai", "italian", "mexican", "japanese"]
PRICES = ["cheap", "moderate", "expensive"]
NOISE = ["quiet", "lively"]


def make_tiny_catalog(n_items: int = 24) -> Catalog:
    items, reviews, users = [], [], {}
    for i in range(n_items):
        cuisine, price, noise = CUISINES[i % 4], PRICES[(i // 4) % 3], NOISE[(i // 12) % 2]
        items.append(Item(
            id=f"i{i:02d}", title=f"Place {i:02d}", category="restaurant",
            attributes={"cuisine": cuisine, "price_range": price, "noise": noise},
            description=f"A {noise} {cuisine} spot with {price} prices.",
        ))
        for j in range(2 + i % 3):
            user = f"u{(i + j) % 7}"
            rid = f"r{i:02d}-{j}"
            rating = 5.0 if j % 2 == 0 else 3.0
            reviews.append(Review(id=rid, item_id=f"i{i:02d}", user_id=user, rating=rating,
                                  text=f"Great {cuisine} food. The room was {noise}. Prices felt {price}."))
            users.setdefault(user, UserProfile(user_id=user)).seen.append(
                SeenItem(item_id=f"i{i:02d}", rating=rating, review_id=rid))
    manifest = CatalogManifest(name="tiny", domain="restaurant", item_noun="restaurants")
    return Catalog(manifest, items, reviews, list(users.values()))


class HashEncoder:
    """Bag-of-words hashing encoder with the `TextEncoder.encode` contract; counts its use."""

    def __init__(self, model_id: str = "hash-bow-256", dim: int = 256):
        self.model_id = model_id
        self.dim = dim
        self.calls = 0
        self.texts = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                out[row, zlib.crc32(word.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)


def make_episode(index: int, ranks: Sequence[int], termination: TerminationReason = TerminationReason.max_turns,
                 turns: Sequence[int] | None = None, error: str | None = None) -> Episode:
    """An episode whose target sat at `ranks[i]` in turn `turns[i]` (default 1, 2, ...)."""
    turns = list(turns) if turns is not None else list(range(1, len(ranks) + 1))
    return Episode(
        id=f"ep{index}", index=index, config_hash="x", seed=0, environment="single_target",
        termination=termination, error=error, targets=["t"],
        evaluations=[TurnEvaluation(turn=t, n_candidates=100,
                                    ranks=[TargetRank(item_id="t", rank=r, n_better=r - 1, n_tied=1)])
                     for t, r in zip(turns, ranks, strict=True)],
    )


REPO = Path(__file__).resolve().parents[1]
CRSIM = str(Path(sys.executable).parent / "crsim")


def crsim(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([CRSIM, *args], cwd=cwd, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=900)


# Reviews and queries whose nearest neighbours differ: encoder tests compare an encoder's
# neighbours with the full MiniLM's on them (agreement that is not trivial).
ENCODER_TEXTS = [
    "The lamb kebab was tender and cheap.",
    "Our waiter ignored us for twenty minutes.",
    "Quiet enough to talk over dinner.",
    "Loud music, you have to shout across the table.",
    "pizza",
    "The pastry case by the door has the best croissants in town, flaky and buttery every single morning.",
]
ENCODER_QUERIES = ["somewhere calm for a conversation", "slow, inattentive service", "good grilled meat",
                   "a bakery for breakfast", "flatbread with cheese and tomato"]

SCRIPTED_SEEKER = ["SCRIPTED: something spicy", "SCRIPTED: near the river", "SCRIPTED: not too loud"]
SCRIPTED_QUESTIONS = [("SCRIPTED: which cuisine?", "cuisine"), ("SCRIPTED: how loud?", "noise"),
                      ("SCRIPTED: what budget?", "price_range")]  # an aspect asked is not in the schema again


class ScriptedChatModel(BaseChatModel):
    """Answers each crsim prompt with a fixed, recognisable JSON object, as a model would:
    by looking at which prompt it got. `broken_seeker` answers the seeker prompt with
    garbage, so the repair-then-fallback path runs."""

    broken_seeker: bool = False
    calls: int = 0
    seeker_calls: int = 0
    questions: int = 0
    prompts: list[str] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.calls += 1
        system = str(messages[0].content)
        self.prompts.append(system)
        if "summarise customer reviews" in system:
            answer = json.dumps({"summary": "Reviewers loved the food."})
        elif "conversational recommender" in system:  # a new question each turn, as for the seeker
            self.questions += 1
            question, aspect = SCRIPTED_QUESTIONS[(self.questions - 1) % len(SCRIPTED_QUESTIONS)]
            answer = json.dumps({"question": question, "aspect": aspect})
        elif self.broken_seeker:
            answer = "I think... {not json"
        else:  # a new reply each turn, as the seeker step refuses one it already sent
            self.seeker_calls += 1
            reply = SCRIPTED_SEEKER[(self.seeker_calls - 1) % len(SCRIPTED_SEEKER)]
            answer = json.dumps({"answer": reply, "has_preference": True})
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=answer))])


def run_llm_episode(model: Any, catalog: Any, encoder: Any, *, max_turns: int = 2, talk_rates: Any = None) -> Any:
    """One episode (popularity recommender, target-biased seeker) with every step on `model`.

    Returns the `EpisodeOutcome` (episode plus full `LLMCallRecord`s). Per 2 turns the
    steps are: summarize_reviews x1, seeker_answer x2, clarify_question x2: the seeker's
    talk moves are off unless `talk_rates` (a `TalkRates`) is given, then worded on `model`.
    """
    import asyncio

    from agents.base import GraphAgent
    from agents.recommenders.popularity import build as build_popularity
    from agents.seekers.target_biased import SeekerContext, build_graph
    from agents.steps.seeker.answer import SeekerAnswerStep
    from agents.steps.seeker.summarize import SummarizeReviewsStep
    from environments.models import Role
    from environments.single_target import SingleTargetSetup
    from simulators.engine.episode import run_episode

    setup = SingleTargetSetup(catalog, target_pool_size=5)
    recommender = build_popularity(setup.recommender_catalog, llm=model)
    steps = SeekerContext(SeekerAnswerStep(model, "seeker", encoder=encoder),
                          SummarizeReviewsStep(model, "seeker"), 3)
    from dataclasses import replace

    from agents.seekers.target_biased import TalkRates
    from agents.steps.seeker.move import SeekerMoveStep

    steps = replace(steps, rates=talk_rates or TalkRates(0.0, 0.0, 0.0), move=SeekerMoveStep(model, "seeker"))
    seeker = GraphAgent(Role.seeker, build_graph(), steps, memory_keys=("facts", "stated"))
    return asyncio.run(run_episode(setup, {"recommender": recommender, "seeker": seeker}, index=0, run_seed=0,
                                   max_turns=max_turns, config_hash="stub"))


# --- TRACER shopping ------------------------------------------------------------------------

@lru_cache(maxsize=4)
def small_shopping_setup(domain: str = "beauty", planner: str = "tree") -> Any:
    """A 300-product synthetic shopping world (built once per process)."""
    from environments.shopping.domains import GLOSSES
    from environments.shopping.environment import ShoppingSetup
    from environments.shopping.world import generate_shopping_world

    return ShoppingSetup(generate_shopping_world(domain, n_products=300, seed=0), planner=planner, glosses=GLOSSES)


def run_shopping_offline(setup: Any, n: int, *, bank: str = "a", question_rate: float = 0.1, seed: int = 0,
                         max_turns: int = 30, llm: Any = None) -> list[Episode]:
    """`n` TRACER episodes with the offline (or `llm`) customer and seller."""
    import asyncio

    from agents.customers.tracer import build as build_customer
    from agents.sellers.tracer import build as build_seller
    from simulators.engine.episode import run_episode

    agents = {"customer": build_customer(llm=llm, phrase_bank=bank, question_rate=question_rate),
              "seller": build_seller(llm=llm, phrase_bank=bank)}
    return [asyncio.run(run_episode(setup, agents, index=i, run_seed=seed, max_turns=max_turns,
                                    config_hash="test")).episode for i in range(n)]
MOVIES_FIXTURE = Path(__file__).parent / "agents" / "steps" / "fixtures" / "linking_movies.jsonl"


def make_movie_catalog(n_users: int = 400, seed: int = 0, interactions: bool = True) -> Catalog:
    """The 139 hand-listed films of the linking fixture, with genres, plus pseudo-users whose
    likes cluster by genre (each likes 3-6 films sharing one genre), for CRAG's tests."""
    from scipy.sparse import csr_matrix

    from environments.catalog.interactions import InteractionMatrix

    rows = [json.loads(line) for line in MOVIES_FIXTURE.read_text(encoding="utf-8").splitlines()]
    items = [Item(id=r["id"], title=r["title"], category="movie", attributes={"genre": r["genres"]},
                  description=f"A {' and '.join(r['genres'])} film.", extra={"mentions": r["mentions"]})
             for r in rows]
    manifest = CatalogManifest(name="movies", domain="movie", item_noun="movies")
    if not interactions:
        return Catalog(manifest, items)
    rng = np.random.default_rng(seed)
    by_genre: dict[str, list[int]] = {}
    for position, row in enumerate(rows):
        for genre in row["genres"]:
            by_genre.setdefault(genre, []).append(position)
    genres = sorted(by_genre)
    users, cols = [], []
    for user in range(n_users):
        pool = by_genre[genres[user % len(genres)]]
        liked = rng.choice(pool, size=min(len(pool), int(rng.integers(3, 7))), replace=False)
        users.extend([user] * len(liked))
        cols.extend(int(c) for c in liked)
    matrix = csr_matrix((np.ones(len(cols), np.float32), (users, cols)), shape=(n_users, len(items)))
    signals = InteractionMatrix(matrix, [f"p{u}" for u in range(n_users)], [i.id for i in items])
    return Catalog(manifest, items, interactions=signals)


def import_redial_fixture(tmp_path_factory: Any, n_train: int, n_test: int) -> Path:
    """The ReDial fixture (`write_redial_fixture`) imported as a corpus: splits `train_data`, `test_data`."""
    from environments.datasets.redial import RedialOptions, import_redial

    raw = write_redial_fixture(tmp_path_factory.mktemp("raw"), n_train=n_train, n_test=n_test)
    out = tmp_path_factory.mktemp("redial") / "corpus"
    import_redial([raw / "train_data.jsonl", raw / "test_data.jsonl"], out, RedialOptions())
    return out


def write_redial_fixture(directory: Path, n_train: int = 80, n_test: int = 16, seed: int = 0,
                         test_only_title: str = "Hereditary (2018)") -> Path:
    """ReDial-format files (`train_data.jsonl`, `test_data.jsonl`, `movies_with_mentions.csv`)
    generated from the movie fixture: in each conversation the seeker names films of one
    genre it likes (and sometimes one it hated), the recommender suggests others of that
    genre. `test_only_title` is suggested only in test conversations."""
    import csv

    rows = [json.loads(line) for line in MOVIES_FIXTURE.read_text(encoding="utf-8").splitlines()]
    ids = {r["title"]: str(1000 + n) for n, r in enumerate(rows)}
    by_genre: dict[str, list[str]] = {}
    for r in rows:
        for genre in r["genres"]:
            by_genre.setdefault(genre, []).append(ids[r["title"]])
    held_out = ids[test_only_title]
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "movies_with_mentions.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["movieId", "movieName", "nbMentions"])
        for r in rows:
            writer.writerow([ids[r["title"]], r["title"], r["mentions"]])
    rng = np.random.default_rng(seed)
    genres = sorted(by_genre)
    openers = ["Hi! I loved @{a} and @{b}, what else would I like?", "hello, looking for something like @{a}",
               "I am in the mood for a movie like @{a} or @{b}", "My favorite is @{a}. Any ideas?"]
    pitches = ["You should watch @{c}", "Have you seen @{c}? It is great", "How about @{c} and @{d}?"]

    def conversation(number: int, test: bool) -> dict[str, Any]:
        genre = genres[number % len(genres)]
        pool = [m for m in by_genre[genre] if m != held_out]
        liked = [str(m) for m in rng.choice(pool, size=min(len(pool), 4), replace=False)]
        if test and held_out in by_genre[genre]:
            liked[2] = held_out  # the recommender suggests it
        hated = str(rng.choice(by_genre[genres[(number + 3) % len(genres)]]))
        seeker, recommender = 2 * number + 1, 2 * number + 2
        texts = [(seeker, str(rng.choice(openers)).format(a=liked[0], b=liked[1])),
                 (recommender, str(rng.choice(pitches)).format(c=liked[2], d=liked[3])),
                 (seeker, f"I have not seen that one. I hated @{hated} though"),
                 (recommender, f"Then try @{liked[3]}, or @{liked[2]} again"),
                 (seeker, "thanks, bye")]
        answers = {m: {"suggested": int(i >= 2), "seen": int(i < 2), "liked": 1} for i, m in enumerate(liked)}
        answers[hated] = {"suggested": 0, "seen": 1, "liked": 0}
        return {"movieMentions": {m: None for m in answers}, "respondentQuestions": answers,
                "messages": [{"timeOffset": 10 * n, "text": text, "senderWorkerId": sender, "messageId": n}
                             for n, (sender, text) in enumerate(texts)],
                "conversationId": str(number), "respondentWorkerId": recommender, "initiatorWorkerId": seeker,
                "initiatorQuestions": answers}

    for name, numbers, test in (("train_data.jsonl", range(n_train), False),
                                ("test_data.jsonl", range(n_train, n_train + n_test), True)):
        (directory / name).write_text("".join(json.dumps(conversation(n, test)) + "\n" for n in numbers),
                                      encoding="utf-8")
    return directory
