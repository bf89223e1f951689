"""Post-run evaluators: scoring that needs the whole run, not one turn (CQG/CPR, LLM judges).

A run's config may list `evaluators:` (each a `_target_`); each built object has a
`name` and `evaluate(episodes, setup) -> pandas.DataFrame`, and may have
`summary_lines(frame) -> list[str]` for one-line headlines. `crsim run` calls each after
the results table, prints its frame as a table and its lines, and writes
`<run dir>/eval-<name>.csv`. An evaluator that cannot score this run honestly (an LLM
judge with no language model) returns None: nothing is printed or written. Evaluators score episodes without changing them, so they
are left out of the config hash (`simulators.engine.config_hash`), like `environment.metrics`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from environments.errors import CrsimError
from environments.models import Episode

KEY = "evaluators"


@runtime_checkable
class Evaluator(Protocol):
    name: str

    def evaluate(self, episodes: Sequence[Episode], setup: Any) -> Any: ...


def build_evaluators(specs: Any) -> list[Evaluator]:
    """Instantiate the config's `evaluators:` list (None or empty: none)."""
    from hydra.utils import instantiate
    from omegaconf import DictConfig, ListConfig, OmegaConf

    if specs is None:
        return []
    if isinstance(specs, (DictConfig, ListConfig)):
        specs = OmegaConf.to_container(specs, resolve=True)
    if not isinstance(specs, list):
        raise CrsimError(f"{KEY} must be a list of evaluators (each with a _target_), got {type(specs).__name__}")
    built = []
    for position, spec in enumerate(specs):
        if not isinstance(spec, dict) or "_target_" not in spec:
            raise CrsimError(f"{KEY}[{position}] names no _target_")
        evaluator = instantiate(spec, _convert_="partial")
        if not isinstance(evaluator, Evaluator) or not re.fullmatch(r"[\w.-]+", str(evaluator.name)):
            raise CrsimError(f"{KEY}[{position}] ({spec['_target_']}) built a {type(evaluator).__name__}, which is "
                             "not an evaluator: it needs a `name` (letters, digits, _ . -) and "
                             "`evaluate(episodes, setup)`")
        built.append(evaluator)
    names = [e.name for e in built]
    if len(set(names)) != len(names):
        raise CrsimError(f"{KEY}: two evaluators share a name ({', '.join(names)})")
    return built


def evaluation_table(frame: Any, title: str) -> Any:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for column in frame.columns:
        table.add_column(str(column), justify="right" if frame[column].dtype.kind in "fiu" else "left")
    for row in frame.itertuples(index=False):
        table.add_row(*(("-" if v != v else f"{v:.3f}") if isinstance(v, float) else str(v) for v in row))
    return table


def run_evaluators(evaluators: Sequence[Evaluator], episodes: Sequence[Episode], setup: Any, run_dir: Path,
                   console: Any | None = None) -> dict[str, Any]:
    """Evaluate, write `eval-<name>.csv`, print tables and headlines; name -> frame."""
    frames = {}
    for evaluator in evaluators:
        frame = evaluator.evaluate(list(episodes), setup)
        if frame is None:
            continue
        frame.to_csv(Path(run_dir) / f"eval-{evaluator.name}.csv", index=False)
        frames[evaluator.name] = frame
        if console is not None:
            console.print(evaluation_table(frame, f"{evaluator.name} — {len(episodes)} episodes"))
            for line in getattr(evaluator, "summary_lines", lambda _f: [])(frame):
                console.print(line, highlight=False)
    return frames
