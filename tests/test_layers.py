"""The project's import graph: no import circle, and no arrow that runs up a layer.

The graph is read from the source with `ast`, never by importing anything: an arrow for
every `import` statement in `agents/`, `environments/`, `simulators/` and `scripts/`, at
the top of a module and inside functions alike (a lazy import is still a dependency: it
only moves the moment it is paid). `from X import Y` is an arrow to `X.Y` when `Y` is a
module, else to `X`. Imports under `if TYPE_CHECKING:` are left out: they never run, so
they cannot make a circle or make a lower layer load a higher one, and they only name a
type for an annotation (`environments/base.py` types `agent_catalog` as a `Catalog`).
Imports by computed name (`importlib.import_module(f"...")`, the lazy export maps of
`environments/search/__init__.py` and `agents/llm/__init__.py`) are not seen.
"""

from __future__ import annotations

import ast
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("agents", "environments", "simulators", "scripts")

LAYERS: dict[str, tuple[str, ...]] = {
    # Top to bottom. A row names what sits directly under the scope (subpackages and
    # modules); an arrow may run down the table, not up. Names in one row joined by ","
    # may import each other; names joined by "|" are side by side and must not.
    # The scope package's own `__init__.py` is its front door and is not in its table.
    "": (
        # DESIGN.md §1: simulators -> agents -> environments; scripts drive all of them.
        "scripts",
        "simulators",
        "agents",
        "environments",
    ),
    "environments": (
        # Measuring a catalog reads review text as the aspect miner does and goal playlists
        # as the playlist protocol loads them (`crsim data info --stats`, the fidelity report).
        "statistics",
        # One package per protocol. SnipRec's grounded seeker reads PEPPER's review profile
        # (`single_target/grounded.py` -> `multi_target.profile`), so single_target sits above
        # the other three, which know nothing of each other.
        "single_target",
        "multi_target | playlist | shopping",
        # What more than one protocol uses: the catalog a config names (a directory or a
        # world), hidden-target ranking, and a target's facts (read from a world's truth).
        "loading, target_ranking, target_facts",
        # Dialogue acts: the inventory, the labeller of corpus turns, the fitted seeker policy.
        "acts",
        # A world is written to the search cache (`worlds/cache.py` -> `search.cache`);
        # the title index parses dataset titles (`search/titles.py` -> `datasets.normalize`);
        # every dataset adapter writes a catalog. The catalog knows none of them: it is the
        # format everything above reads and writes.
        "worlds",
        "search",
        "datasets",
        "catalog",
        # The contract and the data model, which every package above speaks.
        "base, check, ranking, episodes",
        "models, errors, moved",
    ),
    "agents.steps": (
        # One package per method, none reading another's steps; then the steps any method
        # uses, by role (neither role's steps read the other's); then the step protocol and
        # the text helpers everything uses.
        "pepper | sniprec | crag | playlist | tracer | judge",
        "seeker | recommender",
        "base, text",
    ),
}


@dataclass(frozen=True)
class Arrow:
    source: str  # module importing
    target: str  # module imported
    path: str    # file of the source, relative to the tree's root
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.source} -> {self.target}"


def module_files(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the project's own packages."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(statements: Sequence[ast.AST]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement in `statements` and below, skipping `if TYPE_CHECKING:` bodies."""
    for node in statements:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _imports(node.orelse)
        else:
            yield from _imports(list(ast.iter_child_nodes(node)))


def _known(name: str, modules: Mapping[str, Path]) -> str | None:
    """The longest prefix of `name` that is one of our modules (`import a.b.c`)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in modules:
            return ".".join(parts[:end])
    return None


def import_arrows(root: Path) -> list[Arrow]:
    modules = module_files(root)
    arrows = set()
    for source, path in modules.items():
        is_package = path.name == "__init__.py"
        rel = str(path.relative_to(root))
        for node in _imports(ast.parse(path.read_bytes(), filename=rel).body):
            if isinstance(node, ast.Import):
                targets = [_known(alias.name, modules) for alias in node.names]
            else:
                base = node.module or ""
                if node.level:  # relative: from the package the module is in
                    package = source.split(".")[: len(source.split(".")) - node.level + is_package]
                    base = ".".join([*package, base] if base else package)
                targets = [_known(f"{base}.{alias.name}", modules) if f"{base}.{alias.name}" in modules
                           else _known(base, modules) for alias in node.names]
            arrows.update(Arrow(source, t, rel, node.lineno) for t in targets if t and t != source)
    return sorted(arrows, key=lambda a: (a.path, a.line, a.target))


def import_circles(arrows: Sequence[Arrow]) -> list[str]:
    """One message per strongly connected set of modules: a circle through it, arrow by arrow."""
    first: dict[tuple[str, str], Arrow] = {}
    graph: dict[str, list[str]] = {}
    for arrow in arrows:
        if first.setdefault((arrow.source, arrow.target), arrow) is arrow:
            graph.setdefault(arrow.source, []).append(arrow.target)
    # Tarjan's strongly connected components, iteratively (the graph is a few hundred nodes).
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(graph.get(start, ())))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(graph.get(child, ()))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    messages = []
    for component in components:
        members, start = set(component), component[0]
        came_from: dict[str, str] = {}  # breadth first from `start` back to it: a shortest circle
        frontier = [start]
        while start not in came_from:
            reached = []
            for node in frontier:
                for target in graph.get(node, ()):
                    if target in members and target not in came_from:
                        came_from[target] = node
                        reached.append(target)
            frontier = reached
        circle = [start, came_from[start]]
        while circle[-1] != start:
            circle.append(came_from[circle[-1]])
        circle.reverse()
        steps = "\n".join(f"    {first[a, b]}" for a, b in zip(circle, circle[1:]))
        messages.append(f"import circle {' -> '.join(circle)} ({len(component)} modules in it):\n{steps}")
    return messages


def _rows(scope: str) -> dict[str, tuple[int, bool]]:
    """Name under `scope` -> (row, top first; whether the row's names must not import each other)."""
    return {name.strip(): (row, "|" in names)
            for row, names in enumerate(LAYERS[scope]) for name in names.replace("|", ",").split(",")}


def _member(module: str, scope: str) -> str | None:
    """The name directly under `scope` that `module` is in (None: outside, or the scope itself)."""
    prefix = f"{scope}." if scope else ""
    if not module.startswith(prefix) or module == scope:
        return None
    return module[len(prefix):].split(".")[0]


def layer_violations(arrows: Sequence[Arrow], modules: Sequence[str], scope: str) -> list[str]:
    """Arrows that run up (or sideways between "|" neighbours) in the scope's table, and
    modules of the scope the table does not place."""
    rows = _rows(scope)
    where = f"the {scope or 'top-level'} layers"
    problems = sorted({f"{module} is not in {where}: add {_member(module, scope)!r} to LAYERS[{scope!r}]"
                       for module in modules if _member(module, scope) not in (None, *rows)})
    for arrow in arrows:
        source, target = _member(arrow.source, scope), _member(arrow.target, scope)
        if source is None or target is None or source == target or source not in rows or target not in rows:
            continue
        (source_row, apart), (target_row, _) = rows[source], rows[target]
        if target_row < source_row:
            problems.append(f"{arrow} runs up {where}: {source} sits below {target}")
        elif target_row == source_row and apart:
            problems.append(f"{arrow} crosses {where}: {source} and {target} must not import each other")
    return problems


@cache
def project_graph() -> tuple[list[Arrow], list[str]]:
    return import_arrows(ROOT), list(module_files(ROOT))


def test_no_import_circle():
    arrows, _ = project_graph()
    circles = import_circles(arrows)
    assert not circles, "\n".join(circles)


@pytest.mark.parametrize("scope", list(LAYERS), ids=[s or "top" for s in LAYERS])
def test_no_arrow_runs_up(scope: str):
    arrows, modules = project_graph()
    problems = layer_violations(arrows, modules, scope)
    assert not problems, "\n".join(problems)


def test_a_planted_upward_arrow_and_circle_are_reported(tmp_path: Path):
    """The checker can fail: copy the environments tree, plant a lazy upward import and an
    import circle, and both are named with their file and line."""
    shutil.copytree(ROOT / "environments", tmp_path / "environments", ignore=lambda d, names: [
        n for n in names if n == "__pycache__" or not (n.endswith(".py") or (Path(d) / n).is_dir())])
    store = tmp_path / "environments/catalog/store.py"
    with store.open("a") as file:
        file.write("\n\ndef _planted():\n    from environments.worlds import load_world\n    return load_world\n")
    line = store.read_text().splitlines().index("    from environments.worlds import load_world") + 1
    (tmp_path / "environments/errors.py").write_text("from environments.catalog import store\n")
    arrows = import_arrows(tmp_path)

    problems = layer_violations(arrows, list(module_files(tmp_path)), "environments")
    assert (f"environments/catalog/store.py:{line}: environments.catalog.store -> environments.worlds runs up the "
            "environments layers: catalog sits below worlds") in problems
    assert ("environments/errors.py:1: environments.errors -> environments.catalog.store runs up the environments "
            "layers: errors sits below catalog") in problems
    circles = import_circles(arrows)
    assert any("\n    environments/errors.py:1: environments.errors -> environments.catalog.store" in c
               for c in circles), circles


def test_which_imports_make_arrows(tmp_path: Path):
    """`from X import Y` points at `X.Y` when that is a module, else at `X`; relative imports
    resolve from the module's package; lazy imports count, `TYPE_CHECKING` ones do not."""
    files = {
        "environments/__init__.py": "",
        "environments/models.py": "",
        "environments/catalog/__init__.py": "from environments.catalog.store import Catalog\n",
        "environments/catalog/store.py": (
            "from typing import TYPE_CHECKING\n"
            "from . import jsonl\n"                         # 2: a sibling module, relatively
            "from environments import models\n"             # 3: a submodule, by name
            "if TYPE_CHECKING:\n"
            "    from environments.worlds import World\n"   # never runs: no arrow
            "def load():\n"
            "    from environments.worlds import World\n"   # 7: lazy, an arrow all the same
            "    import numpy\n"),                          # not ours: no arrow
        "environments/catalog/jsonl.py": "from ..catalog import Catalog\n",  # the package: its __init__
        "environments/worlds/__init__.py": "World = object\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert [str(a) for a in import_arrows(tmp_path)] == [
        "environments/catalog/__init__.py:1: environments.catalog -> environments.catalog.store",
        "environments/catalog/jsonl.py:1: environments.catalog.jsonl -> environments.catalog",
        "environments/catalog/store.py:2: environments.catalog.store -> environments.catalog.jsonl",
        "environments/catalog/store.py:3: environments.catalog.store -> environments.models",
        "environments/catalog/store.py:7: environments.catalog.store -> environments.worlds",
    ]
    assert import_circles(import_arrows(tmp_path)) == [
        "import circle environments.catalog -> environments.catalog.store -> environments.catalog.jsonl -> "
        "environments.catalog (3 modules in it):\n"
        "    environments/catalog/__init__.py:1: environments.catalog -> environments.catalog.store\n"
        "    environments/catalog/store.py:2: environments.catalog.store -> environments.catalog.jsonl\n"
        "    environments/catalog/jsonl.py:1: environments.catalog.jsonl -> environments.catalog"]


def test_which_arrows_break_a_layer_table():
    """Down is fine; up is reported, and so is an arrow between "|" neighbours; a module the
    table does not place is named; the scope's own `__init__` is not judged inside it."""
    def arrow(source: str, target: str) -> Arrow:
        return Arrow(source, target, source.replace(".", "/") + ".py", 1)

    modules = ["agents.steps", "agents.steps.crag.steps", "agents.steps.pepper.preferences",
               "agents.steps.seeker.answer", "agents.steps.base", "agents.steps.loose"]
    problems = layer_violations([
        arrow("agents.steps.crag.steps", "agents.steps.pepper.preferences"),  # sideways between methods
        arrow("agents.steps.seeker.answer", "agents.steps.crag.steps"),       # up
        arrow("agents.steps.crag.steps", "agents.steps.seeker.answer"),       # down: fine
        arrow("agents.steps.base", "agents.steps"),                           # to the front door
    ], modules, "agents.steps")
    assert problems == [
        "agents.steps.loose is not in the agents.steps layers: add 'loose' to LAYERS['agents.steps']",
        "agents/steps/crag/steps.py:1: agents.steps.crag.steps -> agents.steps.pepper.preferences crosses the "
        "agents.steps layers: crag and pepper must not import each other",
        "agents/steps/seeker/answer.py:1: agents.steps.seeker.answer -> agents.steps.crag.steps runs up the "
        "agents.steps layers: seeker sits below crag",
    ]
    assert layer_violations([arrow("environments.models", "agents.base")], [], "") == [
        "environments/models.py:1: environments.models -> agents.base runs up the top-level layers: environments "
        "sits below agents"]
