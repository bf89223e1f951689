"""A stable hash of what determines a run's results.

Keys that change how a run executes but not what it computes (concurrency, progress
bars, output locations, the budget) are left out, so a resumed run with another
concurrency, or a larger budget, still recognises its finished episodes.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from omegaconf import DictConfig, OmegaConf

EXECUTION_ONLY_KEYS = frozenset({"concurrency", "progress", "hydra", "cache_dir", "budget"})


def resolved_config(cfg: DictConfig) -> dict[str, Any]:
    container = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(container, dict)
    return container


def config_hash(cfg: DictConfig | dict[str, Any]) -> str:
    data = resolved_config(cfg) if isinstance(cfg, DictConfig) else cfg
    semantic = {k: v for k, v in data.items() if k not in EXECUTION_ONLY_KEYS}
    encoded = json.dumps(semantic, sort_keys=True, default=str).encode()
    return hashlib.sha256(encoded).hexdigest()[:12]
