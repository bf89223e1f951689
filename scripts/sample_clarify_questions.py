"""Sample the clarifying questions an offline retrieval recommender asks on a catalog.

Judging whether mined questions make sense ("Any preference on cable? Say, usb or
monster?") needs the questions themselves, as a recommender asks them on turns 1-3, not
the vocabulary alone. This mines the catalog's review aspects the way `recommender=bm25`
does (same settings, encoder and cache), then for N seeker contexts drawn with a fixed
seed builds a BM25 query from a random item's review words, takes the top-50 candidates
and runs the offline clarify step for turns 1..t (t drawn from 1-3, earlier aspects
counted as asked), keeping the last question. Same catalog, seed and code: same questions.

Writes JSON (default `outputs/bench/clarify_questions.json`) and prints one question a line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

import numpy as np


def query_words(reviews: list[str], rng: np.random.Generator, n_words: int) -> list[str]:
    """`n_words` content words drawn from an item's reviews, in review order: a seeker who read them."""
    from environments.search.aspect_text import is_content, tokens

    words = [w for text in reviews for w in tokens(text) if is_content(w)]
    if len(words) <= n_words:
        return words
    keep = np.sort(rng.choice(len(words), size=n_words, replace=False))
    return [words[i] for i in keep]


async def sample(args: argparse.Namespace) -> dict[str, object]:
    from agents.recommenders.retrieval import mined_aspects
    from agents.steps.recommender.clarify import ClarifyInput, ClarifyStep
    from environments.catalog.loading import load_catalog_dir
    from environments.models import Role, Turn
    from environments.search import BM25Index

    if args.world:
        from environments.worlds import load_world

        catalog = load_world(args.world)
    else:
        catalog = load_catalog_dir(args.catalog)
    started = time.perf_counter()
    mined = mined_aspects(catalog, args.aspects, args.embedding_model, args.cache_dir)
    mine_seconds = time.perf_counter() - started
    index = BM25Index.build(catalog, cache_dir=args.cache_dir)
    reviews = catalog.reviews_by_item
    reviewed = [item for item in catalog.items if reviews.get(item.id)]
    rng = np.random.default_rng(args.seed)
    step = ClarifyStep()
    rows = []
    for number in range(args.n):
        item = reviewed[int(rng.integers(len(reviewed)))]
        texts = [r.text for r in reviews[item.id]]
        picked = rng.choice(len(texts), size=min(3, len(texts)), replace=False)
        query = " ".join(query_words([texts[i] for i in sorted(picked)], rng, args.query_words))
        turn = int(rng.integers(1, 4))
        scores = np.asarray(index.scores(query), dtype=float)
        pool = min(args.pool, scores.shape[0])
        top = np.argpartition(-scores, pool - 1)[:pool]
        candidates = [catalog.items[i] for i in top[np.argsort(-scores[top], kind="stable")]]
        dialogue = [Turn(index=0, role=Role.seeker, text=query)]
        asked: list[str] = []
        for t in range(1, turn + 1):
            out = await step.run(ClarifyInput(dialogue, candidates, asked, catalog.item_noun, t,
                                              tuple(catalog.aspects), mined))
            if out.aspect:
                asked.append(out.aspect)
        rows.append({"index": number, "item_id": item.id, "turn": turn, "query": query,
                     "aspect": out.aspect, "question": out.question})
    return {"catalog": args.world or str(args.catalog), "items": len(catalog.items), "reviews": len(catalog.reviews),
            "seed": args.seed, "n": args.n, "mined_aspects": [a.name for a in mined.aspects] if mined else [],
            "mine_seconds": round(mine_seconds, 2), "questions": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("catalog", type=Path, nargs="?", help="catalog directory (items.jsonl, reviews.jsonl)")
    parser.add_argument("--world", help="a synthetic world's domain instead (restaurant, movie)")
    parser.add_argument("-n", type=int, default=100, help="questions to sample")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pool", type=int, default=50, help="candidates the question is asked over")
    parser.add_argument("--query-words", type=int, default=12, help="review words in a seeker's query")
    parser.add_argument("--aspects", type=int, default=30, help="mined aspects (the recommenders' review_aspects)")
    parser.add_argument("--embedding-model", default="minilm-int8", help="groups aspect terms, as the config does")
    parser.add_argument("--cache-dir", default=None)
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/clarify_questions.json"))
    args = parser.parse_args()
    if (args.catalog is None) == (args.world is None):
        parser.error("give a catalog directory or --world, not both")
    result = asyncio.run(sample(args))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"{result['catalog']}: {result['items']} items, {result['reviews']} reviews; "
          f"mined in {result['mine_seconds']} s: {', '.join(result['mined_aspects'])}")
    for row in result["questions"]:
        print(f"{row['index']:3d} t{row['turn']} [{row['aspect']}] {row['question']}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
