"""The roles rule (a non-empty tuple of distinct role names) is one check,
`environments.check.roles_problem`, which `crsim run`'s build and the episode graph ask
too; each still says a broken rule in the words users have always seen."""

from __future__ import annotations

from typing import Any

import pytest

from environments.errors import CrsimError
from simulators.engine import build
from simulators.engine.episode import orchestrator


class DeclaredSetup:
    name = "declared"

    def __init__(self, roles: Any):
        self.roles = roles

    def new_episode(self) -> None:
        return None


@pytest.mark.parametrize("roles", [(), ("seeker", ""), ("seeker", 3), ["seeker", "recommender"],
                                   ("seeker", "seeker"), None])
def test_build_refuses_a_setup_that_breaks_the_rule(monkeypatch, roles):
    monkeypatch.setattr(build, "instantiate_group", lambda group, node: DeclaredSetup(roles))
    with pytest.raises(CrsimError) as caught:
        build.build_setup({"_target_": "my.protocol"})
    assert str(caught.value) == (
        "my.protocol built a DeclaredSetup, which does not declare a protocol: an environment factory must "
        "return an environments.base.EnvironmentSetup with its roles")


def test_build_takes_a_setup_that_keeps_it(monkeypatch):
    setup = DeclaredSetup(("seeker", "recommender"))
    monkeypatch.setattr(build, "instantiate_group", lambda group, node: setup)
    assert build.build_setup({"_target_": "my.protocol"}) is setup


@pytest.mark.parametrize(("roles", "says"), [
    ((), "an environment setup must declare at least one role"),
    (("a", "b", "a"), "roles must be distinct, got ['a', 'b', 'a']"),
    (("a", ""), "roles must be a tuple of non-empty role names, got ('a', '')"),
])
def test_the_episode_graph_says_which_part_is_broken(roles, says):
    with pytest.raises(ValueError) as caught:
        orchestrator(roles)
    assert str(caught.value) == says
