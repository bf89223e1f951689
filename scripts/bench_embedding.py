"""Benchmark: bulk-embedding texts/s of each encoder on what the dense recommender embeds.

For a catalog (the default restaurant world, and any `--catalog DIR`), takes the texts
`recommender=dense` embeds on its first run — one document per item (`dense_document`)
and the distinct item fields (attribute phrases, review sentences: `field_table`) of the
recommender's view — and embeds each list in bulk with each encoder, as a first run does
with an empty cache. Per encoder and list: texts/s and mean word pieces; overall texts/s;
one-text passes (the per-turn path) in ms; the encoder's one-time load (for `minilm-q8`,
building its graph). Each encoder runs in a fresh process, so one's threads, memory and
caches do not slow the next.

    python scripts/bench_embedding.py
    python scripts/bench_embedding.py --catalog /data/musical-instruments --encoders minilm-q8

Writes JSON (default `outputs/bench/bench_embedding.json`). Target (issue "A fast first
run"): >= 1,000 texts/s on two cores; quality is the fidelity bench's dense row
(`scripts/bench_fidelity.py`), not measured here.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_ENCODERS = ["minilm-int8", "minilm-q8", "static"]
TURN_TEXTS = 200


def measure(catalog_arg: str, encoder_name: str) -> dict:
    """One encoder on one catalog's dense texts (run in a child process)."""
    from environments.catalog.loading import load_catalog_dir
    from environments.search.documents import dense_document
    from environments.search.encoders import get_encoder
    from environments.search.multivector import field_table
    from environments.single_target import SingleTargetSetup
    from environments.worlds import load_world

    catalog = load_world("restaurant") if catalog_arg == "world" else load_catalog_dir(catalog_arg)
    view = SingleTargetSetup(catalog).recommender_catalog
    lists = {"documents": [dense_document(item) for item in view.items], "fields": field_table(view)[0]}
    encoder = get_encoder(None if encoder_name == "null" else encoder_name)
    started = time.perf_counter()
    encoder.encode(["warm up"])  # loads (and for minilm-q8 builds, once per cache) the model
    result: dict = {"encoder": encoder_name, "model_id": encoder.model_id,
                    "load_s": round(time.perf_counter() - started, 2)}
    pieces = _word_pieces()
    total_texts, total_s = 0, 0.0
    for name, texts in lists.items():
        started = time.perf_counter()
        getattr(encoder, "encode_uncached", encoder.encode)(texts)
        seconds = time.perf_counter() - started
        total_texts, total_s = total_texts + len(texts), total_s + seconds
        sample = texts[:2000]
        result[name] = {"texts": len(texts), "seconds": round(seconds, 2),
                        "texts_per_s": round(len(texts) / seconds, 1),
                        "mean_word_pieces": round(sum(len(pieces(t)) for t in sample) / max(len(sample), 1), 1)}
    result["all_texts_per_s"] = round(total_texts / total_s, 1)
    turn = lists["fields"][-TURN_TEXTS:]
    encoder.clear_memo()
    started = time.perf_counter()
    for text in turn:
        encoder.encode([text])
    result["one_text_pass_ms"] = round((time.perf_counter() - started) / len(turn) * 1000, 2)
    return result


def _word_pieces():
    from tokenizers import Tokenizer

    from environments.search.embeddings import _default_model_path

    tokenizer = Tokenizer.from_file(str(_default_model_path() / "tokenizer.json"))
    tokenizer.no_padding()  # the file pads to 128
    tokenizer.no_truncation()
    return lambda text: tokenizer.encode(text).ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoders", nargs="*", default=DEFAULT_ENCODERS,
                        help="embedding_model names (null: the full MiniLM)")
    parser.add_argument("--catalog", nargs="*", default=[], help="catalog directories besides the default world")
    parser.add_argument("--no-world", action="store_true", help="skip the default restaurant world")
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/bench_embedding.json"))
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(*args.child)))
        return
    catalogs = ([] if args.no_world else ["world"]) + [str(Path(path).resolve()) for path in args.catalog]
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        # an empty cache, as on a first run: the world is generated into it once, graphs built in it once
        env = {**os.environ, "CRSIM_CACHE_DIR": scratch, "OMP_NUM_THREADS": "1"}
        for catalog in catalogs:
            for encoder in args.encoders:
                out = subprocess.run([sys.executable, __file__, "--child", catalog, encoder], env=env, check=True,
                                     capture_output=True, text=True)
                row = {"catalog": "default restaurant world" if catalog == "world" else catalog,
                       **json.loads(out.stdout.strip().splitlines()[-1])}
                results.append(row)
                print(json.dumps(row), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"cpus": os.cpu_count(), "results": results,
                                    "target": {"texts_per_s": 1000}}, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
