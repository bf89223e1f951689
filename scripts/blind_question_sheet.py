"""A sheet for rating recommender questions and seeker replies blind, across runs.

A table of hit rates says nothing of whether "Any preference on amp? Say, headphone or
tube?" is a question a shop assistant would ask someone after a cable; a reader does, if
they cannot tell which version wrote what. This draws N recommender questions that got a
reply from each run (seeded), shuffles them into one numbered Markdown sheet that shows
the customer's opening, the last four messages, the question and the reply, and writes the
key (which run each excerpt came from) to a separate JSON-lines file. Give the sheet alone
to a rater; `--score RATINGS.csv` (columns n, q, r, a) counts the labels per run.

With `--replies` the sheet is of seeker replies alone: every seeker turn after the opening,
each under the assistant's message it answered and how many products that message listed
(the blind ratings of `docs/validity.md` from 0.2.19 on; ratings columns n, r).

    python scripts/blind_question_sheet.py RUN_A RUN_B -n 100 --seed 51 --out sheet.md
    python scripts/blind_question_sheet.py RUN_A RUN_B --replies -n 50 --seed 571 --out replies.md
    python scripts/blind_question_sheet.py --key sheet.md.key --score ratings.csv
"""

from __future__ import annotations

import argparse
import csv
import json
import random
from collections import Counter
from pathlib import Path

CONTEXT_HEAD, CONTEXT_TAIL = 2, 4  # the opening exchange, then the last messages before the question


def _episodes(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "episodes.jsonl").read_text(encoding="utf-8").splitlines()]


def questions(run: Path) -> list[dict[str, object]]:
    """Every recommender turn that asked about an aspect and got a seeker reply, with the dialogue before it."""
    found = []
    for episode in _episodes(run):
        turns = episode["turns"]
        for position, turn in enumerate(turns):
            if turn["role"] != "recommender" or not turn.get("metadata", {}).get("aspect"):
                continue
            reply = next((t for t in turns[position + 1:] if t["role"] == "seeker"), None)
            if reply is None or not reply["text"].strip():
                continue
            before = [f"{'Customer' if t['role'] == 'seeker' else 'Assistant'}: {t['text']}"
                      for t in turns[:position] if t["text"].strip()]
            found.append({"run": str(run), "episode": episode["index"], "turn": position, "before": before,
                          "question": turn["text"], "reply": reply["text"]})
    return found


def replies(run: Path) -> list[dict[str, object]]:
    """Every seeker turn after the opening, with the recommender turn before it."""
    found = []
    for episode in _episodes(run):
        turns = episode["turns"]
        for position, turn in enumerate(turns):
            if turn["role"] == "seeker" and position and not turn.get("metadata", {}).get("opening"):
                before = turns[position - 1]
                found.append({"run": str(run), "episode": episode.get("id", episode.get("index")), "turn": position,
                              "question": before["text"],
                              "shown": len(before.get("items_shown", [])), "reply": turn["text"]})
    return found


REPLY_SHEET_HEAD = ("Each item: what the shop assistant wrote (and how many products its message showed, in a list "
                    "beside it), then the customer's reply.\n\n")


def reply_excerpt(number: int, row: dict[str, object]) -> str:
    shown = row["shown"]
    screen = f" [shows {shown} products, numbered 1-{shown}]" if shown else ""
    return f"{number}. Assistant: {row['question']}{screen}\n   Customer: {row['reply']}\n\n"


def excerpt(number: int, row: dict[str, object]) -> str:
    before = list(row["before"])  # type: ignore[arg-type]
    if len(before) > CONTEXT_HEAD + CONTEXT_TAIL:
        before = before[:CONTEXT_HEAD] + ["(...)"] + before[-CONTEXT_TAIL:]
    return "\n".join([f"### {number}", *before, f"Assistant (rate this question): {row['question']}",
                      f"Customer (rate this reply): {row['reply']}", "", ""])


def write_sheet(runs: list[Path], n: int, seed: int, out: Path, reply_only: bool = False) -> Path:
    """The shuffled sheet at `out` and its key at `out` + ".key"; returns the key's path."""
    rng = random.Random(seed)
    rows = []
    for run in runs:
        found = replies(run) if reply_only else questions(run)
        if len(found) < n:
            raise SystemExit(f"{run}: {len(found)} {'replies' if reply_only else 'questions with a reply'}, "
                             f"fewer than -n {n}")
        if reply_only:
            rng.shuffle(found)
            rows += found[:n]
        else:
            rows += rng.sample(found, n)
    rng.shuffle(rows)
    key = out.with_name(out.name + ".key")
    text = (REPLY_SHEET_HEAD + "".join(reply_excerpt(i, row) for i, row in enumerate(rows, 1)) if reply_only
            else "".join(excerpt(i, row) for i, row in enumerate(rows, 1)))
    out.write_text(text, encoding="utf-8")
    key.write_text("".join(json.dumps({"n": i, "run": row["run"], "episode": row["episode"], "turn": row["turn"]}) + "\n"
                           for i, row in enumerate(rows, 1)), encoding="utf-8")
    return key


def score(key: Path, ratings: Path) -> dict[str, Counter[str]]:
    """Label counts per run: q_/r_ sensible, awkward, nonsense; a_yes / a_no (the columns the ratings have)."""
    runs = {row["n"]: row["run"] for row in map(json.loads, key.read_text(encoding="utf-8").splitlines())}
    counts: dict[str, Counter[str]] = {}
    with ratings.open(encoding="utf-8") as handle:
        for line, row in enumerate(csv.DictReader(handle), 2):
            try:
                run = runs[int(row["n"])]
            except (KeyError, ValueError):
                raise SystemExit(f"{ratings}:{line}: field n: {row.get('n')!r} is no excerpt of {key}") from None
            counts.setdefault(run, Counter()).update(f"{field}_{row[field].strip()}" for field in ("q", "r", "a")
                                                     if row.get(field))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path, help="run directories (each with episodes.jsonl)")
    parser.add_argument("-n", type=int, default=100, help="questions drawn from each run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--replies", action="store_true", help="a sheet of seeker replies alone (n = replies per run)")
    parser.add_argument("--out", type=Path, default=Path("outputs/bench/question_sheet.md"))
    parser.add_argument("--key", type=Path, help="with --score: the key a sheet was written with")
    parser.add_argument("--score", type=Path, help="a ratings CSV (n,q,r,a) to count per run")
    args = parser.parse_args()
    if args.score is not None:
        for run, counts in score(args.key or args.out.with_name(args.out.name + ".key"), args.score).items():
            print(run, dict(sorted(counts.items())))
        return
    if not args.runs:
        parser.error("give run directories, or --score")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    key = write_sheet(args.runs, args.n, args.seed, args.out, reply_only=args.replies)
    print(f"{args.n * len(args.runs)} excerpts in {args.out}; key in {key}")


if __name__ == "__main__":
    main()
