"""The dense recommender's first run: its encoder's graph (`minilm-q8`) is built once per
cache, its index in bulk on two threads, both cached by content; a run on a cold cache and
one on a warm cache, or on another cold cache (a graph built again), log the same bytes."""

from __future__ import annotations

import pytest
from crsim_testing import crsim


@pytest.mark.slow
def test_cold_and_warm_caches_give_identical_dense_logs(tiny_catalog_dir, tmp_path):
    common = [f"environment.catalog={tiny_catalog_dir}", "environment.target_pool_size=10", "recommender=dense",
              "episodes=4", "max_turns=3", "progress=false", "embedding_model=minilm-int8"]
    logs = []
    for name, cache in (("cold", "c1"), ("warm", "c1"), ("other", "c2")):
        out = crsim("run", *common, f"hydra.run.dir={tmp_path / name}", env={"CRSIM_CACHE_DIR": str(tmp_path / cache)})
        assert out.returncode == 0, out.stderr[-2000:]
        logs.append((tmp_path / name / "episodes.jsonl").read_bytes())
    assert logs[0] == logs[1] == logs[2]
    assert list((tmp_path / "c1" / "dense").glob("*.npy"))  # the item documents and fields, cached
    assert len(list((tmp_path / "c1" / "models").glob("*.onnx"))) == 1  # built on the cold run only
