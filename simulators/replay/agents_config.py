"""Building a logged run's environment and agents again, or new agents for one side.

A run saves its resolved config (`config.yaml`): instantiating its `environment` gives
the same catalog, target pool and withheld reviews, so a replayed episode draws the same
target from the same seed. Agents come from that config too (re-execution), or from a
config group option composed from `conf/` (`--recommender NAME`, `--seeker NAME`, plus
Hydra overrides), exactly as `crsim run` would build them.

For re-execution the agents' language-model backends are swapped for `replay` over the
run's own `llm_calls.jsonl`, configured with the model name and generation parameters
the recording carries for that role (they are part of the prompt hash).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from environments.errors import CrsimError
from simulators.engine.build import build_agent, build_setup
from simulators.results.runlog import LLM_CALLS_FILE, LoggedRun

__all__ = ["build_agent", "build_setup", "compose_agent_config", "recorded_model", "run_config",
           "with_replayed_llms"]


def run_config(run: LoggedRun) -> dict[str, Any]:
    if not run.config or not isinstance(run.config.get("environment"), dict):
        raise CrsimError(f"{run.run_dir}: no config.yaml naming an environment next to the log; "
                         "replaying agents needs the config the run was made with")
    return run.config


def compose_agent_config(role: str, name: str, run_config: dict[str, Any],
                         overrides: Sequence[str] = (), searchpath: Sequence[str] = ()) -> dict[str, Any]:
    """`conf/<role>/<name>.yaml` composed as `crsim run <role>=<name> OVERRIDES` would, with the
    run's own top-level values (seed, cache dir, embedding model) for its interpolations
    and its `hydra.searchpath` overrides (`searchpath`), so a plug-in's configs are found.
    A role the root config has no default for (a protocol's own) is added (`+role=name`)."""
    from omegaconf import OmegaConf

    from simulators.engine.hydra_setup import compose_config

    shared = [f"{key}={json.dumps(value)}" for key, value in run_config.items()
              if key in ("seed", "embedding_model", "cache_dir") and value is not None]
    error = ""
    for choice in (f"{role}={name}", f"+{role}={name}", f"+llm@{role}.llm=offline"):
        chosen = [f"+{role}={name}", choice] if choice.startswith("+llm") else [choice]
        try:
            cfg = compose_config([*searchpath, *chosen, *shared, *overrides])
            return OmegaConf.to_container(cfg[role], resolve=True)  # type: ignore[return-value]
        except Exception as exc:  # Hydra's errors name the missing option or the bad override
            error = error or str(exc).splitlines()[0]
    raise CrsimError(f"cannot build {role} '{name}': {error}")


def with_replayed_llms(run: LoggedRun, config: dict[str, Any], roles: Sequence[str]) -> dict[str, Any]:
    """The run's config with every role's non-offline LLM answered from its recording."""
    config = json.loads(json.dumps(config))
    for role in roles:
        llm = (config.get(role) or {}).get("llm")
        if not isinstance(llm, dict) or llm.get("_target_", "").endswith(".offline"):
            continue
        model, params = recorded_model(run, role)
        config[role]["llm"] = {"_target_": "agents.llm.replay.replay", "_convert_": "all",
                               "path": str(run.run_dir / LLM_CALLS_FILE), "model": model, "params": params}
    return config


def recorded_model(run: LoggedRun, role: str) -> tuple[str, dict[str, Any]]:
    """The one (model, params) the recording holds for `role`."""
    seen = {(c["model"], json.dumps(c.get("params") or {}, sort_keys=True))
            for calls in run.llm_calls.values() for c in calls if c.get("role") == role}
    if len(seen) != 1:
        found = "no calls" if not seen else f"{len(seen)} different models/params"
        raise CrsimError(f"{run.run_dir / LLM_CALLS_FILE}: the {role}'s recorded LLM calls show {found}; "
                         "re-execution needs exactly one")
    model, params = next(iter(seen))
    return model, json.loads(params)
