"""`crsim validate reactions DIR --seeker NAME...`: the real recommender's moves held fixed, does a
simulated seeker like or dislike what the real seeker did? (`simulators.validity.reactions`)"""

from __future__ import annotations

import argparse
from pathlib import Path

from simulators.cli.commands import command

DESCRIPTION = """\
Replay each grounded conversation of an imported corpus with the real recommender's turns
held fixed and a simulated seeker answering them; compare the seeker's likes and dislikes
of the items shown with the real person's (accuracy and Cohen's kappa, bootstrap 95% CI
over conversations), also without each conversation's target, and on whether the person
had seen the item. NAME:KNOWS sets what the seeker is given (environment.seeker_knows:
person by default; history is what seeker=target_free needs; target is 0.2.7's seeker).
Writes reactions.csv."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crsim validate reactions", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", type=Path, help="an imported dialogue corpus (crsim data import redial|inspired|...)")
    p.add_argument("--seeker", nargs="+", required=True, metavar="NAME[:KNOWS]",
                   help="conf/seeker names, e.g. target_biased target_free:history")
    p.add_argument("--split", default=None, help="only this split's conversations (e.g. test_data)")
    p.add_argument("--limit", type=int, default=None, help="at most this many conversations")
    p.add_argument("--set", nargs="*", default=[], metavar="OVERRIDE", dest="overrides",
                   help="overrides for the seeker's config (e.g. llm@seeker.llm=openai)")
    p.add_argument("--out", type=Path, default=None, help="output directory (default: DIR/validate-reactions)")
    p.add_argument("--seed", type=int, default=0)
    return p


@command()
def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    import pandas as pd

    from environments.catalog import load_catalog_dir
    from environments.single_target.grounded import GroundedSetup
    from simulators.engine.hydra_setup import quiet_environment
    from simulators.replay.agents_config import build_agent, compose_agent_config
    from simulators.validity.held_out import refuse_training_split
    from simulators.validity.reactions import compare_reactions, reaction_figures
    from simulators.validity.turns import corpus_episodes

    quiet_environment()
    refuse_training_split(args.split, args.overrides)
    catalog = load_catalog_dir(args.dir)
    episodes = corpus_episodes(args.dir, args.split)
    rows, pairs_out = [], []
    for spec in args.seeker:
        name, _, knows = spec.partition(":")
        setup = GroundedSetup(catalog, split=args.split, limit=args.limit, seeker_knows=knows or "person")
        seeker = build_agent("seeker", compose_agent_config("seeker", name, {"seed": args.seed}, args.overrides), setup)
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
    out = args.out or args.dir / "validate-reactions"
    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(out / "reactions.csv", index=False)
    pd.DataFrame(pairs_out).to_csv(out / "reaction_pairs.csv", index=False)
    print(f"wrote {out / 'reactions.csv'} and {out / 'reaction_pairs.csv'}")
    return 0
