"""Release 0.1's module paths still import until 0.3, with a warning naming the new home."""

from __future__ import annotations

import importlib
import sys

import pytest

from environments.moved import MovedModuleWarning


def _forget(name: str) -> None:
    """As in a fresh process: neither in sys.modules nor an attribute of its parent package."""
    sys.modules.pop(name, None)
    parent, _, child = name.rpartition(".")
    if parent in sys.modules and child in vars(sys.modules[parent]):
        delattr(sys.modules[parent], child)


def _fresh_import(name: str):
    _forget(name)
    return importlib.import_module(name)


@pytest.mark.parametrize(("old", "new"), [
    ("simulators.judge", "simulators.evaluators.judge"),
    ("simulators.runner", "simulators.engine.runner"),
    ("simulators.evaluation.cpcd_eval", "simulators.offline.cpcd.evaluate"),
    ("environments.holdout", "environments.single_target.holdout"),
])
def test_an_old_module_path_is_the_new_module_with_a_warning(old, new):
    with pytest.warns(MovedModuleWarning) as caught:  # a moved parent package warns too
        module = _fresh_import(old)
    assert any(f"{old} moved to {new}" in str(w.message) for w in caught)
    assert module is importlib.import_module(new)


def test_names_of_a_module_that_became_a_package_still_resolve():
    import simulators.results

    simulators.results.__dict__.pop("results_frame", None)
    with pytest.warns(MovedModuleWarning, match="simulators.results.results_frame moved to simulators.results.table"):
        from simulators.results import results_frame
    from simulators.results.table import results_frame as new
    assert results_frame is new
    with pytest.raises(ImportError):
        from simulators.results import no_such_name  # noqa: F401


def test_an_old_target_in_a_config_still_builds():
    from simulators.evaluators.base import build_evaluators
    from simulators.evaluators.judge import PepperJudge

    _forget("simulators.judge")
    with pytest.warns(MovedModuleWarning):
        built = build_evaluators([{"_target_": "simulators.judge.PepperJudge", "llm": None}])
    assert isinstance(built[0], PepperJudge)


def test_a_real_module_is_never_shadowed():
    import simulators.engine.runner

    assert "simulators.engine.runner" not in {name for finder in sys.meta_path
                                              for name in getattr(finder, "moved", {})}
    assert simulators.engine.runner.__name__ == "simulators.engine.runner"
