"""A stable hash of what determines a run's results.

Keys that change how a run executes but not what it computes (concurrency, progress
bars, output locations, the budget, the runner backend) are left out, so a resumed run
with another concurrency, or a larger budget, still recognises its finished episodes.
So is `episodes`: an episode's id and content depend only on the seed and its index, so
re-running with a larger `episodes` extends a run instead of starting over. So are the
environment's `metrics` and the top-level `evaluators`: they score episodes but do not
change them, and a run re-scored with one more metric must not run its episodes again.
So are how a remote agent is reached (`recommender=http`'s timeout, retries, backoff and
limit): a run resumed with a longer timeout is the same run against the same CRS.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from omegaconf import DictConfig, OmegaConf

EXECUTION_ONLY_KEYS = frozenset({"concurrency", "progress", "hydra", "cache_dir", "budget", "runner", "episodes"})
SCORING_ONLY_KEY = "metrics"  # under `environment`
SCORING_ONLY_TOP_KEYS = frozenset({"evaluators", "judge"})  # post-run evaluators and the judge backend they use
# How a remote agent is reached, not which one it is (its url and shape stay in the hash).
REMOTE_TARGETS = frozenset({"agents.recommenders.http.build"})
REMOTE_EXECUTION_KEYS = frozenset({"timeout_s", "retries", "backoff_s", "max_in_flight"})


def resolved_config(cfg: DictConfig) -> dict[str, Any]:
    container = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(container, dict)
    return container


def config_hash(cfg: DictConfig | dict[str, Any]) -> str:
    data = resolved_config(cfg) if isinstance(cfg, DictConfig) else cfg
    semantic = {k: v for k, v in data.items() if k not in EXECUTION_ONLY_KEYS | SCORING_ONLY_TOP_KEYS}
    if isinstance(semantic.get("environment"), dict):
        semantic["environment"] = {k: v for k, v in semantic["environment"].items() if k != SCORING_ONLY_KEY}
    for role, node in list(semantic.items()):
        if isinstance(node, dict) and node.get("_target_") in REMOTE_TARGETS:
            semantic[role] = {k: v for k, v in node.items() if k not in REMOTE_EXECUTION_KEYS}
    encoded = json.dumps(semantic, sort_keys=True, default=str).encode()
    return hashlib.sha256(encoded).hexdigest()[:12]
