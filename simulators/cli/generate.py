"""`crsim generate shopping`: write TRACER (Wizard-of-Shopping style) dialogue datasets.

    crsim generate shopping --domain all --dialogues 300 --out data/wos
    crsim generate shopping --mode interactive --domain beauty --dialogues 50 --out /tmp/wos
    crsim generate shopping --dialogues 20 --out /tmp/wos llm@seller.llm=openai seller.llm.model=gpt-4o-mini

Trailing arguments are Hydra overrides of `crsim run experiment=tracer` (the same
config), so LLM backends, `environment.catalog=DIR`, `environment.planner=random` or
`seller.phrase_bank=b` work as in a run. `--phrase-bank` sets both agents' wording.
Output per domain: see `simulators/offline/shopping_generate.py`. Bad input is one
`crsim: error:` line and exit status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from simulators.cli.commands import command

DOMAINS = ("electronics", "home_kitchen", "beauty")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, like every crsim error
        print(f"crsim: error: generate: {message}", file=sys.stderr)
        sys.exit(2)


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="crsim generate", description="Generate simulated dialogue datasets.")
    p.add_argument("what", choices=["shopping"], help="dataset kind (TRACER shopping dialogues)")
    p.add_argument("--domain", default="electronics", help=f"{', '.join(DOMAINS)} or all (synthetic worlds); "
                   "ignored with environment.catalog=DIR")
    p.add_argument("--dialogues", type=int, default=300, help="dialogues per domain")
    p.add_argument("--mode", choices=["single_pass", "interactive"], default="single_pass")
    p.add_argument("--phrase-bank", choices=["a", "b"], default="a", help="offline wording of both agents")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, required=True, help="output directory (one subdirectory per domain)")
    p.add_argument("--compare-planners", action="store_true",
                   help="also plan every preference with random aspect order and compare (stats.json)")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("overrides", nargs="*", help="Hydra overrides of experiment=tracer")
    return p


def generate_domain(args: argparse.Namespace, domain: str | None, out: Path) -> dict[str, Any]:
    from simulators.engine.hydra_setup import compose_config
    from simulators.engine.run_lock import run_dir_lock

    overrides = [f"seed={args.seed}", f"episodes={args.dialogues}", f"seller.phrase_bank={args.phrase_bank}",
                 f"customer.phrase_bank={args.phrase_bank}", "progress=false"]
    if domain is not None:
        overrides.append(f"environment.domain={domain}")
    cfg = compose_config(["experiment=tracer", *overrides, *args.overrides])
    with run_dir_lock(out, "crsim generate", hint="give it its own --out"):  # it appends to a run's logs
        return _generate_into(args, domain, out, cfg)


def _generate_into(args: argparse.Namespace, domain: str | None, out: Path, cfg: Any) -> dict[str, Any]:
    from omegaconf import OmegaConf

    from simulators.engine.build import build_setup
    from simulators.engine.config_hash import config_hash
    from simulators.engine.runner import build_agents_recorded, run_episodes
    from simulators.offline.shopping_generate import (
        WOS_FILE, compare_planners, generate_single_pass, table5, to_wos, write_stats, write_wos,
    )

    out.mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(OmegaConf.to_yaml(cfg, resolve=True), encoding="utf-8")
    digest = config_hash(cfg)
    (out / "config_hash.txt").write_text(digest + "\n", encoding="utf-8")
    started = time.perf_counter()
    setup = build_setup(cfg.environment)
    if args.mode == "interactive":
        agents = build_agents_recorded(cfg, setup, run_dir=out, budget=None)
        summary = asyncio.run(run_episodes(setup, agents, episodes=args.dialogues, max_turns=int(cfg.max_turns),
                                           seed=args.seed, concurrency=int(cfg.concurrency), run_dir=out,
                                           config_hash=digest, progress=not args.no_progress))
        episodes = summary.episodes
    else:
        from hydra.utils import instantiate

        from agents.steps.tracer.single_pass import SinglePassStep

        seller_llm = instantiate(cfg.seller.llm)  # the single-pass scriptwriter uses the seller's backend
        episodes = generate_single_pass(
            setup, SinglePassStep(seller_llm), dialogues=args.dialogues, seed=args.seed, config_hash=digest,
            out=out, bank=args.phrase_bank, question_rate=float(cfg.customer.question_rate),
            pair_rate=float(cfg.seller.pair_rate), progress=not args.no_progress)
    seconds = time.perf_counter() - started
    name = domain or setup.catalog.manifest.domain
    records = [r for r in (to_wos(e, setup, name, args.mode) for e in episodes) if r is not None]
    write_wos(records, out / WOS_FILE)
    stats = {**table5(records, seconds, name), "mode": args.mode, "planner": str(cfg.environment.planner),
             "phrase_bank": args.phrase_bank, "episodes": len(episodes),
             "ended": {t: sum(1 for e in episodes if e.termination.value == t)
                       for t in sorted({e.termination.value for e in episodes})}}
    if args.compare_planners:
        stats["planner_comparison"] = compare_planners(setup, dialogues=args.dialogues, seed=args.seed)
    write_stats(stats, out)
    return stats


@command()
def main(argv: list[str]) -> int:
    from simulators.engine.hydra_setup import quiet_environment

    args = parser().parse_intermixed_args(argv)
    if args.dialogues < 1:
        parser().error(f"--dialogues must be at least 1, got {args.dialogues}")
    if args.domain not in (*DOMAINS, "all"):
        parser().error(f"--domain must be one of {', '.join(DOMAINS)} or all, got '{args.domain}'")
    quiet_environment()
    catalog = any(o.startswith("environment.catalog=") and not o.endswith("=null") for o in args.overrides)
    domains: list[str | None] = [None] if catalog else list(DOMAINS if args.domain == "all" else [args.domain])
    rows = []
    for domain in domains:
        out = args.out / domain if domain is not None and len(domains) > 1 else args.out
        rows.append(generate_domain(args, domain, out))
    for stats in rows:
        print(json.dumps({k: v for k, v in stats.items() if k != "planner_comparison"}))
        comparison = stats.get("planner_comparison")
        if comparison:
            for name in ("turns", "searches"):
                tree, rand, diff = (comparison[name][k] for k in ("tree", "random", "random_minus_tree"))
                print(f"{stats['domain']}: {name} to converge, tree {tree[0]:.2f} [{tree[1]:.2f}, {tree[2]:.2f}] vs "
                      f"random {rand[0]:.2f} [{rand[1]:.2f}, {rand[2]:.2f}]; random - tree {diff[0]:.2f} "
                      f"[{diff[1]:.2f}, {diff[2]:.2f}] over {comparison['pairs']} preferences")
    print(f"wrote {sum(s['dialogues'] for s in rows)} dialogues into {args.out}")
    return 0
