"""`crsim data policy DIR --split SPLIT --out FILE`: fit a seeker policy on people's dialogues.

Labels every turn of the chosen splits of an imported dialogue corpus with the act
labeller, counts what people did next after each recommender act (and turn), and fits
their reaction rates from the corpus's own record (`environments.acts.policy`). The file
is plain JSON, to read and to give a seeker: `seeker.policy=FILE`. Fit on training splits
only; the file records which splits it came from, and `crsim validate` refuses to measure
a seeker on conversations its policy was fitted on.
"""

from __future__ import annotations

import argparse
from typing import Any
from pathlib import Path

from environments.errors import CrsimError
from simulators.cli.commands import command


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crsim data policy", description=(
        "Fit a seeker policy (what people do next after each recommender act; how they react to suggestions) on "
        "the training dialogues of an imported corpus, and write it as JSON for seeker.policy=FILE."))
    p.add_argument("dir", type=Path, help="an imported dialogue corpus (crsim data import redial|inspired|...)")
    p.add_argument("--split", action="append", required=True, metavar="SPLIT",
                   help="a training split to fit on (profile.split, e.g. train_data); repeat for several")
    p.add_argument("--out", type=Path, required=True, metavar="FILE", help="the policy file to write")
    return p


@command(interrupted="nothing was written")
def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    from environments.acts.policy import fit_policy, mentions_by_item, save_policy

    catalog, episodes = training_dialogues(args.dir, args.split)
    titles = {item.id: item.title for item in catalog.items}
    mentions = mentions_by_item(catalog.items)
    policy = fit_policy(episodes, titles, mentions, corpus=args.dir.name, splits=args.split)
    save_policy(policy, args.out)
    rates = policy.reactions
    print(f"fitted on {policy.source.conversations} conversations ({policy.source.seeker_turns} seeker turns) of "
          f"{', '.join(args.split)}; wrote {args.out}")
    for context in policy.contexts:
        if context in policy.counts:
            shares = policy.distribution(context)
            print(f"  after {context:<10} " + "  ".join(f"{f} {shares[f]:.2f}" for f in policy.families))
    if rates is not None:
        print(f"  reactions: {rates.items} suggested items, seen {rates.seen_share:.2f}, liked {rates.like_share:.2f}")
    return 0


def training_dialogues(directory: Path, splits: list[str]) -> tuple[Any, list[Any]]:
    """The catalog of an imported dialogue corpus and its dialogues of `splits`."""
    from environments.catalog import load_catalog_dir
    from environments.catalog.jsonl import iter_jsonl
    from environments.catalog.store import DIALOGUES
    from environments.models import Episode

    catalog = load_catalog_dir(directory)
    path = directory / DIALOGUES
    if not path.is_file():
        raise CrsimError(f"{directory}: no {DIALOGUES} (import a dialogue corpus: crsim data import redial|inspired)")
    episodes, found = [], set()
    for episode in iter_jsonl(path, Episode):
        found.add(str(episode.profile.get("split")))
        if episode.profile.get("split") in splits:
            episodes.append(episode)
    if not episodes:
        raise CrsimError(f"{path}: no dialogue of split(s) {', '.join(splits)} (found: {', '.join(sorted(found))})")
    return catalog, episodes
