"""`crsim validate reactions DIR --seeker NAME...`: the real recommender's moves held fixed, does a
simulated seeker like or dislike what the real seeker did? (`simulators.validity.reactions`)"""

from __future__ import annotations

import argparse
from pathlib import Path

from simulators.cli.commands import command
from simulators.cli.grounded_seekers import add_seeker_arguments, grounded_seekers

DESCRIPTION = """\
Replay each grounded conversation of an imported corpus with the real recommender's turns
held fixed and a simulated seeker answering them; compare the seeker's likes and dislikes
of the items shown with the real person's (accuracy and Cohen's kappa, bootstrap 95% CI
over conversations), also without each conversation's target, and on whether the person
had seen the item. NAME:KNOWS sets what the seeker is given (environment.seeker_knows:
person by default; history is what seeker=target_free needs; target is 0.2.7's seeker).
Beside the seekers, two reference rows (simulators.validity.predictability): the kappa of a
text classifier fitted on --train-split's reactions, reading everything said before the item
was shown ("before": what any seeker could reach) or the person's next turn ("reply").
Writes reactions.csv."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crsim validate reactions", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_seeker_arguments(p, example_override="llm@seeker.llm=openai")
    p.add_argument("--train-split", default="train_data",
                   help="the reference classifier learns from this split (default: train_data; none: no reference)")
    p.add_argument("--out", type=Path, default=None, help="output directory (default: DIR/validate-reactions)")
    p.add_argument("--seed", type=int, default=0)
    return p


@command()
def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    import pandas as pd

    from simulators.validity.reactions import compare_reactions, reaction_figures

    _catalog, episodes, seekers = grounded_seekers(args)
    rows, pairs_out = [], []
    for spec, setup, seeker in seekers:
        pairs = compare_reactions(setup, episodes, seeker, seed=args.seed)
        figures = reaction_figures(pairs, seed=args.seed)
        (acc, acc_low, acc_high), (kappa, k_low, k_high) = figures.accuracy, figures.kappa
        others, seen = figures.kappa_without_targets, figures.seen_kappa
        rows.append({"seeker": spec, "accuracy": acc, "accuracy_low": acc_low, "accuracy_high": acc_high,
                     "kappa": kappa, "kappa_low": k_low, "kappa_high": k_high, "pairs": figures.pairs,
                     "conversations": figures.conversations,
                     "kappa_without_targets": others[0], "kappa_without_targets_low": others[1],
                     "kappa_without_targets_high": others[2], "seen_kappa": seen[0], "seen_kappa_low": seen[1],
                     "seen_kappa_high": seen[2], "seen_pairs": figures.seen_pairs,
                     **{f"simulated_{label}": share for label, share in figures.simulated_share.items()}})
        pairs_out += [{"seeker": spec, "conversation": p.conversation, "item": p.item, "target": p.target,
                       "real": p.real, "simulated": p.simulated, "real_seen": p.real_seen,
                       "simulated_seen": p.simulated_seen} for p in pairs]
        print(f"{spec}: accuracy {acc:.3f} [{acc_low:.3f}, {acc_high:.3f}], Cohen's kappa {kappa:+.3f} "
              f"[{k_low:+.3f}, {k_high:+.3f}] over {figures.pairs} reactions in {figures.conversations} "
              f"conversations (simulated: " + ", ".join(f"{k} {v:.2f}" for k, v in figures.simulated_share.items())
              + f"); without targets {others[0]:+.3f} [{others[1]:+.3f}, {others[2]:+.3f}]; "
              f"seen or not: {seen[0]:+.3f} [{seen[1]:+.3f}, {seen[2]:+.3f}] over {figures.seen_pairs}")
    rows += reference_rows(args, episodes, setup)
    out = args.out or args.dir / "validate-reactions"
    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(out / "reactions.csv", index=False)
    pd.DataFrame(pairs_out).to_csv(out / "reaction_pairs.csv", index=False)
    print(f"wrote {out / 'reactions.csv'} and {out / 'reaction_pairs.csv'}")
    return 0


def reference_rows(args: argparse.Namespace, episodes: list, setup: object) -> list[dict[str, object]]:
    """What a text classifier fitted on the training split reaches, on the conversations the
    seekers were measured on (printed; rows for reactions.csv)."""
    from simulators.validity.predictability import predictability
    from simulators.validity.turns import corpus_episodes

    if args.train_split in (None, "", "none"):
        return []
    if args.train_split == args.split:
        print(f"reference: left out, --split is the training split {args.train_split}")
        return []
    train = corpus_episodes(args.dir, args.train_split)
    measured = {c.conversation_id for c in setup.conversations}  # type: ignore[attr-defined]
    found = predictability(train, [e for e in episodes if e.id in measured], seed=args.seed)
    if not found:
        print(f"reference: left out, no reactions to learn from in {args.train_split} or none to measure")
    rows = []
    for ref in found:
        (kappa, low, high), others = ref.kappa, ref.kappa_without_targets
        what = ("everything said before the item was shown" if ref.kind == "before"
                else "the person's next turn after it")
        print(f"reference ({ref.kind}): a text classifier fitted on {ref.trained_on} reactions of "
              f"{args.train_split}, reading {what}: Cohen's kappa {kappa:+.3f} [{low:+.3f}, {high:+.3f}] over "
              f"{ref.pairs} reactions to shown items in {ref.conversations} conversations (predicted dislike "
              f"{ref.predicted_dislike:.2f}); without targets {others[0]:+.3f} [{others[1]:+.3f}, {others[2]:+.3f}]")
        rows.append({"seeker": f"reference:{ref.kind}", "kappa": kappa, "kappa_low": low, "kappa_high": high,
                     "pairs": ref.pairs, "conversations": ref.conversations, "kappa_without_targets": others[0],
                     "kappa_without_targets_low": others[1], "kappa_without_targets_high": others[2],
                     "simulated_dislike": ref.predicted_dislike, "trained_on": ref.trained_on})
    return rows
