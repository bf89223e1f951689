"""`check_environment` passes the shipped protocols (each protocol's own test calls it) and
names, in one line, each rule a broken plug-in breaks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from environments.base import StepResult
from environments.check import EnvironmentCheckError, check_environment, roles_problem
from environments.single_target import SingleTargetEnvironment, SingleTargetSetup


class Broken(SingleTargetSetup):
    """A single-target setup whose episodes break one rule, chosen by `fault`."""

    def __init__(self, catalog: Any, fault: str):
        super().__init__(catalog, target_pool_size=10, top_k=4)
        self.fault = fault

    def new_episode(self) -> SingleTargetEnvironment:
        return BrokenEpisode(self)


class BrokenEpisode(SingleTargetEnvironment):
    setup: Broken

    def reset(self, *, seed: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
        if self.setup.fault == "strict_options" and set(options or {}) - {"episode_index"}:
            raise TypeError(f"unexpected options {sorted(options or {})}")
        if self.setup.fault == "unseeded":
            seed = int(np.random.default_rng().integers(1 << 30))
        observations = super().reset(seed=seed, options=options)
        return {"seeker": observations["seeker"]} if self.setup.fault == "missing_role" else observations

    def observe(self, role: str) -> Any:
        observation = super().observe(role)
        if self.setup.fault == "leaks_notes":
            return type(observation)(*[self.dialogue.transcript() if name == "dialogue" else getattr(observation, name)
                                       for name in observation.__slots__])
        return observation

    def step(self, role: str, action: Any) -> StepResult:
        result = super().step(role, action)
        return None if self.setup.fault == "no_result" else result  # type: ignore[return-value]


@pytest.mark.parametrize(("fault", "says"), [
    ("missing_role", "one observation per declared role ['seeker', 'recommender'], got ['seeker']"),
    ("strict_options", "reset(seed, options) with an option it does not know raised TypeError"),
    ("unseeded", "the same seed gave another episode"),
    ("leaks_notes", "the recommender sees the seeker's private notes"),
    ("no_result", "step('seeker', ...) must return a StepResult, got NoneType"),
])
def test_names_the_broken_rule_in_one_line(tiny_catalog, fault, says):
    with pytest.raises(EnvironmentCheckError) as caught:
        check_environment(Broken(tiny_catalog, fault))
    message = str(caught.value)
    assert message.startswith("single_target: ") and says in message and "\n" not in message


def test_roles_must_be_declared(tiny_catalog):
    setup = SingleTargetSetup(tiny_catalog, target_pool_size=10)
    setup.roles = ["seeker", "seeker"]  # type: ignore[assignment]
    with pytest.raises(EnvironmentCheckError, match="non-empty tuple of distinct role names"):
        check_environment(setup)


@pytest.mark.parametrize(("roles", "problem"), [
    (("seeker", "recommender"), None),
    (("curator",), None),
    ((), "an environment setup must declare at least one role"),
    (("seeker", "seeker"), "roles must be distinct, got ['seeker', 'seeker']"),
    (["seeker", "recommender"], "roles must be a tuple of non-empty role names, got ['seeker', 'recommender']"),
    (("seeker", ""), "roles must be a tuple of non-empty role names, got ('seeker', '')"),
    (None, "roles must be a tuple of non-empty role names, got None"),
])
def test_the_roles_rule_is_one_check(tiny_catalog, roles, problem):
    assert roles_problem(roles) == problem
    if problem is None:
        return
    setup = SingleTargetSetup(tiny_catalog, target_pool_size=10)
    setup.roles = roles  # type: ignore[assignment]
    with pytest.raises(EnvironmentCheckError) as caught:
        check_environment(setup)
    assert str(caught.value) == (f"single_target: `roles` must be a non-empty tuple of distinct role names in "
                                 f"speaking order, got {roles!r}")


def test_a_setup_without_scripted_moves_can_pass_its_own(tiny_catalog):
    from environments.base import Recommendation, SeekerReply

    class Unscripted(SingleTargetSetup):
        def scripted_action(self, role: str, turn: Any, ending: Any) -> Any:
            raise NotImplementedError

    setup = Unscripted(tiny_catalog, target_pool_size=10)
    with pytest.raises(EnvironmentCheckError, match=r"scripted_action\('seeker', ...\) is not implemented"):
        check_environment(setup)
    check_environment(setup, moves={"seeker": lambda obs: SeekerReply("a quiet place"),
                                    "recommender": lambda obs: Recommendation("More?", ranked_ids=obs.candidates[:2])})
