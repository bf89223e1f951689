"""`crsim validate ranking DIR --recommender A B ...`: do simulation and the logged dialogues
order recommenders alike, and how do the people's own words order them? (`simulators.validity.ranking`)"""

from __future__ import annotations

import argparse
from pathlib import Path

from simulators.cli.commands import command

DESCRIPTION = """\
Rank recommenders twice on an imported dialogue corpus and compare the orders: offline on
the logged dialogues (crsim eval dialogues: recall@10 of the items the real recommender
named next, per conversation) and in simulation with grounded seekers on the same
conversations (environment=grounded: the target in the top 10 after the last turn).
Prints Kendall's tau with a bootstrap 95% CI over conversations; writes ranking.csv and
both sides' runs under --out.

A third column, "people hit@10", scores the recommenders the simulated column's way on
the people's own seeker turns of the same conversations (seeker=people with
environment.seeker_knows=transcript, the same --max-turns; its run is under --out/people),
with tau of its order against the other two: what people revealed beside what the
simulated seeker reveals. --no-people skips that run."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crsim validate ranking", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", type=Path, help="an imported dialogue corpus (crsim data import redial|inspired|...)")
    p.add_argument("--recommender", nargs="+", required=True, metavar="NAME", help="at least two conf/recommender names")
    p.add_argument("--split", default="test_data", help="the conversations compared (default: test_data)")
    p.add_argument("--train-split", default="train_data", help="what offline recommenders learn from")
    p.add_argument("--seeker", default="target_biased", help="the simulated seeker (default: target_biased)")
    p.add_argument("--max-turns", type=int, default=5)
    p.add_argument("--limit", type=int, default=None, help="at most this many conversations")
    p.add_argument("--set", nargs="*", default=[], metavar="OVERRIDE", dest="overrides",
                   help="more overrides for the simulation (e.g. environment.seeker_knows=history); the "
                        "people's run gets those not about the seeker")
    p.add_argument("--no-people", action="store_true",
                   help="skip the people column (the recommenders on the people's own seeker turns)")
    p.add_argument("--out", type=Path, default=None, help="output directory (default: DIR/validate-ranking)")
    p.add_argument("--seed", type=int, default=0)
    return p


@command()
def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    import pandas as pd

    from environments.errors import CrsimError
    from simulators.validity.held_out import refuse_training_split
    from simulators.validity.ranking import agreement_rows, format_agreement, kendall_agreement, run_both

    if len(set(args.recommender)) < 2:
        raise CrsimError("--recommender needs at least two distinct recommenders to order")
    out = args.out or args.dir / "validate-ranking"
    out.mkdir(parents=True, exist_ok=True)
    refuse_training_split(args.split, args.overrides)
    scores = run_both(args.dir, list(dict.fromkeys(args.recommender)), out, split=args.split,
                      train_split=args.train_split, seeker=args.seeker, max_turns=args.max_turns,
                      limit=args.limit, overrides=args.overrides, people=not args.no_people)
    agreement = kendall_agreement(scores.offline, scores.simulated, scores.people, seed=args.seed)
    pd.DataFrame(agreement_rows(agreement)).to_csv(out / "ranking.csv", index=False)
    print("\n".join(format_agreement(agreement)))
    print(f"wrote {out / 'ranking.csv'}")
    return 0
