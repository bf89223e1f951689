"""Unknown keys and config options end a run with one line, before anything is built."""

from __future__ import annotations

import pytest

from crsim_testing import crsim
from environments.errors import CrsimError
from simulators.cli.precheck import check_overrides
from simulators.engine.hydra_setup import CONF_DIR, compose_config


@pytest.mark.parametrize(("overrides", "expected"), [
    (["nosuchkey=3"], "no key 'nosuchkey' in the config"),
    (["recommender=nosuch"], "Could not find 'recommender/nosuch'; available: bm25,"),
    (["recommender=bm25,nosuch", "episodes=2"], "Could not find 'recommender/nosuch'"),  # a sweep's later job
    (["environment=nope"], "available: grounded, movies,"),
    (["recommender.question_pool=[1,"], "cannot read the overrides"),
])
def test_each_mistake_is_one_line_naming_it(overrides, expected):
    with pytest.raises(CrsimError) as caught:
        check_overrides(CONF_DIR, overrides)
    assert expected in str(caught.value) and "\n" not in str(caught.value)


def test_good_overrides_sweeps_and_hydra_settings_pass():
    check_overrides(CONF_DIR, ["-m", "recommender=bm25,dense", "episodes=2", "hydra.run.dir=/tmp/x",
                               "runner.backend=processes"])


def test_the_cli_exits_2_with_the_line(tmp_path):
    done = crsim("run", "recommender=nosuch", f"hydra.run.dir={tmp_path}")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        done.stderr.strip()] and done.stderr.startswith("crsim: error: In 'config': Could not find")


# --- mistakes only the factories can see: wrong values, missing catalogs ----------------------

@pytest.mark.parametrize(("overrides", "expected"), [
    (["recommender.question_pool=abc"],
     "recommender.question_pool='abc' is not valid: agents.recommenders.bm25.build takes a whole number for "
     "'question_pool', e.g. recommender.question_pool=50 (its default)"),
    (["recommender.question_pool=null"], "recommender.question_pool=null is not valid: agents.recommenders.bm25.build"),
    (["recommender=popularity", "recommender.review_aspects=2.5"],
     "recommender.review_aspects=2.5 is not valid: agents.recommenders.popularity.build takes a whole number"),
    (["+recommender.nosuch=1"],
     "recommender.nosuch=1: agents.recommenders.bm25.build has no parameter 'nosuch' (it takes: llm, question_pool, "
     "cache_dir, review_aspects, embedding_model); remove it or fix its spelling"),
    (["recommender=curator_bm25", "recommender.scorer=xx"], "recommender.scorer='xx'; expected one of bm25"),
    (["llm@recommender.llm=replay"], "recommender.llm.model has no value (??? in its config file): "
                                     "set recommender.llm.model=VALUE"),
    (["recommender._target_=agents.nosuch.build"],
     "recommender._target_: cannot import 'agents.nosuch.build' (AttributeError: module 'agents' has no attribute "
     "'nosuch'); check the name and that its package is installed"),
])
def test_an_agent_value_its_factory_cannot_take_is_one_line_naming_key_and_factory(overrides, expected, tiny_catalog):
    from simulators.engine.build import instantiate_group

    cfg = compose_config(overrides)
    with pytest.raises(CrsimError) as caught:
        instantiate_group("recommender", cfg.recommender, catalog=tiny_catalog)
    assert str(caught.value).startswith(expected) and "\n" not in str(caught.value)


def test_an_environment_value_its_factory_rejects_names_the_key(tiny_catalog_dir):
    from simulators.engine.build import build_setup

    cfg = compose_config([f"environment.catalog={tiny_catalog_dir}", "environment.target_sampling=weird"])
    with pytest.raises(CrsimError) as caught:
        build_setup(cfg.environment)
    assert str(caught.value) == (
        "environment: environments.single_target.build_single_target rejected its settings (ValueError: "
        "target_sampling='weird'; expected by_reviews or uniform); check environment.target_sampling='weird'")


def test_a_factory_bug_is_not_passed_off_as_a_config_mistake():
    from simulators.engine.build import instantiate_group

    with pytest.raises(ZeroDivisionError):
        instantiate_group("recommender", compose_config([]).recommender, catalog=_Exploding())


class _Exploding:
    """A catalog whose use divides by zero: an error in the code, not in the config."""

    def __getattr__(self, name):
        return 1 / 0


def _catalog_dirs(tmp_path, tiny_catalog_dir):
    (tmp_path / "no-items").mkdir()
    (tmp_path / "empty-items").mkdir()
    (tmp_path / "empty-items" / "items.jsonl").write_text("\n", encoding="utf-8")
    return {"tiny": tiny_catalog_dir, "no-items": tmp_path / "no-items", "empty-items": tmp_path / "empty-items",
            "missing": tmp_path / "does" / "not" / "exist"}


@pytest.mark.parametrize(("overrides", "expected"), [
    (["recommender.question_pool=abc"], "recommender.question_pool='abc' is not valid: agents.recommenders.bm25.build "
                                        "takes a whole number for 'question_pool'"),
    (["+recommender.nosuch=1"], "recommender.nosuch=1: agents.recommenders.bm25.build has no parameter 'nosuch'"),
    (["environment.catalog={missing}"], "environment.catalog={missing}: no such directory; give a catalog directory "
                                        "(one holding items.jsonl; `crsim data import` makes one) or "
                                        "environment.catalog=null for the synthetic world"),
    (["environment.catalog={no-items}"], "{no-items}/items.jsonl: file not found: a catalog directory holds "
                                         "items.jsonl, one JSON item per line (`crsim data import` makes one)"),
    (["environment.catalog={empty-items}"], "{empty-items}/items.jsonl: catalog has no items: write one JSON item "
                                            "per line, e.g. {{\"id\": \"i1\", \"title\": \"Thai Palace\"}}"),
])
def test_the_cli_reports_bad_values_and_catalogs_in_one_line(overrides, expected, tmp_path, tiny_catalog_dir):
    dirs = _catalog_dirs(tmp_path, tiny_catalog_dir)
    overrides = [o.format(**dirs) for o in overrides]
    if not any(o.startswith("environment.catalog=") for o in overrides):
        overrides.append(f"environment.catalog={dirs['tiny']}")
    done = crsim("run", *overrides, "environment.target_pool_size=5", "episodes=1", "max_turns=1",
                 "progress=false", f"hydra.run.dir={tmp_path / 'run'}")
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"crsim: error: {expected.format(**dirs)}"), done.stderr[-2000:]
