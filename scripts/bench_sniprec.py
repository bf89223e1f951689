"""SnipRec's costs and its encoder choice: speed per encoder with the Hits@10 it buys,
per-turn latency by stage, and retrieval + scoring at index sizes beyond the world's.

Writes JSON (default `outputs/bench/bench_sniprec.json`) with three parts:

- `encoders`: per encoder (`minilm`, the packaged MiniLM; `static`, the token table
  distilled from it, `environments/search/static_embeddings.py`; `minilm-int8`, MiniLM as
  int8 ONNX, `environments/search/onnx_embeddings.py`; `minilm-q8`, MiniLM with int8 products,
  `environments/search/quantized_minilm.py`), the world's distinct
  snippet texts embedded per second, and Hits@10 / MRR at turn 5 with 95% CIs of
  `crsim run experiment=sniprec recommender=sniprec recommender.embedding_model=...`
  (the seeker keeps MiniLM, so only the recommender's encoder differs).
- `stages`: mean milliseconds per turn of parse, expand (all three transformations),
  retrieve (embed + faiss), validate, score and question (the clarification over the top
  candidates), on the seeker answers of those runs, and the whole recommender turn from
  the runs' `timings.jsonl`.
- `scale`: index build time and retrieve + validate + score per turn (3 query snippets,
  k = 500) over synthetic unit vectors at the given sizes: exact faiss up to 100k, HNSW
  above (M = 32, efSearch = k), as `SnippetIndex.build` chooses.

    python scripts/bench_sniprec.py                          # 100 episodes per encoder, 100k and 1M
    python scripts/bench_sniprec.py --episodes 30 --sizes 100000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ENCODERS = {"minilm": "null", "static": "static", "minilm-int8": "minilm-int8", "minilm-q8": "minilm-q8"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--encoders", nargs="*", default=list(ENCODERS), choices=list(ENCODERS))
    parser.add_argument("--sizes", nargs="*", type=int, default=[100_000, 1_000_000])
    parser.add_argument("--runs", type=Path, default=Path("outputs/bench/sniprec"))
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_sniprec.json"))
    args = parser.parse_args()

    result: dict[str, Any] = {"episodes": args.episodes, "encoders": {}, "stages": {}, "scale": []}
    for name in args.encoders:
        result["encoders"][name] = encoder_report(name, args.episodes, args.runs / name)
        print(name, json.dumps(result["encoders"][name]), flush=True)
    if args.encoders:
        result["stages"] = stage_latency(args.runs / args.encoders[0], args.encoders[0])
        print("stages", json.dumps(result["stages"]), flush=True)
    for size in args.sizes:
        result["scale"].append(scale_report(size))
        print("scale", json.dumps(result["scale"][-1]), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


def encoder_report(name: str, episodes: int, run_dir: Path) -> dict[str, Any]:
    from agents.recommenders.retrieval import mined_aspects
    from agents.recommenders.sniprec.units import aspect_terms_of, item_units
    from agents.steps.sniprec.snippets import ItemSnippetStep
    from environments.search.encoders import get_encoder
    from environments.worlds.cache import load_world

    catalog = load_world("restaurant")
    units = item_units(catalog, "snippet", ItemSnippetStep(None, "recommender"),
                       aspect_terms=aspect_terms_of(catalog, mined_aspects(catalog, 30)), progress=False)
    texts = list(dict.fromkeys(unit.text for unit in units))
    encoder = get_encoder(None if name == "minilm" else name)
    encoder.encode(["warm up"])  # loading (or distilling) the model is not embedding speed
    started = time.perf_counter()
    encoder.encode_uncached(texts)
    per_second = len(texts) / (time.perf_counter() - started)

    subprocess.run([sys.executable, "-m", "simulators.cli.main", "run", "experiment=sniprec", "recommender=sniprec",
                    f"recommender.embedding_model={ENCODERS[name]}", f"episodes={episodes}", "progress=false",
                    f"hydra.run.dir={run_dir}"], check=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    rows = _results(run_dir / "results.csv")
    return {"distinct_snippets": len(texts), "snippets_per_second": round(per_second, 1),
            "hits@10_turn5": rows[(5, "hits@10")], "mrr_turn5": rows[(5, "mrr")]}


def _results(path: Path) -> dict[tuple[int, str], list[float]]:
    import pandas as pd

    frame = pd.read_csv(path)
    return {(int(row.turn), str(row.metric)): [round(float(row.mean), 4), round(float(row.ci_low), 4),
                                               round(float(row.ci_high), 4)] for row in frame.itertuples()}


def stage_latency(run_dir: Path, encoder: str, answers_wanted: int = 200) -> dict[str, Any]:
    """Stages timed on the logged seeker answers of a run (what the recommender really read),
    with the run's encoder."""
    from agents.recommenders.sniprec import build
    from agents.recommenders.sniprec.graph import rrf_update, validate
    from agents.steps.recommender.clarify import ClarifyInput
    from agents.steps.sniprec.snippets import ExpandInput, QuerySnippetInput, expanded
    from agents.steps.text import singular
    from environments.worlds.cache import load_world
    from simulators.results.runlog import load_run

    agent = build(load_world("restaurant"), expand=("paraphrase", "support", "opposite"), progress=False,
                  embedding_model=None if encoder == "minilm" else encoder)
    ctx = agent.context
    noun = singular(ctx.catalog.item_noun)
    pairs = [(question.text, answer.text, episode.turns[:position + 2], answer.index // 2 + 1)
             for episode in load_run(run_dir).episodes
             for position, (question, answer) in enumerate(zip(episode.turns, episode.turns[1:]))
             if question.role == "recommender" and answer.role == "seeker"][:answers_wanted]
    seconds = {stage: 0.0 for stage in ("parse", "expand", "retrieve", "validate", "score", "question")}
    scores = np.zeros(len(ctx.catalog.items))

    async def run() -> None:
        nonlocal scores
        for question, answer, dialogue, turn in pairs:
            t0 = time.perf_counter()
            queries = (await ctx.query_step.run(QuerySnippetInput(question, answer, noun))).snippets
            t1 = time.perf_counter()
            hits = ctx.index.search(ctx.index.embed([q.text for q in queries]), 5) if queries else None
            out = []
            for i, query in enumerate(queries):
                near = [(ctx.index.texts[t], float(s)) for t, s in zip(hits.texts[i], hits.scores[i]) if t >= 0]
                out.extend(expanded(query, await ctx.expand_step.run(
                    ExpandInput(query, noun, ("paraphrase", "support", "opposite"), near))))
            t2 = time.perf_counter()
            found = ctx.index.search(ctx.index.embed([q.text for q in out]), ctx.settings.k) if out else None
            t3 = time.perf_counter()
            groups = validate(ctx.index, out, found, ctx.settings, check_negation=True) if found is not None else []
            t4 = time.perf_counter()
            scores = rrf_update(scores, ctx.index, groups, [q.sign for q in out], ctx.settings.kappa)
            t5 = time.perf_counter()
            top = np.argsort(-scores, kind="stable")[:ctx.question_pool]
            await ctx.clarify.run(ClarifyInput(dialogue, [ctx.catalog.items[i] for i in top], [], ctx.catalog.item_noun,
                                               turn, tuple(ctx.catalog.aspects), ctx.mined))
            t6 = time.perf_counter()
            for stage, (start, end) in zip(seconds, ((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5), (t5, t6))):
                seconds[stage] += end - start

    asyncio.run(run())
    report = {f"{stage}_ms": round(1000 * total / max(len(pairs), 1), 2) for stage, total in seconds.items()}
    turns = [t for line in (run_dir / "timings.jsonl").read_text().splitlines()
             for t in json.loads(line)["seconds"].get("recommender", [])]
    report["turn_total_ms_in_run"] = round(1000 * float(np.mean(turns)), 1) if turns else float("nan")
    report["answers"] = len(pairs)
    report["encoder"] = encoder
    return report


def scale_report(size: int, dim: int = 256, n_items: int = 50_000, k: int = 500, turns: int = 20) -> dict[str, Any]:
    """Synthetic snippets: random unit vectors, each text of 1-3 random items."""
    import faiss

    from agents.recommenders.sniprec.graph import SnipRecSettings, rrf_update, validate
    from agents.steps.sniprec.snippets import QuerySnippet
    from environments.search.dense import HNSW_THRESHOLD, _hnsw
    from environments.search.snippets import SnippetIndex

    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(size, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    items = [list(rng.choice(n_items, size=rng.integers(1, 4), replace=False)) for _ in range(size)]
    started = time.perf_counter()
    if size > HNSW_THRESHOLD:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            faiss_index = _hnsw(vectors, Path(tmp) / "bench.hnsw.faiss")
    else:
        faiss_index = faiss.IndexFlatIP(dim)
        faiss_index.add(vectors)
    build_seconds = time.perf_counter() - started
    index = SnippetIndex([f"t{i}" for i in range(size)], items, np.zeros(size, bool), np.zeros(size, np.float32),
                         [None] * size, faiss_index, encoder=None, n_items=n_items)  # type: ignore[arg-type]
    queries = [QuerySnippet(text=f"q{i}") for i in range(3)]
    # random vectors have no content phrases: the whole-text validator, whose cost is the same
    # but for one encoding of the query contents (in the stage timings above)
    settings = SnipRecSettings(k=k, validator="cosine", threshold=0.0)
    scores = np.zeros(n_items)
    per_turn = []
    for _ in range(turns):
        query_vectors = vectors[rng.integers(0, size, 3)] + rng.normal(scale=0.05, size=(3, dim)).astype(np.float32)
        query_vectors /= np.linalg.norm(query_vectors, axis=1, keepdims=True)
        started = time.perf_counter()
        groups = validate(index, queries, index.search(query_vectors, k), settings, check_negation=True)
        scores = rrf_update(scores, index, groups, [1, 1, -1], 60.0)
        per_turn.append(time.perf_counter() - started)
    return {"snippets": size, "index": "hnsw" if size > HNSW_THRESHOLD else "flat", "dim": dim,
            "build_seconds": round(build_seconds, 1),
            "retrieve_validate_score_ms_per_turn": round(1000 * float(np.median(per_turn)), 2), "k": k}


if __name__ == "__main__":
    main()
