"""What composing crsim's config needs, wherever it is composed: `crsim run`, worker
processes and Ray actors, replay, `crsim generate`.

The config directory, the OmegaConf resolvers `conf/` uses, the environment variables
that keep libraries offline and quiet, and `compose_config`, the one way to compose the
config outside `crsim run`'s own `@hydra.main`. They live in the engine (not the CLI) so
that workers and replay, which compose configs too, never import the command line.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from omegaconf import DictConfig

CONF_DIR = Path(__file__).resolve().parents[2] / "conf"
MAX_DIRNAME = 120


def quiet_environment() -> None:
    """Offline and quiet: no hub look-ups, no price-list fetch, no library progress chatter."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def safe_dirname(overrides: str) -> str:
    """A sweep job's directory name from its overrides: one path component, bounded length.

    Override values can hold slashes (`base_url=http://...`, catalog paths), which would
    nest directories, and a long override list would pass the 255-byte name limit; long
    names keep their start and get a hash of the whole so they stay distinct.
    """
    name = overrides.replace("/", "_").replace("\\", "_") or "default"
    if len(name) > MAX_DIRNAME:
        name = f"{name[:MAX_DIRNAME - 9]}-{hashlib.sha1(overrides.encode()).hexdigest()[:8]}"
    return name


def register_resolvers() -> None:
    """OmegaConf resolvers `conf/` uses (composing the config outside `crsim run` needs them too)."""
    from omegaconf import OmegaConf

    if not OmegaConf.has_resolver("crsim_dirname"):
        OmegaConf.register_new_resolver("crsim_dirname", safe_dirname)


def compose_config(overrides: Sequence[str], config_dir: Path = CONF_DIR) -> DictConfig:
    """`config.yaml` of `config_dir` composed with `overrides`, as `crsim run OVERRIDES` would
    compose it, without running anything (interpolations unresolved; Hydra's own `hydra`
    node left out).

    Hydra composes only while it is initialised, and that is process-global state: this
    initialises it for the one composition and puts it back as it was, so a caller never
    finds it taken by an earlier one (about 7 ms a call, next to some 150 ms composing).
    The resolvers `conf/` uses are registered first. Hydra's errors (an unknown key or
    option) propagate; `simulators.cli.precheck.explain` says them in one line.
    """
    from hydra import compose, initialize_config_dir

    register_resolvers()
    with initialize_config_dir(config_dir=str(config_dir), version_base="1.3"):
        return compose("config", overrides=list(overrides))
