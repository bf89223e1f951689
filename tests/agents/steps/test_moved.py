"""Release 0.2.6's step module paths still import until 0.3, with a warning naming the new home."""

from __future__ import annotations

import importlib
import sys

import pytest

from environments.moved import MovedModuleWarning


def _fresh_import(name: str):
    """As in a fresh process: neither in sys.modules nor an attribute of its parent package."""
    sys.modules.pop(name, None)
    parent, _, child = name.rpartition(".")
    if parent in sys.modules and child in vars(sys.modules[parent]):
        delattr(sys.modules[parent], child)
    return importlib.import_module(name)


@pytest.mark.parametrize(("old", "new"), [
    ("agents.steps.seeker_answer", "agents.steps.seeker.answer"),
    ("agents.steps.clarify", "agents.steps.recommender.clarify"),
    ("agents.steps.snippets", "agents.steps.sniprec.snippets"),
    ("agents.steps.shopping_single_pass", "agents.steps.tracer.single_pass"),
    ("agents.steps.aspect_judge", "agents.steps.judge.aspects"),
    ("agents.steps.preferences", "agents.steps.pepper"),
])
def test_an_old_step_module_is_the_new_module_with_a_warning(old, new):
    with pytest.warns(MovedModuleWarning, match=f"{old} moved to {new}"):
        module = _fresh_import(old)
    assert module is importlib.import_module(new)


@pytest.mark.parametrize(("old", "name", "new"), [
    ("agents.steps.crag", "RecommendStep", "agents.steps.crag.steps"),
    ("agents.steps.playlist", "link_tracks", "agents.steps.playlist.steps"),
    ("agents.steps.judge", "JudgeStep", "agents.steps.judge.rubric"),
])
def test_a_module_that_became_a_method_package_still_gives_its_names(old, name, new):
    package = importlib.import_module(old)
    vars(package).pop(name, None)
    with pytest.warns(MovedModuleWarning, match=f"{old}.{name} moved to {new}.{name}"):
        value = getattr(package, name)
    assert value is getattr(importlib.import_module(new), name)
    with pytest.raises(AttributeError):
        getattr(package, "no_such_name")


def test_the_old_preferences_path_gives_the_names_of_both_pepper_modules():
    from agents.steps.pepper.preferences import binary_score
    from agents.steps.pepper.reflect import ReflectStep

    with pytest.warns(MovedModuleWarning):
        old = _fresh_import("agents.steps.preferences")
    assert old.ReflectStep is ReflectStep and old.binary_score is binary_score
    with pytest.raises(AttributeError):
        old.no_such_name  # noqa: B018


def test_the_new_paths_import_without_a_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", MovedModuleWarning)
        for path in ("agents.steps.seeker.talk", "agents.steps.recommender.item_answer", "agents.steps.crag.steps",
                     "agents.steps.tracer.dialogue", "agents.steps.pepper.reflect", "agents.steps.judge.rubric"):
            importlib.import_module(path)
