"""The method pages' "Files" lists, checked against the tree so they cannot drift, and the
docs' relative links.

Each method page (`docs/<method>.md`) opens with its title, one paragraph and a `## Files`
section: a bullet list naming, in backticks, the method's code, configs, prompts and tests.

How a Files list is read (`listed_paths`):

- a backticked span is a path when it contains "/" or ends in a file suffix (`.py`,
  `.yaml`, `.md`, ...); other spans (`Curation`, `crsim eval cpcd`) are prose;
- a span with "/" is a path from the repository root; a bare name (`views.py`) is relative
  to the directory of the last root path in the same bullet (after `environments/playlist/`
  or `environments/playlist/goals.py` it means `environments/playlist/views.py`);
- `{a,b}` expands (`snippet_{query,item}.md`); `*` and `?` are globs; a trailing "/" names a
  directory.

What is checked, per page (`check_page`):

1. every listed path exists (a glob matches at least one path, a directory is one);
2. every file matched by the page's rule in `OWNS` is listed, by name or by a glob whose
   file-name part starts with a literal (`conf/recommender/sniprec*.yaml`,
   `agents/prompts/pepper_*.md`); naming a directory, or a glob like `agents/llm/*.py`, does
   not list what is in it. An `__init__.py` is a file of its package only when it defines a
   public function or class (a factory, a role protocol), not for a front door that only
   re-exports or forwards old names (`__getattr__`);
3. the title, one paragraph, then `## Files`: no table, code block or other section first.

And over all pages (`EVERYWHERE`): every language step module, prompt and experiment is on
some page's Files list.
"""

from __future__ import annotations

import ast
import glob
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

# What each method page must list: the files of the method's own packages, configs and
# prompts (globs from the repository root). Shared code a page merely uses (the target
# ranking, the search indexes) is listed where it helps and checked only for existence.
OWNS: dict[str, tuple[str, ...]] = {
    "sniprec.md": (
        "environments/single_target/*.py",
        "agents/recommenders/sniprec/*.py",
        "agents/steps/sniprec/*.py",
        "agents/prompts/snippet_*.md",
        "conf/recommender/sniprec*.yaml",
        "conf/experiment/sniprec*.yaml",
        "conf/environment/single_target.yaml",
        "conf/environment/restaurants.yaml",
        "conf/environment/movies.yaml",
    ),
    "pepper.md": (
        "environments/multi_target/*.py",
        "agents/steps/pepper/*.py",
        "agents/steps/judge/rubric.py",
        "agents/seekers/target_free.py",
        "agents/prompts/pepper_*.md",
        "conf/seeker/target_free.yaml",
        "conf/seeker/target_biased_pepper.yaml",
        "conf/environment/pepper.yaml",
        "conf/experiment/pepper*.yaml",
        "simulators/metrics/coverage.py",
        "simulators/evaluators/judge.py",
    ),
    "crag.md": (
        "agents/recommenders/crag/*.py",
        "agents/recommenders/zero_shot.py",
        "agents/steps/crag/*.py",
        "agents/prompts/crag_*.md",
        "conf/recommender/crag*.yaml",
        "conf/recommender/naive_rag.yaml",
        "conf/recommender/ease.yaml",
        "conf/recommender/zero_shot.yaml",
        "conf/experiment/crag*.yaml",
        "environments/search/ease.py",
    ),
    "playlist.md": (
        "environments/playlist/*.py",
        "environments/worlds/music*.py",
        "environments/worlds/themes.py",
        "agents/steps/playlist/*.py",
        "agents/prompts/playlist_*.md",
        "agents/recommenders/curator.py",
        "agents/recommenders/llm_curator.py",
        "agents/recommenders/playlist_query.py",
        "agents/seekers/set_seeker.py",
        "conf/recommender/curator_*.yaml",
        "conf/seeker/set_seeker*.yaml",
        "conf/environment/playlist.yaml",
        "conf/experiment/playlist*.yaml",
        "simulators/metrics/sets.py",
        "simulators/offline/cpcd/*.py",
    ),
    "tracer.md": (
        "environments/shopping/*.py",
        "agents/steps/tracer/*.py",
        "agents/sellers/*.py",
        "agents/customers/*.py",
        "agents/prompts/shopping_*.md",
        "conf/seller/*.yaml",
        "conf/customer/*.yaml",
        "conf/environment/shopping.yaml",
        "conf/experiment/tracer*.yaml",
        "simulators/evaluators/shopping.py",
        "simulators/evaluators/rouge.py",
        "simulators/metrics/shopping.py",
        "simulators/offline/shopping_generate*.py",
    ),
    "validity.md": (
        "simulators/validity/*.py",
        "simulators/cli/validate*.py",
        "simulators/offline/judge/*.py",
        "simulators/cli/eval_judge.py",
        "agents/steps/judge/aspects.py",
        "agents/prompts/arena_judge_*.md",
        "agents/steps/seeker/*.py",
        "agents/seekers/target_biased.py",
        "agents/prompts/seeker_*.md",
        "agents/prompts/summarize_reviews.md",
        "environments/single_target/grounded.py",
        "conf/environment/grounded.yaml",
        "conf/seeker/target_biased.yaml",
    ),
    "evaluate-your-crs.md": (
        "agents/remote/*.py",
        "agents/recommenders/http.py",
        "conf/recommender/http.yaml",
        "simulators/serve/*.py",
        "simulators/cli/serve.py",
        "simulators/results/remote.py",
        "examples/*.py",
        "scripts/bench_remote.py",
    ),
    "clarify.md": (
        "agents/steps/recommender/*.py",
        "agents/prompts/clarify_question.md",
        "agents/prompts/item_answer.md",
        "agents/recommenders/retrieval.py",
        "environments/search/aspect*.py",
        "environments/search/word_stats.py",
        "scripts/sample_clarify_questions.py",
    ),
    "llm.md": (
        "agents/llm/*.py",
        "agents/steps/base.py",
        "agents/steps/text.py",
        "agents/prompts/__init__.py",
        "conf/llm/*.yaml",
        "conf/paper_llm/*.yaml",
        "simulators/offline/llm_step*.py",
        "simulators/results/step_usage.py",
        "scripts/bench_llm*.py",
        "scripts/llm_run_steps.py",
        "scripts/record_llm_fixtures.py",
    ),
    "datasets.md": (
        "environments/datasets/*.py",
        "simulators/cli/data.py",
    ),
}

# What some method page must list: every language step, prompt and experiment has a home.
EVERYWHERE = (
    "agents/steps/*.py",
    "agents/steps/*/*.py",
    "agents/prompts/*.md",
    "conf/experiment/*.yaml",
)

PATH_SUFFIXES = (".py", ".yaml", ".yml", ".md", ".json", ".jsonl", ".j2", ".js", ".csv", ".txt", ".toml")
GLOB_CHARS = set("*?[")


def files_section(text: str) -> str:
    """The lines of the `## Files` section (up to the next `## ` heading)."""
    match = re.search(r"^## Files[ \t]*\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    return match.group(1) if match else ""


def expand_braces(span: str) -> list[str]:
    match = re.search(r"\{([^{}]*)\}", span)
    if not match:
        return [span]
    return [expanded for choice in match.group(1).split(",")
            for expanded in expand_braces(span[:match.start()] + choice + span[match.end():])]


def is_path(span: str) -> bool:
    return " " not in span and ("/" in span or span.endswith(PATH_SUFFIXES))


def listed_paths(section: str) -> tuple[list[str], list[str]]:
    """(paths, problems): every path the Files section names, relative bare names resolved."""
    paths: list[str] = []
    problems: list[str] = []
    bullets = re.split(r"^- ", section, flags=re.M)
    for bullet in bullets:
        base: str | None = None
        for span in re.findall(r"`([^`]+)`", bullet):
            span = span.strip()
            if not is_path(span):
                continue
            for path in expand_braces(span):
                if "/" in path:
                    base = path if path.endswith("/") else path.rsplit("/", 1)[0] + "/"
                elif base is None:
                    problems.append(f"`{path}`: a bare name with no directory before it in its bullet")
                    continue
                else:
                    path = base + path
                paths.append(path)
    return paths, problems


def matches(root: Path, pattern: str) -> list[str]:
    found = glob.glob(pattern, root_dir=root)
    return sorted(path for path in found if (root / path).is_file())


def is_module_file(root: Path, path: str) -> bool:
    """An `__init__.py` counts only when it defines a public function or class (a factory, a
    role protocol); one that only re-exports or forwards moved names does not."""
    if not path.endswith("__init__.py"):
        return True
    tree = ast.parse((root / path).read_text(encoding="utf-8"))
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
               and not node.name.startswith("_") for node in tree.body)


def names_files(path: str) -> bool:
    """A listed path names files: a file, or a glob whose file-name part starts with a literal."""
    if path.endswith("/"):
        return False
    name = path.rsplit("/", 1)[-1]
    return not name or name[0] not in GLOB_CHARS


def listed_files(root: Path, paths: list[str]) -> set[str]:
    files: set[str] = set()
    for path in paths:
        if not names_files(path):
            continue
        if GLOB_CHARS & set(path):
            files.update(matches(root, path))
        elif (root / path).is_file():
            files.add(path)
    return files


def check_opening(text: str) -> list[str]:
    """Title, one paragraph, then `## Files` before any table, code block or other section."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("# "):
        return ["the page does not start with a `# ` title"]
    paragraphs = 0
    previous_blank = True
    for line in lines[1:]:
        if line.startswith("## "):
            return [] if line.strip() == "## Files" and paragraphs == 1 else [
                f"`## Files` must follow the title and one paragraph; found {line.strip()!r} after "
                f"{paragraphs} paragraph(s)"]
        if line.lstrip().startswith(("|", "```", "#", "- ", "* ")) and line.strip():
            return [f"before `## Files`: {line.strip()[:60]!r} (only one paragraph may come first)"]
        if line.strip():
            paragraphs += previous_blank
            previous_blank = False
        else:
            previous_blank = True
    return ["no `## Files` section"]


def check_page(root: Path, text: str, owns: tuple[str, ...]) -> tuple[list[str], set[str]]:
    """(problems, the files the page lists)."""
    problems = check_opening(text)
    section = files_section(text)
    paths, parse_problems = listed_paths(section)
    problems += parse_problems
    for path in paths:
        if GLOB_CHARS & set(path):
            if not glob.glob(path.rstrip("/"), root_dir=root):
                problems.append(f"`{path}` matches nothing")
        elif path.endswith("/"):
            if not (root / path).is_dir():
                problems.append(f"`{path}` is not a directory")
        elif not (root / path).exists():
            problems.append(f"`{path}` does not exist")
    listed = listed_files(root, paths)
    for pattern in owns:
        for path in matches(root, pattern):
            if path not in listed and is_module_file(root, path):
                problems.append(f"`{path}` (rule `{pattern}`) is not listed")
    return problems, listed


@pytest.mark.parametrize("page", sorted(OWNS))
def test_method_page_lists_its_files(page: str) -> None:
    problems, _ = check_page(ROOT, (DOCS / page).read_text(encoding="utf-8"), OWNS[page])
    assert not problems, f"docs/{page}, Files:\n" + "\n".join(problems)


def test_every_step_prompt_and_experiment_has_a_page() -> None:
    listed: set[str] = set()
    for page, owns in OWNS.items():
        listed |= check_page(ROOT, (DOCS / page).read_text(encoding="utf-8"), owns)[1]
    missing = [path for pattern in EVERYWHERE for path in matches(ROOT, pattern)
               if path not in listed and is_module_file(ROOT, path)]
    assert not missing, "on no method page's Files list:\n" + "\n".join(missing)


def test_a_missing_or_wrong_file_is_reported(tmp_path: Path) -> None:
    """The check can fail: a file of the method left out, a path that does not exist, a
    directory or a bare glob that names no file, a table before the list."""
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / "pkg" / "m").mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg" / "m" / name).write_text("x = 1\n")
    (tmp_path / "pkg" / "m" / "__init__.py").write_text('def __getattr__(name):\n    raise AttributeError(name)\n')
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "m_one.yaml").write_text("a: 1\n")
    (tmp_path / "conf" / "m_two.yaml").write_text("a: 1\n")
    owns = ("pkg/m/*.py", "conf/m_*.yaml")
    good = ("# M\n\nOne paragraph\nabout M.\n\n## Files\n\n"
            "- code: `pkg/m/` (`a.py`, `b.py`), `pkg/m/c.py`; configs `conf/m_*.yaml`\n\n## Figures\n")
    assert check_page(tmp_path, good, owns)[0] == []

    left_out = good.replace(", `b.py`", "")
    assert check_page(tmp_path, left_out, owns)[0] == ["`pkg/m/b.py` (rule `pkg/m/*.py`) is not listed"]

    wrong = good.replace("`pkg/m/c.py`", "`pkg/m/c.py`, `pkg/m/d.py`")
    assert check_page(tmp_path, wrong, owns)[0] == ["`pkg/m/d.py` does not exist"]

    directory_only = good.replace("(`a.py`, `b.py`), `pkg/m/c.py`", "").replace("`conf/m_*.yaml`", "`conf/*`")
    problems = check_page(tmp_path, directory_only, owns)[0]
    assert {p.split("`")[1] for p in problems} == {"pkg/m/a.py", "pkg/m/b.py", "pkg/m/c.py",
                                                   "conf/m_one.yaml", "conf/m_two.yaml"}

    table_first = good.replace("about M.\n", "about M.\n\n| a | b |\n| - | - |\n")
    assert check_page(tmp_path, table_first, owns)[0][0].startswith("before `## Files`")

    bare = good.replace("- code: `pkg/m/`", "- code: `a.py`, `pkg/m/`")
    assert "a bare name" in check_page(tmp_path, bare, owns)[0][0]

    (tmp_path / "pkg" / "m" / "__init__.py").write_text("def build():\n    return 1\n")  # a factory now
    assert check_page(tmp_path, good, owns)[0] == ["`pkg/m/__init__.py` (rule `pkg/m/*.py`) is not listed"]


def test_relative_names_and_braces() -> None:
    section = ("- protocol: `environments/playlist/` (`environment.py`, `views.py`: `Curation`), "
               "`conf/environment/playlist.yaml`, `shopping.yaml`\n"
               "- prompts `agents/prompts/snippet_{query,item}.md`; `crsim eval cpcd`\n")
    assert listed_paths(section) == ([
        "environments/playlist/", "environments/playlist/environment.py", "environments/playlist/views.py",
        "conf/environment/playlist.yaml", "conf/environment/shopping.yaml",
        "agents/prompts/snippet_query.md", "agents/prompts/snippet_item.md"], [])


# --- links -------------------------------------------------------------------------------

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
DOC_PATH = re.compile(r"(?<![\w/.<-])docs/[\w./-]+\.md\b")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found: set[str] = set()
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        match = re.match(r"#{1,6} (.+?)\s*#*\s*$", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md")) + [ROOT / "README.md"]


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_links_resolve(page: Path) -> None:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    problems = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        resolved = (page.parent / file).resolve() if file else page
        if not resolved.exists():
            problems.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            problems.append(f"{target}: no heading #{anchor}")
    for path in DOC_PATH.findall(text):
        if not (ROOT / path).exists():
            problems.append(f"{path}: no such page")
    assert not problems, f"{page.relative_to(ROOT)}:\n" + "\n".join(problems)
