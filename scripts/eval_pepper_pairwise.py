"""PEPPER simulator validation (paper §4.3, Table 4): can a seeker tell which of two of its
held-out targets its user rated higher?

For every user of the PEPPER pool, every pair of targets with different ratings (ties
excluded) is shown to the seeker as two item cards; a representation of the user's seen
items scores both, and the pick is right when the higher-rated one scores higher (a tie
in score counts half). Representations, all offline:

- `raw_review`: the seen reviews as they are (TF-IDF similarity to each, rating-weighted);
- `binary`: each seen review's likes and dislikes (VADER + value lexicon), unaggregated;
- `general`: the general preferences the target-free seeker is built from;
- `truth` (worlds only): the user's latent weights on the items' true attributes, the
  ceiling set by rating noise; each representation's agreement with the truth's pick is
  reported too.

Accuracy is the mean over pairs, with a percentile bootstrap over users (pairs of one user
are not independent). Writes JSON (default `outputs/bench/eval_pepper_pairwise.json`).

    python scripts/eval_pepper_pairwise.py                      # the PEPPER movie world
    python scripts/eval_pepper_pairwise.py --catalog DIR        # an imported catalog
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from omegaconf import OmegaConf

REPRESENTATIONS = ("raw_review", "binary", "general")
CONFIG = Path(__file__).resolve().parents[1] / "conf" / "environment" / "pepper.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, default=None, help="catalog directory (default: the world)")
    parser.add_argument("--users", type=int, default=500, help="user pool size")
    parser.add_argument("--cache-dir", default=None)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/eval_pepper_pairwise.json"))
    args = parser.parse_args()
    report = evaluate(catalog=args.catalog, users=args.users, cache_dir=args.cache_dir, resamples=args.resamples)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    for name, row in report["accuracy"].items():
        print(f"{name:>11}: {row['mean']:.3f} [{row['low']:.3f}, {row['high']:.3f}]"
              + (f"  agrees with truth {report['truth_agreement'][name]['mean']:.3f}"
                 if name in report.get("truth_agreement", {}) else ""))
    print(f"{report['pairs']} pairs of {report['users']} users; wrote {args.out}")


def evaluate(*, catalog: Path | None = None, users: int = 500, cache_dir: str | None = None,
             resamples: int = 2000, world: dict[str, Any] | None = None) -> dict[str, Any]:
    """The report; `world` overrides the PEPPER environment's world settings (a smaller world)."""
    from agents.steps.pepper.preferences import (
        ExtractPreferencesStep, GeneralInput, GeneralPreferencesStep, SeenEvidence, binary_score, card_text,
        raw_review_score, weights_of, weights_score,
    )
    from agents.steps.seeker.value_lexicon import ValueLexicon, attribute_values
    from environments.base import ItemCard
    from environments.multi_target import build_multi_target

    options: dict[str, Any] = OmegaConf.to_container(OmegaConf.load(CONFIG), resolve=False)  # type: ignore[assignment]
    for key in ("_target_", "metrics"):
        options.pop(key)
    options["world"].update(world or {})
    options["world"]["cache_dir"] = cache_dir
    options["user_pool_size"] = users
    setup = build_multi_target(catalog=str(catalog) if catalog else None, **{k: v for k, v in options.items()
                                                                             if k != "catalog"})
    lexicon = ValueLexicon.for_catalog(setup.recommender_catalog)
    extract = ExtractPreferencesStep(lexicon=lexicon)
    general_step = GeneralPreferencesStep(lexicon=lexicon)
    truth = _world_truth(setup.catalog)

    per_user: dict[str, list[list[float]]] = {name: [] for name in (*REPRESENTATIONS, *(("truth",) if truth else ()))}
    agreement: dict[str, list[list[float]]] = {name: [] for name in REPRESENTATIONS} if truth else {}
    n_pairs = 0
    for slot in setup.pool:
        profile = setup.profile_for(slot)
        reviews = [(s, extract.offline(_review_input(s))) for s in profile.seen]
        general = general_step.offline(GeneralInput(
            [SeenEvidence(s.item, s.rating, prefs) for s, prefs in reviews], "movies"))
        weights = weights_of(general, lexicon)
        raw = [(s.review, s.rating) for s in profile.seen if s.review and s.rating is not None]
        binaries = [prefs for _, prefs in reviews]
        scorers: dict[str, Callable[[ItemCard], float]] = {
            "raw_review": lambda card: raw_review_score(raw, card_text(card)),
            "binary": lambda card: binary_score(binaries, lexicon.card_features(card), lexicon),
            "general": lambda card: weights_score(weights, lexicon.card_features(card)),
        }
        if truth:
            user_weights, true_attributes = truth[0].get(slot.user_id, {}), truth[1]
            scorers["truth"] = lambda card: sum(
                user_weights.get((a, v), 0.0) for a, val in true_attributes[card.id].items()
                for v in attribute_values(val))
        pairs = [(a, b) for a, b in itertools.combinations(slot.targets, 2)
                 if a.rating is not None and b.rating is not None and a.rating != b.rating]
        if not pairs:
            continue
        n_pairs += len(pairs)
        cards = {t.item_id: ItemCard.of(setup.items_by_id[t.item_id]) for t in slot.targets}
        scores = {name: {i: f(card) for i, card in cards.items()} for name, f in scorers.items()}
        for name in per_user:
            per_user[name].append([_right(scores[name], a.item_id, b.item_id, a.rating > b.rating) for a, b in pairs])
        for name in agreement:
            agreement[name].append([_agree(scores[name], scores["truth"], a.item_id, b.item_id) for a, b in pairs])
    return {
        "catalog": setup.catalog.manifest.name, "users": len(per_user["general"]), "pairs": n_pairs,
        "accuracy": {name: _interval(rows, resamples) for name, rows in per_user.items()},
        **({"truth_agreement": {name: _interval(rows, resamples) for name, rows in agreement.items()}}
           if agreement else {}),
    }


def _review_input(seen: Any) -> Any:
    from agents.steps.pepper.preferences import ReviewInput

    return ReviewInput(seen.item, seen.rating, seen.review, "movies")


def _right(scores: dict[str, float], a: str, b: str, a_higher: bool) -> float:
    if scores[a] == scores[b]:
        return 0.5
    return 1.0 if (scores[a] > scores[b]) == a_higher else 0.0


def _agree(scores: dict[str, float], truth: dict[str, float], a: str, b: str) -> float:
    if truth[a] == truth[b]:
        return 0.5
    return _right(scores, a, b, truth[a] > truth[b])


def _interval(rows: list[list[float]], resamples: int) -> dict[str, float]:
    """Pair-weighted accuracy with a percentile bootstrap over users."""
    sums = np.array([sum(r) for r in rows])
    counts = np.array([len(r) for r in rows])
    rng = np.random.default_rng(0)
    draws = rng.integers(0, len(rows), size=(resamples, len(rows)))
    boot = sums[draws].sum(axis=1) / counts[draws].sum(axis=1)
    return {"mean": round(float(sums.sum() / counts.sum()), 4), "low": round(float(np.percentile(boot, 2.5)), 4),
            "high": round(float(np.percentile(boot, 97.5)), 4)}


def _world_truth(catalog: Any) -> tuple[dict[str, dict[tuple[str, str], float]], dict[str, Any]] | None:
    """(user -> latent weight per feature, item -> true attributes), or None off a world."""
    if catalog.path is None:
        return None
    from environments.worlds.cache import load_item_truth, load_truth

    items = load_item_truth(catalog.path)
    if not items:
        return None
    users, _ = load_truth(catalog.path)
    weights = {u.user_id: {(a, v): w for a, values in u.weights.items() for v, w in values.items()} for u in users}
    return weights, {i: t.attributes for i, t in items.items()}


if __name__ == "__main__":
    main()
