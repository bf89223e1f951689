"""Shared fixtures; the helpers behind them live in `crsim_testing.py`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.append(str(Path(__file__).parent))  # after the project root: tests/environments must not shadow environments

from crsim_testing import HashEncoder, make_tiny_catalog  # noqa: E402
from crs_stub_server import crs_stub  # noqa: E402,F401  (a remote CRS for recommender=http tests)
from openai_stub_server import openai_stub  # noqa: E402,F401  (a fixture for every test)

from environments.catalog import Catalog  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def crsim_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache (worlds, indexes) per test session, never the user's own."""
    path = Path(os.environ.get("CRSIM_TEST_CACHE_DIR") or tmp_path_factory.mktemp("crsim-cache"))
    os.environ["CRSIM_CACHE_DIR"] = str(path)
    return path


@pytest.fixture
def tiny_catalog() -> Catalog:
    return make_tiny_catalog()


@pytest.fixture
def tiny_catalog_dir(tmp_path: Path) -> Path:
    return make_tiny_catalog().save(tmp_path / "tiny")


@pytest.fixture
def hash_encoder() -> HashEncoder:
    return HashEncoder()
