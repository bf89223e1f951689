"""`check_environment(setup)`: does a protocol keep the contract the rest of crsim relies on?

A plug-in author writes an `EnvironmentSetup` and its `Environment`; `crsim run`, replay and
reports then drive it without knowing which protocol it is. This runs a setup the way they
do — `new_episode`, `reset` with an option it does not know, `observe` and `step` for every
declared role in speaking order, `evaluation` before and after — with scripted moves, and
raises `EnvironmentCheckError` with one line naming what is wrong. Gymnasium's `check_env`
is the model: call it in a test of your protocol.

The moves come from `setup.scripted_action` (the hook replay uses to re-apply a logged
move), fed with a turn that shows a few catalog items; pass `moves={role: fn}` where a
protocol's moves need more than a logged turn holds. Each scripted move carries a private
note, so the check also sees whether any role's observation shows another role's notes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from environments.base import Environment, EnvironmentSetup, StepResult
from environments.errors import CrsimError
from environments.models import EpisodeEvaluation, Turn

PRIVATE_NOTE = "check_environment_private"
UNKNOWN_OPTION = "check_environment_unknown_option"
SHOWN = 3


class EnvironmentCheckError(CrsimError):
    """One line saying which part of the environment contract a setup breaks."""


Move = Callable[[Any], Any]  # observation -> action


def check_environment(setup: EnvironmentSetup, *, rounds: int = 2, seed: int = 0,
                      moves: Mapping[str, Move] | None = None) -> None:
    """Drive `setup` through `rounds` rounds twice with the same seed; raise on the first
    broken rule (see the module docstring). Returns None when the setup keeps them all."""
    name = getattr(setup, "name", type(setup).__name__)
    roles = _declared_roles(setup, name)
    for role in roles:
        _call(name, f"agent_catalog({role!r})", lambda r=role: setup.agent_catalog(r))
    fresh = _new_episode(setup, name)
    if not isinstance(_call(name, "evaluation() before reset", fresh.evaluation), EpisodeEvaluation):
        raise EnvironmentCheckError(f"{name}: evaluation() must return an EpisodeEvaluation, even before reset")
    first = _play(setup, name, roles, rounds, seed, moves or {})
    again = _play(setup, name, roles, rounds, seed, moves or {})
    if first != again:
        raise EnvironmentCheckError(f"{name}: the same seed gave another episode (evaluation differs): draw every "
                                    "random choice from a generator seeded in reset(seed=...)")


def roles_problem(roles: object) -> str | None:
    """What breaks the roles rule in `roles`, in one line; None when they keep it.

    The rule (`EnvironmentSetup.roles`): a non-empty tuple of distinct, non-empty role names,
    in speaking order; `crsim run` builds one agent per name and the episode graph has one
    node per name, so a repeated or empty name has no agent or no place to go. It is checked
    here once, for the three that rely on it: `check_environment`, `crsim run`'s build of
    the setup (`simulators.engine.build.build_setup`) and the episode graph
    (`simulators.engine.episode.orchestrator`). Each says it in its own words; the reason
    returned here is the episode graph's.
    """
    if not isinstance(roles, tuple) or not all(isinstance(role, str) and role for role in roles):
        return f"roles must be a tuple of non-empty role names, got {roles!r}"
    if not roles:
        return "an environment setup must declare at least one role"
    if len(set(roles)) != len(roles):
        return f"roles must be distinct, got {list(roles)}"
    return None


def _declared_roles(setup: EnvironmentSetup, name: str) -> tuple[str, ...]:
    roles = getattr(setup, "roles", None)
    if roles_problem(roles) is not None:
        raise EnvironmentCheckError(f"{name}: `roles` must be a non-empty tuple of distinct role names in speaking "
                                    f"order, got {roles!r}")
    return roles  # type: ignore[return-value]


def _new_episode(setup: EnvironmentSetup, name: str) -> Environment:
    env = _call(name, "new_episode()", setup.new_episode)
    missing = [m for m in ("reset", "observe", "step", "evaluation") if not callable(getattr(env, m, None))]
    if missing:
        raise EnvironmentCheckError(f"{name}: new_episode() returned a {type(env).__name__} without "
                                    f"{', '.join(missing)}: return an environments.base.Environment")
    return env


def _play(setup: EnvironmentSetup, name: str, roles: tuple[str, ...], rounds: int, seed: int,
          moves: Mapping[str, Move]) -> str:
    """One episode of scripted moves; returns its evaluation as JSON (to compare runs)."""
    env = _new_episode(setup, name)
    options = {"episode_index": 0, UNKNOWN_OPTION: True}
    first = _call(name, "reset(seed, options) with an option it does not know",
                  lambda: env.reset(seed=seed, options=options))
    if not isinstance(first, Mapping) or set(first) != set(roles):
        got = sorted(first) if isinstance(first, Mapping) else type(first).__name__
        raise EnvironmentCheckError(f"{name}: reset() must return one observation per declared role {list(roles)}, "
                                    f"got {got}")
    made = 0
    for round_ in range(1, rounds + 1):
        for role in roles:
            observation = _call(name, f"observe({role!r})", lambda r=role: env.observe(r))
            if observation is None:
                raise EnvironmentCheckError(f"{name}: observe({role!r}) returned None")
            _no_foreign_notes(name, role, observation)
            action = (_call(name, f"moves[{role!r}]", lambda r=role, o=observation: moves[r](o)) if role in moves
                      else _scripted(setup, name, role, round_))
            result = _call(name, f"step({role!r}, {type(action).__name__})", lambda r=role, a=action: env.step(r, a))
            if not isinstance(result, StepResult):
                raise EnvironmentCheckError(f"{name}: step({role!r}, ...) must return a StepResult, "
                                            f"got {type(result).__name__}")
            made += 1
            if result.terminated:
                return _evaluated(env, name, setup, made)
    return _evaluated(env, name, setup, made)


def _scripted(setup: EnvironmentSetup, name: str, role: str, round_: int) -> Any:
    shown = list(setup.catalog.item_ids[:SHOWN]) if getattr(setup, "catalog", None) is not None else []
    turn = Turn(index=0, role=role, text=f"scripted move {round_} of {role}", items_shown=shown,
                metadata={PRIVATE_NOTE: role})
    try:
        return setup.scripted_action(role, turn, None)
    except NotImplementedError:
        raise EnvironmentCheckError(f"{name}: scripted_action({role!r}, ...) is not implemented: implement it (replay "
                                    f"needs it too) or pass moves={{{role!r}: fn}}") from None
    except Exception as exc:
        raise EnvironmentCheckError(f"{name}: scripted_action({role!r}, ...) raised {_one_line(exc)}") from None


def _evaluated(env: Environment, name: str, setup: EnvironmentSetup, made: int) -> str:
    evaluation = _call(name, "evaluation()", env.evaluation)
    if not isinstance(evaluation, EpisodeEvaluation):
        raise EnvironmentCheckError(f"{name}: evaluation() must return an EpisodeEvaluation, "
                                    f"got {type(evaluation).__name__}")
    if len(evaluation.turns) < made:
        raise EnvironmentCheckError(f"{name}: {made} moves were made but evaluation().turns holds "
                                    f"{len(evaluation.turns)}: append every move to the DialogueInterface")
    known = set(setup.catalog.item_ids) if getattr(setup, "catalog", None) is not None else None
    unknown = [t for t in evaluation.targets if known is not None and t not in known]
    if unknown:
        raise EnvironmentCheckError(f"{name}: target {unknown[0]!r} is not an item of setup.catalog")
    return evaluation.model_dump_json()


def _no_foreign_notes(name: str, role: str, observation: Any, depth: int = 0) -> None:
    """Raise when `observation` holds another role's turn with its private notes."""
    if depth > 3 or isinstance(observation, (str, bytes, int, float)) or observation is None:
        return
    if isinstance(observation, Turn):
        owner = observation.metadata.get(PRIVATE_NOTE)
        if owner is not None and observation.role != role:
            raise EnvironmentCheckError(f"{name}: the {role} sees the {observation.role}'s private notes in turn "
                                        f"{observation.index}: give each role dialogue.visible_to(role), "
                                        "not transcript()")
        return
    if dataclasses.is_dataclass(observation) and not isinstance(observation, type):
        children: Any = (getattr(observation, f.name) for f in dataclasses.fields(observation))
    elif isinstance(observation, Mapping):
        children = observation.values()
    elif isinstance(observation, (list, tuple)):
        children = observation
    else:
        return
    for child in children:
        _no_foreign_notes(name, role, child, depth + 1)


def _call(name: str, what: str, fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except EnvironmentCheckError:
        raise
    except Exception as exc:
        raise EnvironmentCheckError(f"{name}: {what} raised {_one_line(exc)}") from None


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
