"""Accuracy of the rule-based act labeller against human intent labels (IARD, INSPIRED).

Every dialogue of a labelled file is read as an `Episode` (`environments.acts.iard`) and
labelled by `label_episode`, as a corpus or simulated dialogue would be; its turns' human
intents go through the scheme's mapping table. For each file and role: per-act precision,
recall, F1 and support (turns whose gold set holds the act), micro-F1 over acts, and the
share of turns whose act set is exactly right, each with a 95% percentile bootstrap
interval that resamples dialogues (turns of one dialogue are not independent). Turns with
an intent that has no counterpart are not scored; their intents are counted.

    python scripts/eval_act_labeller.py --gold iard_gold.json --tuning iard_partial.json \\
        --out outputs/acts/labeller.json

`--tuning` files are scored the same way but marked as the set the rules were tuned on;
their dialogues whose id is also in a `--gold` file are dropped first (and counted).
`--dump` writes every scored turn (text, gold, predicted, the rules that fired) as JSONL.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from environments.acts.iard import (GoldDialogue, GoldLabelError, file_has_end, fold, gold_acts, read_gold,
                                    to_episode, SCHEMES)
from environments.acts.inventory import RECOMMENDER_ACTS, SEEKER_ACTS
from environments.acts.labeller import explain_recommender_turn, explain_seeker_turn, label_episode
from simulators.results.stats import cluster_bootstrap, percentile_interval

ORDER = {"seeker": SEEKER_ACTS, "recommender": RECOMMENDER_ACTS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", type=Path, action="append", required=True, help="held-out labelled file")
    parser.add_argument("--tuning", type=Path, action="append", default=[], help="labelled file the rules were tuned on")
    parser.add_argument("--out", type=Path, default=Path("outputs/acts/labeller.json"))
    parser.add_argument("--dump", type=Path, default=None, help="write every scored turn here (JSONL)")
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        report = evaluate(args.gold, args.tuning, resamples=args.resamples, seed=args.seed, dump=args.dump)
    except GoldLabelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    for entry in report["files"]:
        print(render(entry))
    print(f"wrote {args.out}")
    return 0


def evaluate(gold: list[Path], tuning: list[Path] = (), *, resamples: int = 2000, seed: int = 0,
             dump: Path | None = None) -> dict[str, Any]:
    """The report: one entry per file (gold files first), each with its roles' scores."""
    loaded = [(path, read_gold(path), False) for path in gold] + [(path, read_gold(path), True) for path in tuning]
    held_out = {d.id for path, dialogues, is_tuning in loaded if not is_tuning for d in dialogues}
    rows: list[dict[str, Any]] = []
    files = []
    for path, dialogues, is_tuning in loaded:
        kept = [d for d in dialogues if not (is_tuning and d.id in held_out)]
        entry = {"file": str(path), "tuning": is_tuning, "scheme": kept[0].scheme if kept else dialogues[0].scheme,
                 "dialogues": len(kept), "dropped_overlap": len(dialogues) - len(kept),
                 "annotates_end": file_has_end(dialogues), "roles": {}}
        scored = _score_turns(kept, entry["annotates_end"], rows if dump else None, str(path))
        for role, turns in scored.items():
            entry["roles"][role] = _role_scores(turns, len(kept), role, resamples=resamples, seed=seed)
        files.append(entry)
    if dump:
        dump.parent.mkdir(parents=True, exist_ok=True)
        dump.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {"files": files, "resamples": resamples, "seed": seed,
            "mapping": {scheme: {role: {k: list(v) if v else None for k, v in table.items()}
                                 for role, table in roles.items()} for scheme, roles in SCHEMES.items()}}


def _score_turns(dialogues: list[GoldDialogue], has_end: bool, rows: list[dict[str, Any]] | None,
                 file: str) -> dict[str, dict[str, Any]]:
    """Per role: (dialogue index, gold set, predicted set) of every scorable turn, and unscored intents."""
    out: dict[str, dict[str, Any]] = {}
    for index, dialogue in enumerate(dialogues):
        labels = label_episode(to_episode(dialogue))
        for position, (turn, predicted) in enumerate(zip(dialogue.turns, labels)):
            if turn.role not in SCHEMES[dialogue.scheme]:
                continue
            role = out.setdefault(turn.role, {"turns": [], "unscored": Counter()})
            gold, missing = gold_acts(turn, dialogue.scheme)
            if gold is None:
                role["unscored"].update(missing or ["(no intent)"])
                continue
            pred = fold(predicted, turn.role, dialogue.scheme, has_end=has_end)
            role["turns"].append((index, gold, pred))
            if rows is not None:
                rows.append({"file": file, "dialogue": dialogue.id, "turn": position, "role": turn.role,
                             "text": turn.text, "intents": list(turn.intents), "gold": sorted(gold),
                             "predicted": sorted(pred), "why": _why(dialogue, labels, position)})
    return out


def _why(dialogue: GoldDialogue, labels: list[list[str]], position: int) -> list[list[str]]:
    turn = dialogue.turns[position]
    if turn.role == "recommender":
        before = labels[position - 1] if position else ()
        return [list(f) for f in explain_recommender_turn(turn.text, items_shown=turn.titles, previous=before)]
    shown: list[str] = []
    for earlier in dialogue.turns[:position]:
        if earlier.role == "recommender":
            shown = list(dict.fromkeys(list(earlier.titles) + shown))
    previous = next((labels[i] for i in range(position - 1, -1, -1) if dialogue.turns[i].role == "recommender"), ())
    first = not any(t.role == "seeker" and t.text.strip() for t in dialogue.turns[:position])
    return [list(f) for f in explain_seeker_turn(turn.text, shown_titles=shown, mentioned_titles=turn.titles,
                                                 previous=previous, first=first)]


def _role_scores(scored: dict[str, Any], n_dialogues: int, role: str, *, resamples: int, seed: int) -> dict[str, Any]:
    turns = scored["turns"]
    present = {a for _, gold, pred in turns for a in gold | pred}
    acts = [a for a in ORDER[role] if a in present]
    # counts[d, a] = (true positives, false positives, false negatives); exact[d] = (right, turns)
    counts = np.zeros((n_dialogues, len(acts), 3))
    exact = np.zeros((n_dialogues, 2))
    for index, gold, pred in turns:
        for k, act in enumerate(acts):
            counts[index, k] += (act in gold and act in pred, act in pred and act not in gold,
                                 act in gold and act not in pred)
        exact[index] += (gold == pred, 1)

    def statistic(idx: np.ndarray) -> np.ndarray:
        c, e = counts[idx].sum(axis=0), exact[idx].sum(axis=0)
        per_act = [_prf(*row) for row in c]
        micro = _prf(*c.sum(axis=0))
        return np.array([v for trio in per_act for v in trio] + list(micro)
                        + [e[0] / e[1] if e[1] else np.nan])

    point = statistic(np.arange(n_dialogues))
    draws = cluster_bootstrap(statistic, n_dialogues, n_resamples=resamples, seed=seed)

    def figure(column: int) -> dict[str, float | None]:
        value = point[column]
        low, high = (percentile_interval(draws[:, column], point=None if np.isnan(value) else float(value))
                     if len(draws) else (float("nan"),) * 2)
        return {"value": _num(value), "low": _num(low), "high": _num(high)}

    per_act = {}
    for k, act in enumerate(acts):
        tp, fp, fn = counts[:, k].sum(axis=0)
        per_act[act] = {"precision": figure(3 * k), "recall": figure(3 * k + 1), "f1": figure(3 * k + 2),
                        "support": int(tp + fn), "predicted": int(tp + fp)}
    base = 3 * len(acts)
    return {"turns": len(turns), "unscored": dict(scored["unscored"].most_common()), "acts": per_act,
            "micro": {"precision": figure(base), "recall": figure(base + 1), "f1": figure(base + 2)},
            "exact": figure(base + 3)}


def _prf(tp: float, fp: float, fn: float) -> tuple[float, float, float]:
    precision = tp / (tp + fp) if tp + fp else np.nan
    recall = tp / (tp + fn) if tp + fn else np.nan
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else np.nan
    return precision, recall, f1


def _num(value: float) -> float | None:
    return None if value is None or np.isnan(value) else round(float(value), 4)


def render(entry: dict[str, Any]) -> str:
    """The file's scores as a text table."""
    def cell(f: dict[str, Any]) -> str:
        if f["value"] is None:
            return f"{'-':>19}"
        return f"{f['value']:.2f} [{f['low']:.2f},{f['high']:.2f}]".rjust(19)

    mark = " (TUNING SET)" if entry["tuning"] else ""
    lines = [f"== {entry['file']}{mark}: {entry['scheme']}, {entry['dialogues']} dialogues"
             + (f", {entry['dropped_overlap']} dropped as also held out" if entry["dropped_overlap"] else "")
             + ("" if entry["annotates_end"] else "; no END labels: close scored as chitchat")]
    for role, scores in entry["roles"].items():
        unscored = ", ".join(f"{k} {v}" for k, v in scores["unscored"].items()) or "none"
        lines.append(f"-- {role}: {scores['turns']} turns scored; unscored intents: {unscored}")
        lines.append(f"{'act':<14}{'precision':>19}{'recall':>19}{'F1':>19}{'support':>9}{'predicted':>10}")
        for act, row in scores["acts"].items():
            lines.append(f"{act:<14}{cell(row['precision'])}{cell(row['recall'])}{cell(row['f1'])}"
                         f"{row['support']:>9}{row['predicted']:>10}")
        micro = scores["micro"]
        lines.append(f"{'micro':<14}{cell(micro['precision'])}{cell(micro['recall'])}{cell(micro['f1'])}")
        lines.append(f"{'exact set':<14}{cell(scores['exact'])}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
