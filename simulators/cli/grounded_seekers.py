"""What `crsim validate reactions` and `validate replies` share: the seekers they replay the
real recommender's turns to, each on its own grounded setup."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def add_seeker_arguments(p: argparse.ArgumentParser, *, example_override: str) -> None:
    """The corpus, the seekers and which conversations: the arguments both commands take."""
    p.add_argument("dir", type=Path, help="an imported dialogue corpus (crsim data import redial|inspired|...)")
    p.add_argument("--seeker", nargs="+", required=True, metavar="NAME[:KNOWS]",
                   help="conf/seeker names, e.g. target_biased target_free:history")
    p.add_argument("--split", default=None, help="only this split's conversations (e.g. test_data)")
    p.add_argument("--limit", type=int, default=None, help="at most this many conversations")
    p.add_argument("--set", nargs="*", default=[], metavar="OVERRIDE", dest="overrides",
                   help=f"overrides for the seeker's config (e.g. {example_override})")


def grounded_seekers(args: argparse.Namespace) -> tuple[Any, list[Any], Iterator[tuple[str, Any, Any]]]:
    """(catalog, the corpus's episodes of `--split`, then per `--seeker` spec: (spec, its
    grounded setup, the seeker)); refuses a split the seeker's policy was fitted on."""
    from environments.catalog import load_catalog_dir
    from environments.single_target.grounded import GroundedSetup
    from simulators.engine.hydra_setup import quiet_environment
    from simulators.replay.agents_config import build_agent, compose_agent_config
    from simulators.validity.held_out import refuse_training_split
    from simulators.validity.turns import corpus_episodes

    quiet_environment()
    refuse_training_split(args.split, args.overrides)
    catalog = load_catalog_dir(args.dir)
    episodes = corpus_episodes(args.dir, args.split)

    def seekers() -> Iterator[tuple[str, Any, Any]]:
        for spec in args.seeker:
            name, _, knows = spec.partition(":")
            setup = GroundedSetup(catalog, split=args.split, limit=args.limit, seeker_knows=knows or "person")
            config = compose_agent_config("seeker", name, {"seed": args.seed}, args.overrides)
            yield spec, setup, build_agent("seeker", config, setup)

    return catalog, episodes, seekers()
