"""Unknown keys and config options end a run with one line, before anything is built."""

from __future__ import annotations

import pytest

from crsim_testing import crsim
from environments.errors import CrsimError
from simulators.cli.precheck import check_overrides
from simulators.cli.run import CONF_DIR, register_resolvers


@pytest.mark.parametrize(("overrides", "expected"), [
    (["nosuchkey=3"], "no key 'nosuchkey' in the config"),
    (["recommender=nosuch"], "Could not find 'recommender/nosuch'; available: bm25,"),
    (["recommender=bm25,nosuch", "episodes=2"], "Could not find 'recommender/nosuch'"),  # a sweep's later job
    (["environment=nope"], "available: movies,"),
    (["recommender.question_pool=[1,"], "cannot read the overrides"),
])
def test_each_mistake_is_one_line_naming_it(overrides, expected):
    register_resolvers()
    with pytest.raises(CrsimError) as caught:
        check_overrides(CONF_DIR, overrides)
    assert expected in str(caught.value) and "\n" not in str(caught.value)


def test_good_overrides_sweeps_and_hydra_settings_pass():
    register_resolvers()
    check_overrides(CONF_DIR, ["-m", "recommender=bm25,dense", "episodes=2", "hydra.run.dir=/tmp/x",
                               "runner.backend=processes"])


def test_the_cli_exits_2_with_the_line(tmp_path):
    done = crsim("run", "recommender=nosuch", f"hydra.run.dir={tmp_path}")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        done.stderr.strip()] and done.stderr.startswith("crsim: error: In 'config': Could not find")
