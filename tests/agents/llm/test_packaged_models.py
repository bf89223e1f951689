"""Packaged models: parts joined once into the cache, checked by SHA-256, one line when missing."""

import hashlib
from pathlib import Path

import pytest

from agents.llm import packaged
from agents.llm.packaged import PackagedModel, packaged_model_path
from environments.errors import CrsimError

PARTS = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]


@pytest.fixture
def fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PackagedModel:
    """Three part packages on sys.path, each with one data/partNN.bin, like the real ones."""
    for n, data in enumerate(PARTS, 1):
        package = tmp_path / "site" / f"fake_model_part{n}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{n:02d}.bin").write_bytes(data)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    whole = b"".join(PARTS)
    model = PackagedModel("fake-1b", "a test model", tuple(f"fake_model_part{n}" for n in (1, 2, 3)), "fake",
                          len(whole), hashlib.sha256(whole).hexdigest())
    monkeypatch.setitem(packaged.PACKAGED, model.name, model)
    return model


def test_parts_are_joined_once_and_checked(fake_model, tmp_path):
    path = packaged_model_path("fake-1b", tmp_path / "cache")
    assert path.read_bytes() == b"".join(PARTS) and path.name == "fake-1b.gguf"
    assert path.with_suffix(".gguf.sha256").read_text().strip() == fake_model.sha256
    before = path.stat().st_mtime_ns
    assert packaged_model_path("fake-1b", tmp_path / "cache") == path and path.stat().st_mtime_ns == before
    assert not list((tmp_path / "cache").glob("*.part-*"))


def test_a_wrong_checksum_keeps_nothing(fake_model, tmp_path, monkeypatch):
    monkeypatch.setitem(packaged.PACKAGED, "fake-1b", PackagedModel(
        fake_model.name, "", fake_model.modules, "fake", fake_model.size, "0" * 64))
    with pytest.raises(CrsimError, match="expected 000000000000... .*reinstall the part packages"):
        packaged_model_path("fake-1b", tmp_path / "cache")
    assert not list((tmp_path / "cache").iterdir())


def test_missing_parts_and_unknown_names_are_one_line(tmp_path, monkeypatch):
    model = PackagedModel("absent-1b", "", ("no_such_part_1", "no_such_part_2"), "absent", 1, "0" * 64)
    monkeypatch.setitem(packaged.PACKAGED, model.name, model)
    with pytest.raises(CrsimError) as caught:
        packaged_model_path("absent-1b", tmp_path)
    assert "2 of 2 part packages are missing" in str(caught.value) and "pip install 'crsim[absent]'" in str(caught.value)
    with pytest.raises(CrsimError, match="not a packaged model; known: .*qwen2.5-1.5b"):
        packaged_model_path("gpt-5")


def test_the_shipped_models_are_named_in_the_config_and_the_extras():
    config = (Path(__file__).parents[3] / "conf" / "llm" / "local.yaml").read_text()
    project = (Path(__file__).parents[3] / "pyproject.toml").read_text()
    for model in packaged.PACKAGED.values():
        assert model.name in config and f"{model.extra} = [" in project
        assert all(m.replace("_", "-") in project for m in model.modules)


def test_local_takes_a_name_or_a_path_not_both():
    from agents.llm.local import local

    with pytest.raises(CrsimError, match="not both"):
        local(model="qwen2.5-1.5b", model_path="/x.gguf")
