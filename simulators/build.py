"""Building a run from its config: the protocol's setup, its metrics, one agent per role.

`crsim run`, replay and reports all build from a resolved config the same way, here:
- `environment` is instantiated into an `EnvironmentSetup`, except its `metrics:` list,
  which is the simulator's business (`simulators.metrics`), not the environment's;
- each role the setup declares gets the agent its config group of the same name builds
  (`cfg.recommender`, `cfg.seeker`, `cfg.curator`, ...), with `catalog=` the view the
  setup gives that role. Nothing here knows which protocol runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from environments.base import EnvironmentSetup
from environments.errors import CrsimError

METRICS_KEY = "metrics"


def _plain(node: Any) -> dict[str, Any]:
    from omegaconf import DictConfig, OmegaConf

    if isinstance(node, DictConfig):
        return OmegaConf.to_container(node, resolve=True)  # type: ignore[return-value]
    return dict(node)


def metric_specs(environment: Any) -> list[Any] | None:
    """The environment config's `metrics:` entries (None: not configured)."""
    specs = _plain(environment).get(METRICS_KEY) if environment is not None else None
    if specs is not None and not isinstance(specs, list):
        raise CrsimError(f"environment.{METRICS_KEY} must be a list of metrics (each with a _target_)")
    return specs


def build_setup(environment: Any) -> EnvironmentSetup:
    """Instantiate the `environment` config (without its metrics) and check it declares a protocol."""
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

    config = _plain(environment)
    config.pop(METRICS_KEY, None)
    if "_target_" not in config:
        raise CrsimError("the environment config names no _target_")
    setup = instantiate(OmegaConf.create(config), _convert_="partial")
    roles = getattr(setup, "roles", None)
    if not callable(getattr(setup, "new_episode", None)) or not roles or \
            not all(isinstance(role, str) and role for role in roles):
        raise CrsimError(f"{config['_target_']} built a {type(setup).__name__}, which does not declare a protocol: "
                         "an environment factory must return an environments.base.EnvironmentSetup with its roles")
    return setup


def agent_config(config: Mapping[str, Any], role: str, setup: EnvironmentSetup) -> Any:
    """The config node of `role`'s agent; a clear error when the config has none."""
    node = config.get(role)
    if node is None or "_target_" not in node:
        raise CrsimError(f"environment '{setup.name}' declares the role '{role}', but the config has no '{role}' "
                         f"agent: add `+{role}=NAME` (a file conf/{role}/NAME.yaml naming a _target_) and "
                         f"`+llm@{role}.llm=offline`, or an experiment config that does")
    return node


def build_agent(role: str, node: Any, setup: EnvironmentSetup) -> Any:
    """One agent from its config node, given the catalog view the setup grants its role."""
    from hydra.utils import instantiate
    from omegaconf import DictConfig, OmegaConf

    node = node if isinstance(node, DictConfig) else OmegaConf.create(node)
    catalog = setup.agent_catalog(role)
    if catalog is None:
        return instantiate(node, _convert_="partial")
    return instantiate(node, catalog=catalog, _convert_="partial")


def build_agents(config: Mapping[str, Any], setup: EnvironmentSetup,
                 roles: Iterable[str] | None = None) -> dict[str, Any]:
    """Role -> agent for every declared role (or only `roles`), in speaking order."""
    wanted = list(roles) if roles is not None else list(setup.roles)
    return {role: build_agent(role, agent_config(config, role, setup), setup) for role in wanted}
