"""Benchmark: `recommender=dense` on a large generated catalog — build time, peak memory, reuse.

Generates a catalog of `--items` products and `--reviews` reviews (default 50,000 and
500,000) whose review sentences are mostly distinct, as in real review data (a world's
phrase bank repeats its sentences; a real catalog's reviewers do not): each sentence is
drawn from templates with large word lists, a share `--stock-share` from a pool of stock
phrases ("Great value.", which real reviews repeat). Then, each in a fresh process with an
empty cache (`CRSIM_CACHE_DIR` in a temporary directory) so the figures are cold:

- `build`: `agents.recommenders.dense.build` on the catalog's recommender view (what
  `crsim run recommender=dense` does before its first episode: item documents, review
  sentences, attribute phrases and mined aspects), wall time and peak RSS;
- `rebuild`: the same in a second fresh process on the now warm cache (a second run, or
  the next job of a sweep: everything is keyed by content);
- `turn`: the mean time of `index.scores` for five utterances (one turn's scoring).

    python scripts/bench_dense_scale.py                                  # 50k items, 500k reviews
    python scripts/bench_dense_scale.py --items 5000 --reviews 50000     # a scaled run
    python scripts/bench_dense_scale.py --embedding-model static          # or minilm-int8

Writes JSON (default `outputs/bench/bench_dense_scale.json`); a scaled run also states
the full size's figures extrapolated linearly in distinct texts (labelled as such).
Targets (issue "A fast first run"): build <= 10 minutes and <= 4 GB at 50k / 500k on two
cores, reused across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FULL_ITEMS, FULL_REVIEWS = 50_000, 500_000

CUISINES = ["thai", "greek", "korean", "mexican", "italian", "french", "indian", "japanese", "lebanese",
            "vietnamese", "spanish", "ethiopian", "peruvian", "turkish", "chinese", "american"]
NOUNS = ["curry", "dumplings", "ramen", "tacos", "pasta", "salad", "soup", "steak", "burger", "pizza", "bread",
         "dessert", "coffee", "wine list", "cocktails", "fries", "noodles", "rice", "fish", "lamb", "chicken",
         "tofu", "pastry", "sandwich", "brunch", "patio", "terrace", "bar", "counter", "booth", "service",
         "waiter", "staff", "host", "music", "lighting", "decor", "menu", "portion", "price", "parking", "view"]
ADJECTIVES = ["crispy", "bland", "fresh", "salty", "tender", "cold", "lukewarm", "spicy", "rich", "greasy",
              "friendly", "slow", "rude", "attentive", "loud", "quiet", "cozy", "cramped", "bright", "dim",
              "generous", "tiny", "pricey", "cheap", "authentic", "forgettable", "perfect", "overcooked",
              "smoky", "sweet", "sour", "juicy", "dry", "fragrant", "creamy", "charming", "noisy", "calm"]
ADVERBS = ["really", "surprisingly", "a bit", "far too", "very", "not very", "almost", "never", "always", "quite"]
WHO = ["my partner", "my kids", "our group", "my friend", "the table next to us", "my mother", "we", "I",
       "my colleague", "the whole family"]
WHEN = ["on a Tuesday", "for lunch", "late at night", "on my birthday", "after work", "last weekend",
        "in the rain", "before a concert", "on a first date", "at brunch time"]
TEMPLATES = [
    "The {n} was {adv} {a}.", "{who} loved the {a} {n} {when}.", "Honestly the {n} felt {a} and the {n2} {adv} {a2}.",
    "We went {when} and the {n} was {a}.", "Not a fan of the {a} {n}.", "{who} thought the {n} was {adv} {a}.",
    "If you want {a} {n}, this is the place.", "The {n2} here is {adv} {a2}, but the {n} is {a}.",
    "Came {when}; the {n} was {a} and {a2}.", "I would skip the {n}, it was {adv} {a}.",
    "Table {num} had the best {n} in town.", "{num} minutes for {a} {n} is too long.",
]
STOCK = ["Great value.", "Would come back.", "Highly recommended.", "Five stars.", "Not worth it.",
         "Friendly staff.", "Great food.", "Never again.", "Solid choice.", "Nothing special."]


def sentence(rng: random.Random) -> str:
    return rng.choice(TEMPLATES).format(
        n=rng.choice(NOUNS), n2=rng.choice(NOUNS), a=rng.choice(ADJECTIVES), a2=rng.choice(ADJECTIVES),
        adv=rng.choice(ADVERBS), who=rng.choice(WHO), when=rng.choice(WHEN), num=rng.randrange(2, 90))


def generate(directory: Path, n_items: int, n_reviews: int, stock_share: float, seed: int = 0) -> dict:
    """items.jsonl, reviews.jsonl and catalog.json in `directory` (orjson, no validation pass)."""
    import orjson

    rng = random.Random(seed)
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "items.jsonl").open("wb") as handle:
        for i in range(n_items):
            cuisine = CUISINES[i % len(CUISINES)]
            attributes = {"cuisine": cuisine, "price_range": rng.choice(["cheap", "moderate", "expensive"]),
                          "noise": rng.choice(["quiet", "average", "loud"])}
            if rng.random() < 0.5:
                attributes["outdoor_seating"] = rng.choice(["yes", "no"])
            description = (f"A {rng.choice(ADJECTIVES)} {cuisine} place known for its {rng.choice(NOUNS)}. "
                           f"{sentence(rng)}")
            handle.write(orjson.dumps({"id": f"p{i:06d}", "title": f"{cuisine.title()} House {i}",
                                       "category": "restaurant", "attributes": attributes,
                                       "description": description}, option=orjson.OPT_APPEND_NEWLINE))
    with (directory / "reviews.jsonl").open("wb") as handle:
        for j in range(n_reviews):
            parts = [rng.choice(STOCK) if rng.random() < stock_share else sentence(rng)
                     for _ in range(rng.randint(2, 7))]
            handle.write(orjson.dumps({"id": f"rv{j:07d}", "item_id": f"p{rng.randrange(n_items):06d}",
                                       "user_id": f"u{rng.randrange(n_reviews // 10 + 1):06d}",
                                       "rating": float(rng.randint(1, 5)), "text": " ".join(parts)},
                                      option=orjson.OPT_APPEND_NEWLINE))
    manifest = {"schema_version": 1, "name": f"dense-scale-{n_items}", "domain": "restaurant",
                "item_noun": "restaurants", "source": "scripts/bench_dense_scale.py",
                "counts": {"items": n_items, "reviews": n_reviews, "users": 0}}
    (directory / "catalog.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def build_once(catalog_dir: str, embedding_model: str | None) -> dict:
    """Run in a child process: load the catalog, build the dense recommender, time a turn."""
    started = time.perf_counter()
    from agents.recommenders import dense
    from environments.catalog.store import Catalog
    from environments.search.multivector import MultiVectorIndex
    from environments.single_target import SingleTargetSetup

    catalog = Catalog.load(catalog_dir)
    view = SingleTargetSetup(catalog).recommender_catalog
    loaded = time.perf_counter()
    captured: dict = {}
    real = MultiVectorIndex.build

    def capture(*args, **kwargs):
        captured["index"] = index = real(*args, **kwargs)
        return index

    MultiVectorIndex.build = capture  # type: ignore[method-assign]
    dense.build(view, embedding_model=embedding_model)
    built = time.perf_counter()
    index = captured["index"]
    utterances = ["somewhere quiet with crispy dumplings", "not too pricey", "a cozy patio would be nice",
                  "the staff should be friendly", "anything but loud music"]
    index.scores(utterances[:1])  # first query encode loads nothing new but warms the memo path
    turn_started = time.perf_counter()
    for _ in range(3):
        index.scores(utterances)
    turn_s = (time.perf_counter() - turn_started) / 3
    return {"load_catalog_s": round(loaded - started, 1), "build_s": round(built - loaded, 1),
            "fields": len(index.phrases), "items": len(view.items), "reviews": len(view.reviews),
            "turn_scoring_ms": round(1000 * turn_s, 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=FULL_ITEMS)
    parser.add_argument("--reviews", type=int, default=FULL_REVIEWS)
    parser.add_argument("--stock-share", type=float, default=0.15)
    parser.add_argument("--embedding-model", default="minilm-q8", help="the dense recommender's encoder")
    parser.add_argument("--catalog", type=Path, help="reuse this generated catalog directory")
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_dense_scale.json"))
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    model = None if args.embedding_model.lower() in ("none", "null") else args.embedding_model
    if args.child:
        print(json.dumps(build_once(args.child[0], None if args.child[1] == "null" else args.child[1])))
        return

    with tempfile.TemporaryDirectory() as scratch:
        catalog_dir = args.catalog or Path(scratch) / "catalog"
        started = time.perf_counter()
        if args.catalog is None or not (catalog_dir / "items.jsonl").exists():
            generate(catalog_dir, args.items, args.reviews, args.stock_share)
        generate_s = time.perf_counter() - started
        env = {**os.environ, "CRSIM_CACHE_DIR": str(Path(scratch) / "cache"), "OMP_NUM_THREADS": "1"}
        runs = {}
        for name in ("build", "rebuild"):
            started = time.perf_counter()
            out = subprocess.run([sys.executable, __file__, "--child", str(catalog_dir), str(model or "null")],
                                 env=env, check=True, capture_output=True, text=True)
            runs[name] = json.loads(out.stdout.strip().splitlines()[-1])
            runs[name]["process_wall_s"] = round(time.perf_counter() - started, 1)
            print(name, json.dumps(runs[name]), flush=True)
    result = {"items": args.items, "reviews": args.reviews, "embedding_model": args.embedding_model,
              "stock_share": args.stock_share, "generate_s": round(generate_s, 1), **runs,
              "targets": {"build_s": 600, "peak_rss_mb": 4096, "at": [FULL_ITEMS, FULL_REVIEWS]}}
    if (args.items, args.reviews) != (FULL_ITEMS, FULL_REVIEWS):
        factor = FULL_REVIEWS / args.reviews  # distinct texts grow with the reviews
        result["extrapolated_to_full_size"] = {
            "note": f"linear in the number of reviews (x{factor:g}), not measured",
            "build_s": round(runs["build"]["build_s"] * factor, 0),
            "fields": int(runs["build"]["fields"] * factor)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
