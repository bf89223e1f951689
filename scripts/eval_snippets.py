"""Score SnipRec's offline item-snippet extractor against a synthetic world's labelled reviews.

Aspect precision and recall per review, lacking-sentence recall, negation false positives
and chatter kept (`simulators/offline/snippets.py`), with the aspect terms the recommender
itself uses (the catalog's attribute keys and values plus mined review aspects). Writes
JSON (default `outputs/bench/eval_snippets.json`).

    python scripts/eval_snippets.py                       # the restaurant world, 5,000 reviews
    python scripts/eval_snippets.py --domain movie --reviews 0   # every review
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="restaurant")
    parser.add_argument("--reviews", type=int, default=5000, help="reviews scored (0: all)")
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/eval_snippets.json"))
    args = parser.parse_args()
    print(json.dumps(evaluate(args.domain, args.reviews, args.out), indent=2))


def evaluate(domain: str, limit: int, out: Path) -> dict[str, object]:
    from environments.worlds.cache import load_truth, load_world
    from simulators.offline.snippets import score_offline_extractor

    catalog = load_world(domain)
    _, reviews = load_truth(catalog.path)
    started = time.perf_counter()
    scores = score_offline_extractor(catalog, itertools.islice(reviews, limit or None))
    result = {"catalog": catalog.manifest.name, "extractor": "offline", **scores.as_dict(),
              "seconds": round(time.perf_counter() - started, 2)}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    main()
