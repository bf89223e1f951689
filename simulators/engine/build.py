"""Building a run from its config: the protocol's setup, its metrics, one agent per role.

`crsim run`, replay and reports all build from a resolved config the same way, here:
- `environment` is instantiated into an `EnvironmentSetup`, except its `metrics:` list,
  which is the simulator's business (`simulators.metrics`), not the environment's;
- each role the setup declares gets the agent its config group of the same name builds
  (`cfg.recommender`, `cfg.seeker`, `cfg.curator`, ...), with `catalog=` the view the
  setup gives that role. Nothing here knows which protocol runs.

Both go through `instantiate_group`, which turns a config value the factory cannot take
into one line naming the key and the factory (`crsim run` prints it and exits 2).
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Literal, Union

from environments.base import EnvironmentSetup
from environments.check import roles_problem
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
    from omegaconf import OmegaConf

    config = _plain(environment)
    config.pop(METRICS_KEY, None)
    if "_target_" not in config:
        raise CrsimError("the environment config names no _target_")
    setup = instantiate_group("environment", OmegaConf.create(config))
    if not callable(getattr(setup, "new_episode", None)) or roles_problem(getattr(setup, "roles", None)) is not None:
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
    from omegaconf import DictConfig, OmegaConf

    node = node if isinstance(node, DictConfig) else OmegaConf.create(node)
    catalog = setup.agent_catalog(role)
    if catalog is None:
        return instantiate_group(role, node)
    return instantiate_group(role, node, catalog=catalog)


def build_agents(config: Mapping[str, Any], setup: EnvironmentSetup,
                 roles: Iterable[str] | None = None) -> dict[str, Any]:
    """Role -> agent for every declared role (or only `roles`), in speaking order."""
    wanted = list(roles) if roles is not None else list(setup.roles)
    return {role: build_agent(role, agent_config(config, role, setup), setup) for role in wanted}


# --- checked instantiation -------------------------------------------------------------------

SIMPLE_TYPES = {int: "a whole number", float: "a number", str: "a string", bool: "true or false",
                type(None): "null"}


def instantiate_group(group: str, node: Any, **passed: Any) -> Any:
    """`instantiate(node, **passed)` for config group `group`; a value its factory cannot take
    is a `CrsimError` naming `group.key` and the factory, in one line.

    Hydra hands the factory whatever YAML made of a command-line value, so a wrong type
    (`recommender.question_pool=abc`) would only fail mid-episode, and a parameter the
    factory lacks (`+recommender.nosuch=1`) fails inside Hydra with a multi-line report.
    Hydra resolves (and vets) the factory as a partial first; its keyword arguments are
    checked against the factory's signature (unknown, missing, and plainly typed ones:
    int, float, str, bool, None, Literal), then it is called. A TypeError or ValueError
    it raises while building is reported the same way.
    """
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

    if node.get("_partial_"):  # the config asks for a partial itself: nothing is called here
        return instantiate(node, **passed, _convert_="partial")
    target = str(node.get("_target_", "?"))
    unset = sorted(OmegaConf.missing_keys(node))  # full keys when `node` sits in the run's config
    if unset:
        key = unset[0] if unset[0].startswith(f"{group}.") else f"{group}.{unset[0]}"
        raise CrsimError(f"{key} has no value (??? in its config file): set {key}=VALUE")
    try:
        factory = instantiate(node, _partial_=True, _convert_="partial")
        if hasattr(factory, "func"):
            check_arguments(group, target, factory.func, factory.args, factory.keywords, passed)
        return factory(**passed)
    except CrsimError:
        raise
    except Exception as exc:
        problem = _factory_problem(group, target, node, exc)
        if problem is None:
            raise
        raise CrsimError(problem) from exc


def check_arguments(group: str, target: str, func: Any, args: tuple, keywords: Mapping[str, Any],
                    passed: Mapping[str, Any]) -> None:
    """`CrsimError` for the first configured keyword `func` cannot take (see `instantiate_group`)."""
    try:
        signature = inspect.signature(func, eval_str=True)
    except (NameError, TypeError, ValueError):  # annotations naming what only type checkers import
        try:
            signature = inspect.signature(func)
        except (TypeError, ValueError):
            return
    params = signature.parameters
    open_ended = any(p.kind == p.VAR_KEYWORD for p in params.values())
    named = [name for name, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for name in passed:
        if name not in params and not open_ended:
            raise CrsimError(f"{target} (the {group}) takes no '{name}' parameter, but crsim passes {name}= to "
                             f"every {group} factory: give it a '{name}' parameter")
    for name, value in keywords.items():
        if name not in params:
            if not open_ended:
                options = ", ".join(n for n in named if n not in passed)
                raise CrsimError(f"{group}.{name}={_shown(value)}: {target} has no parameter '{name}' "
                                 f"(it takes: {options}); remove it or fix its spelling")
            continue
        expected = _simple_type(params[name].annotation)
        if expected is not None and not any(_is_a(value, kind) for kind in expected):
            default = params[name].default
            example = f", e.g. {group}.{name}={_yaml(default)} (its default)" if default is not params[name].empty \
                and any(_is_a(default, kind) for kind in expected) else ""
            raise CrsimError(f"{group}.{name}={_shown(value)} is not valid: {target} takes "
                             f"{' or '.join(_describe(kind) for kind in expected)} for '{name}'{example}")
    if not args:
        missing = [n for n in named if params[n].default is params[n].empty and n not in keywords and n not in passed]
        if missing:
            raise CrsimError(f"{target} (the {group}) needs '{missing[0]}': add {group}.{missing[0]}=VALUE "
                             f"(+{group}.{missing[0]}=VALUE on the command line)")


def _simple_type(annotation: Any) -> list[Any] | None:
    """The plain types or Literal values `annotation` allows; None if it allows anything else."""
    if isinstance(annotation, type) and annotation in SIMPLE_TYPES:
        return [annotation]
    if annotation is None:
        return [type(None)]
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return [("literal", value) for value in typing.get_args(annotation)]
    if origin in (Union, types.UnionType):
        kinds: list[Any] = []
        for member in typing.get_args(annotation):
            simple = _simple_type(member)
            if simple is None:
                return None
            kinds.extend(simple)
        return kinds
    return None


def _is_a(value: Any, kind: Any) -> bool:
    if isinstance(kind, tuple):
        return type(value) is type(kind[1]) and value == kind[1]
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _describe(kind: Any) -> str:
    return _yaml(kind[1]) if isinstance(kind, tuple) else SIMPLE_TYPES[kind]


def _yaml(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _factory_problem(group: str, target: str, node: Any, exc: Exception) -> str | None:
    """One line for a factory that could not be found or rejected its settings; None: a bug, re-raised."""
    from environments.errors import causes

    chain = list(causes(exc))
    text = str(exc)
    where = re.search(r"full_key: (\S+)", text)
    key = where.group(1) if where else group  # a node detached from the run's config has keys without the group
    key = key if key.split(".")[0] == group else f"{group}.{key}"
    named = re.search(r"target '([^']+)'", text)
    factory = named.group(1) if named else target
    if text.startswith("Error locating target"):
        cause = chain[-1]  # the import's own error, under Hydra's
        return (f"{key}._target_: cannot import '{factory}' ({type(cause).__name__}: {_first_line(cause)}); "
                "check the name and that its package is installed")
    cause = next((c for c in chain if isinstance(c, (TypeError, ValueError))), None)
    if cause is None:
        return None
    said = _said(cause)
    values = _values_at(node, key.split(".")[1:])
    suspects = [name for name in values if not name.startswith("_") and re.search(rf"\b{re.escape(name)}\b", said)]
    hint = f"check {key}.{suspects[0]}={_shown(values[suspects[0]])}" if suspects else f"check the {key}.* values"
    return f"{key}: {factory} rejected its settings ({type(cause).__name__}: {said}); {hint}"


def _said(exc: BaseException) -> str:
    """An error's message in one line (a pydantic error: its first problem, with the field)."""
    problems = getattr(exc, "errors", None)
    if callable(problems):
        try:
            first = problems()[0]
            return f"{'.'.join(map(str, first['loc']))}: {first['msg']}"
        except Exception:  # not pydantic's errors() after all
            pass
    return _first_line(exc)


def _values_at(node: Any, path: list[str]) -> dict[str, Any]:
    """The config values of the (nested) node at `path` under `node`; {} if there is none."""
    try:
        values = _plain(node)
        for part in path:
            values = values[part]
        return values if isinstance(values, dict) else {}
    except Exception:  # an unresolvable interpolation, a missing part: no suspect to name
        return {}


def _shown(value: Any) -> str:
    return "null" if value is None else repr(value)


def _first_line(exc: BaseException) -> str:
    return next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
