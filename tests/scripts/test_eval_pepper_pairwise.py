"""The PEPPER pairwise validation script on a small world: general preferences beat raw reviews."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "eval_pepper_pairwise.py"


def test_general_preferences_pick_the_higher_rated_target_more_often(crsim_cache):
    spec = importlib.util.spec_from_file_location("eval_pepper_pairwise", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    report = module.evaluate(users=60, cache_dir=str(crsim_cache), resamples=500,
                             world={"n_items": 400, "n_users": 150, "min_reviews_per_item": 5, "seed": 3})
    accuracy = report["accuracy"]
    assert report["pairs"] > 200 and set(accuracy) == {"raw_review", "binary", "general", "truth"}
    assert accuracy["truth"]["mean"] > accuracy["general"]["mean"] > accuracy["raw_review"]["mean"]
    assert accuracy["general"]["mean"] > 0.6
    for row in accuracy.values():
        assert 0.0 <= row["low"] <= row["mean"] <= row["high"] <= 1.0
    assert set(report["truth_agreement"]) == {"raw_review", "binary", "general"}
