"""`crsim validate replies DIR --seeker NAME...`: the real recommender's turns held fixed, the
simulated seeker's replies beside the person's, figure by figure (`simulators.validity.replies`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from simulators.cli.commands import command
from simulators.cli.grounded_seekers import add_seeker_arguments, grounded_seekers

DESCRIPTION = """\
Replay each grounded conversation of an imported corpus with the real recommender's turns held
fixed and a simulated seeker answering them, and compare its replies with the person's replies
to the same turns: every figure of `crsim validate` (words, questions, stated likes,
cooperativeness, distinct-n, verbatim overlap, the classifier's AUC, ...), each with a
bootstrap 95% CI over conversations. Unlike `crsim validate RUN`, both sides answered the same
recommender, so a figure does not differ because crsim's recommenders talk differently from
the corpus's. NAME:KNOWS sets what the seeker is given (environment.seeker_knows). Writes
validity.csv, validity.png and each seeker's replayed conversations (SEEKER/episodes.jsonl)."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crsim validate replies", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_seeker_arguments(p, example_override="seeker.wordings=null")
    p.add_argument("--out", type=Path, default=None, help="output directory (default: DIR/validate-replies)")
    p.add_argument("--embedding-model", default="minilm-int8", help="sentence encoder of the classifier")
    p.add_argument("--no-classifier", action="store_true", help="skip the real-vs-simulated classifier")
    p.add_argument("--seed", type=int, default=0)
    return p


@command()
def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    from simulators.results.table import table_console
    from simulators.validity.compare import PEOPLE, SeekerSet, plot_validity, render_table, validity_frame
    from simulators.validity.replies import replay_all

    catalog, episodes, seekers = grounded_seekers(args)
    out = args.out or args.dir / "validate-replies"
    people = None
    runs = []
    for spec, setup, seeker in seekers:
        real, replayed = replay_all(setup, episodes, seeker, seed=args.seed)
        people = people or SeekerSet.of(PEOPLE, real, catalog)
        runs.append(SeekerSet.of(spec, replayed, catalog))
        (out / spec.replace(":", "-")).mkdir(parents=True, exist_ok=True)
        (out / spec.replace(":", "-") / "episodes.jsonl").write_text(
            "".join(e.model_dump_json() + "\n" for e in replayed), encoding="utf-8")
    assert people is not None  # --seeker takes at least one
    encoder = None
    if not args.no_classifier:
        from environments.search.encoders import get_encoder

        encoder = get_encoder(args.embedding_model)
    frame = validity_frame(people, runs, encoder=encoder, seed=args.seed)
    frame.to_csv(out / "validity.csv", index=False)
    plot_validity(frame, out / "validity.png")
    console = table_console()
    console.print(render_table(frame))
    console.print(f"people: {people.turns} seeker turns in {len(people.dialogues)} conversations of {args.dir}; "
                  + "; ".join(f"{r.label}: {r.turns} replies" for r in runs), highlight=False, markup=False)
    console.print(f"wrote {out / 'validity.csv'}, {out / 'validity.png'} and each seeker's episodes.jsonl",
                  highlight=False, markup=False)
    return 0
