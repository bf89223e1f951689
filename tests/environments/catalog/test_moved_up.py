"""What moved up out of the catalog in 0.2 still imports from its old path until 0.3, with a
warning naming the new home; the catalog package itself imports nothing above it."""

from __future__ import annotations

import importlib
import sys

import pytest

from environments.moved import MovedModuleWarning


@pytest.mark.parametrize(("old", "name", "new"), [
    ("environments.catalog", "load_catalog", "environments.loading"),
    ("environments.catalog.loading", "load_catalog", "environments.loading"),
    ("environments.catalog.stats", "catalog_statistics", "environments.statistics"),
    ("environments.catalog.stats", "music_statistics", "environments.statistics"),
])
def test_a_name_that_moved_up_still_resolves_with_a_warning(old, name, new):
    module = importlib.import_module(old)
    module.__dict__.pop(name, None)  # as in a fresh process: not yet read through the old path
    with pytest.warns(MovedModuleWarning, match=f"{old}.{name} moved to {new}.{name}"):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(new), name)
    with pytest.raises(AttributeError):
        getattr(module, "no_such_name")


def test_the_vocabulary_module_path_still_imports_with_a_warning():
    sys.modules.pop("environments.catalog.vocabulary", None)
    vars(sys.modules["environments.catalog"]).pop("vocabulary", None)
    with pytest.warns(MovedModuleWarning, match="environments.catalog.vocabulary moved to environments.search.vocabulary"):
        from environments.catalog.vocabulary import CatalogVocabulary
    from environments.search.vocabulary import CatalogVocabulary as new
    assert CatalogVocabulary is new


def test_names_still_in_the_catalog_do_not_warn(recwarn):
    from environments.catalog import Catalog, load_catalog_dir  # noqa: F401
    from environments.catalog.stats import CatalogStats, format_statistics, play_counts  # noqa: F401

    assert not [w for w in recwarn if issubclass(w.category, MovedModuleWarning)]
