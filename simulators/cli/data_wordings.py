"""`crsim data wordings DIR --split SPLIT --out FILE`: take people's wordings of each seeker act.

Labels the seeker turns of the chosen splits of an imported dialogue corpus with the act
labeller, delexicalises the ones that do one thing (titles -> `{title}`, the catalog's
kinds -> `{kind}`), drops those that still name something, and writes the wordings per
act family with their counts (`environments.acts.wordings`). Take them from training
splits only: the file records which splits it came from.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from simulators.cli.commands import command


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crsim data wordings", description=(
        "Take people's wordings of each seeker act (a reaction, a question about a suggestion, a liked title, a "
        "preference, asking for more, goodbye, small talk) from the training dialogues of an imported corpus, "
        "with titles and kinds as slots, and write them as JSON."))
    p.add_argument("dir", type=Path, help="an imported dialogue corpus (crsim data import redial|inspired|...)")
    p.add_argument("--split", action="append", required=True, metavar="SPLIT",
                   help="a training split to take wordings from (profile.split, e.g. train_data); repeat for several")
    p.add_argument("--out", type=Path, required=True, metavar="FILE", help="the wordings file to write")
    p.add_argument("--kind-attribute", default="genre", metavar="NAME",
                   help="the item attribute whose values are kinds, made {kind} slots (default: genre)")
    p.add_argument("--max-per-family", type=int, default=0, metavar="N",
                   help="keep at most N wordings per family / reaction, the most said first (default: all)")
    return p


@command(interrupted="nothing was written")
def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    from environments.acts.wordings import cap_wordings, fit_wordings, save_wordings
    from simulators.cli.data_policy import training_dialogues

    catalog, episodes = training_dialogues(args.dir, args.split)
    titles = {item.id: item.title for item in catalog.items}
    kinds = {str(v) for item in catalog.items for v in _values(item.attributes.get(args.kind_attribute))}
    names = {str(v) for item in catalog.items for key, value in item.attributes.items() if key != args.kind_attribute
             for v in _values(value)}
    bank = fit_wordings(episodes, titles, kinds, corpus=args.dir.name, splits=args.split, names=names,
                        prose=[item.description for item in catalog.items if item.description],
                        item_noun=catalog.manifest.item_noun)
    if args.max_per_family > 0:
        bank = cap_wordings(bank, args.max_per_family)
    save_wordings(bank, args.out)
    source = bank.source
    print(f"took {source.kept} of {source.seeker_turns} seeker turns of {source.conversations} conversations of "
          f"{', '.join(args.split)}; {sum(len(w) for w in bank.wordings.values())} distinct wordings; wrote {args.out}")
    for key, wordings in bank.wordings.items():
        print(f"  {key:<22} {len(wordings):>5} wordings  {sum(w.count for w in wordings):>5} turns")
    print("  left out: " + ", ".join(f"{why} {n}" for why, n in source.dropped.items()))
    return 0


def _values(value: object) -> list[object]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple, set)) else [value]
