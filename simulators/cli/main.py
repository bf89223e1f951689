"""The `crsim` command: a thin dispatcher so `crsim --help` stays fast (no heavy imports)."""

from __future__ import annotations

import sys

HELP = """\
usage: crsim <command> [arguments]

Simulate conversational recommendation: recommenders talk to seeker simulators inside
environments; every episode is logged and scored per turn.

commands:
  run [OVERRIDES...]        run one experiment (Hydra overrides, e.g. recommender=dense
                            episodes=50 max_turns=5 seed=1); prints a per-turn metrics
                            table and writes results.csv, episodes.jsonl, metrics.png and
                            the resolved config into the run directory
  run -m KEY=A,B ...        run a sweep (Hydra multirun), e.g.
                            crsim run -m recommender=popularity,bm25,dense
                            prints one comparison table, writes summary.csv / summary.png
  run --cfg job             show the composed config without running (any Hydra flag works)

top-level keys: episodes, max_turns, seed, concurrency, progress
config groups:  environment, recommender, seeker, llm@recommender.llm, llm@seeker.llm
output:         hydra.run.dir=DIR (re-running into the same DIR resumes: finished
                episodes with the same config are skipped), hydra.sweep.dir=DIR
plug-ins:       hydra.searchpath=[file:///path/to/your/conf] recommender=your_recommender

  replay LOG [options]      re-score, render, re-execute a logged run, or re-run one side
                            against the other's logged turns (crsim replay --help)
  serve recommender=NAME [OVERRIDES...]
                            serve a crsim recommender over HTTP (crsim's JSON protocol, or
                            --shape usersimcrs); recommender=http recommender.url=URL runs
                            seekers against any CRS served that way (crsim serve --help)
  report DIR                tables with 95% CIs, paired comparisons, plots and a static HTML
                            episode browser for a run or a whole sweep (crsim report --help)
  data import FORMAT ...    convert a public dataset (yelp, amazon2018, amazon2023, redial,
                            inspired, durecdial, crsarena, mgshopdial, movielens,
                            imdb-reviews, cpcd, products) into a catalog directory
  data info DIR             summarise a catalog directory (crsim data --help)
  generate shopping ...     write TRACER shopping dialogues (WoS-style JSONL, Table-5 stats, a
                            run directory replay/report read); crsim generate --help
  eval cpcd --dialogs FILE... --retriever popularity|bm25|dense|hybrid
                            score a retriever on CPCD's conversations the way CPCD's public
                            evaluator does (crsim eval cpcd --help)
  eval dialogues DIR --recommender NAME...
                            recommenders on logged dialogues (e.g. a ReDial import):
                            Recall/NDCG@K of the items each turn names (crsim eval dialogues --help)
  eval judge DIR --llm NAME [KEY=VALUE ...]
                            an LLM judge's grades of CRS Arena's conversations beside the
                            people's labels: Pearson/Spearman per aspect, Kendall tau of the
                            CRS rankings, published evaluators for reference (crsim eval judge --help)
  validate RUN... --against DIR
                            simulated seekers beside the real ones of an imported corpus:
                            shape, language, shortcuts, a real-vs-simulated classifier, each
                            with a 95% CI (crsim validate --help)
"""

#: command -> the module whose `main(argv) -> int` runs it (`module:function` for another
#: function), imported only when the command runs (`simulators.cli.commands.run_subcommand`)
SUBCOMMANDS = {
    "run": "simulators.cli.run:run_hydra",
    "replay": "simulators.cli.replay",
    "report": "simulators.cli.report",
    "data": "simulators.cli.data",
    "generate": "simulators.cli.generate",
    "eval": "simulators.cli.eval",
    "validate": "simulators.cli.validate",
    "serve": "simulators.cli.serve",
}


def main(argv: list[str] | None = None) -> int:
    from simulators.cli.commands import run_subcommand

    return run_subcommand(list(sys.argv[1:] if argv is None else argv), SUBCOMMANDS, _help_or_unknown)


def _help_or_unknown(args: list[str]) -> int:
    if not args or args[0] in {"-h", "--help", "help"}:
        print(HELP, end="")
        return 0
    print(f"crsim: unknown command '{args[0]}'\n", file=sys.stderr)
    print(HELP, end="", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
