"""`crsim validate RUN [RUN ...] --against DIR`: simulated seekers beside real ones."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from environments.errors import CrsimError
from simulators.cli.commands import command, run_subcommand

DESCRIPTION = """\
Compare the seeker turns of runs (a run directory, a sweep, or an episodes.jsonl) with the
real seeker turns of an imported dialogue corpus (crsim data import redial|inspired|...):
words per turn, turns per dialogue, questions, item names, stated likes and dislikes,
reactions, cooperativeness, distinct-1/2, template rate, vocabulary only few items use
(the leak signal), shortcuts (the target named early, in the top 10 after turn 1), and how
well a classifier tells simulated turns from real ones (ROC AUC; 0.5: it cannot). Each
figure has a bootstrap 95% CI over dialogues. Runs of grounded episodes (environment=grounded)
are compared with the people of the same conversations (all of a corpus whose conversations
they do not replay). --reference sets other people beside the runs as a yardstick (another
corpus, or another split of the same one): what people reach against these people, the
classifier's AUC included, is the mark a simulated seeker can be held to, not 0.5.
Writes validity.csv and validity.png.

crsim validate ranking DIR --recommender A B ... orders recommenders offline on the logged
dialogues and in simulation on the same conversations, and reports Kendall's tau;
crsim validate reactions DIR --seeker NAME... replays the real recommender's turns to a
simulated seeker and compares its likes and dislikes with the real person's;
crsim validate replies DIR --seeker NAME... replays them the same way and compares its
words with the person's words to the same turns, figure by figure."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crsim validate", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN", help="run or sweep directories, or episodes.jsonl files")
    p.add_argument("--against", type=Path, required=True, metavar="DIR",
                   help="an imported dialogue corpus (a catalog directory with dialogues.jsonl)")
    p.add_argument("--split", default=None, help="only the corpus's conversations of this split (e.g. test)")
    p.add_argument("--reference", action="append", default=[], metavar="DIR[:SPLIT]",
                   help="other people beside the runs, every figure theirs too (another corpus, or DIR:SPLIT "
                        "for another split, e.g. data/redial:tune_data); repeatable")
    p.add_argument("--catalog", type=Path, default=None,
                   help="the runs' catalog directory (default: the environment in each run's config.yaml)")
    p.add_argument("--out", type=Path, default=None, help="output directory (default: the first RUN)")
    p.add_argument("--embedding-model", default="minilm-int8",
                   help="sentence encoder of the classifier (default: minilm-int8)")
    p.add_argument("--no-classifier", action="store_true", help="skip the real-vs-simulated classifier")
    p.add_argument("--seed", type=int, default=0)
    return p


#: the other validations: name -> the module whose `main(argv)` runs it
SUBCOMMANDS = {"ranking": "simulators.cli.validate_ranking", "reactions": "simulators.cli.validate_reactions",
               "replies": "simulators.cli.validate_replies"}


@command()
def main(argv: list[str]) -> int:
    return run_subcommand(argv, SUBCOMMANDS, compare_runs)


def compare_runs(argv: list[str]) -> int:
    """`crsim validate RUN... --against DIR`: the runs' seekers beside the corpus's people."""
    args = parser().parse_args(argv)
    from environments.catalog import load_catalog_dir
    from simulators.cli.failures import warn
    from simulators.engine.hydra_setup import quiet_environment
    from simulators.results.runlog import load_runs
    from simulators.results.table import table_console
    from simulators.validity.compare import PEOPLE, SeekerSet, plot_validity, render_table, validity_frame
    from simulators.validity.hygiene import bank_leak
    from simulators.validity.turns import corpus_catalog, corpus_episodes

    quiet_environment()
    console = table_console()
    logged = [(path, run) for path in args.runs for run in load_runs(path)]
    real = corpus_episodes(args.against, args.split)
    grounded = {e.profile.get("conversation_id") for _, run in logged for e in run.episodes}
    if grounded and None not in grounded:  # grounded runs: the people of the same conversations
        same = [e for e in real if e.id in grounded]
        if same:
            real = same
            console.print(f"grounded runs: the people are the {len(real)} conversations they replay",
                          highlight=False, markup=False)
        else:  # another corpus's people (CRS Arena's beside ReDial-grounded runs): all of them
            console.print(f"grounded runs replay none of these conversations: the people are all {len(real)}",
                          highlight=False, markup=False)
    people = SeekerSet.of(PEOPLE, real, corpus_catalog(args.against))
    shared = load_catalog_dir(args.catalog) if args.catalog else None
    runs = []
    leaks: list[str | None] = []
    labels = distinct_labels([run.label if len(args.runs) == 1 else f"{path.name}:{run.label}" for path, run in logged],
                             [path for path, _ in logged])
    for (path, run), label in zip(logged, labels, strict=True):
        catalog = shared or _run_catalog(run, console)
        runs.append(SeekerSet.of(label, run.episodes, catalog))
        leaks.append(bank_leak(label, run.config, args.against, args.split))
    for spec in args.reference:
        directory, split = reference_spec(spec)
        runs.append(SeekerSet.of(f"{PEOPLE}: {directory.name}{':' + split if split else ''}",
                                 corpus_episodes(directory, split), corpus_catalog(directory)))
    empty = [r.label for r in [people, *runs] if not r.dialogues]
    if empty:
        raise CrsimError(f"no seeker turn with text in: {', '.join(empty)}")
    encoder = None
    if not args.no_classifier:
        from environments.search.encoders import get_encoder

        encoder = get_encoder(args.embedding_model)
    frame = validity_frame(people, runs, encoder=encoder, seed=args.seed)
    out = args.out or _default_out(args.runs[0])
    out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out / "validity.csv", index=False)
    plot_validity(frame, out / "validity.png")
    console.print(render_table(frame))
    console.print(f"people: {people.turns} seeker turns in {len(people.dialogues)} dialogues of {args.against}; "
                  + "; ".join(f"{r.label}: {r.turns} turns" for r in runs), highlight=False, markup=False)
    console.print(f"wrote {out / 'validity.csv'} and {out / 'validity.png'}", highlight=False, markup=False)
    for leak in filter(None, leaks):  # last, where it is read
        warn(leak)
    return 0


def reference_spec(spec: str) -> tuple[Path, str | None]:
    """`DIR` or `DIR:SPLIT` (a directory whose own name has a colon is taken whole)."""
    directory, colon, split = spec.rpartition(":")
    if not colon or Path(spec).is_dir() or not directory:
        return Path(spec), None
    return Path(directory), split or None


def _run_catalog(run: Any, console: Any) -> Any:
    """The run's catalog from its config (item figures are left out without one)."""
    from simulators.report.cards import try_config_catalog

    notes: list[str] = []
    catalog = try_config_catalog(run, notes) if run.config else None
    for note in notes:
        console.print(note, highlight=False, markup=False)
    return catalog


def _default_out(path: Path) -> Path:
    return path.parent if path.is_file() else path


def distinct_labels(labels: list[str], paths: list[Path]) -> list[str]:
    """`labels`, each made unique: two runs of the same overrides in directories of the same
    name (`a/gtb`, `b/gtb`) were one column of the table, the later one's figures under both."""
    out = list(labels)
    for n, label in enumerate(labels):
        if labels.count(label) > 1:
            out[n] = f"{Path(paths[n]).resolve().parent.name}/{label}"
    counted = list(out)
    for n, label in enumerate(counted):  # still the same (same parent names too): number them
        if counted.count(label) > 1:
            out[n] = f"{label} #{counted[:n].count(label) + 1}"
    return out
