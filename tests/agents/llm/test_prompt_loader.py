"""Prompt files: loading, sections, placeholders, errors, caching, overrides."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from agents.prompts import (
    MissingPromptVariable,
    PromptError,
    PromptTemplate,
    available_prompts,
    load_prompt,
)

RATE = """# Rate an item

Notes for prompt authors; never sent.

## system
You rate {item_noun}.

## user
Item: {item.title}
## Examples
Answer like {{"score": 3}}.

## assistant
{{"score": 3}}

## User
Now rate {item.title} for {user}.
"""


class Item(BaseModel):
    title: str


@pytest.fixture
def prompt_dir(tmp_path: Path) -> Path:
    (tmp_path / "rate.md").write_text(RATE, encoding="utf-8")
    return tmp_path


def test_render_sections_in_order(prompt_dir: Path) -> None:
    prompt = load_prompt("rate", directory=prompt_dir)
    assert prompt.name == "rate"
    assert prompt.variables == {"item_noun", "item", "user"}
    rendered = prompt.render(item_noun="movies", item=Item(title="Heat"), user="ann", unused=1)
    assert rendered == [
        ("system", "You rate movies."),
        ("user", 'Item: Heat\n## Examples\nAnswer like {"score": 3}.'),
        ("assistant", '{"score": 3}'),
        ("user", "Now rate Heat for ann."),
    ]


def test_to_messages_gives_langchain_messages(prompt_dir: Path) -> None:
    messages = load_prompt("rate", directory=prompt_dir).to_messages(
        item_noun="movies", item=Item(title="Heat"), user="ann"
    )
    assert [type(m) for m in messages] == [SystemMessage, HumanMessage, AIMessage, HumanMessage]


def test_missing_variable_names_file_and_variable(prompt_dir: Path) -> None:
    prompt = load_prompt("rate", directory=prompt_dir)
    with pytest.raises(KeyError) as info:
        prompt.render(item=Item(title="Heat"))
    err = info.value
    assert isinstance(err, MissingPromptVariable)
    assert err.missing == ("item_noun", "user")
    assert str(prompt_dir / "rate.md") in str(err)
    assert "'item_noun'" in str(err) and "'user'" in str(err)


def test_bad_attribute_is_a_prompt_error(prompt_dir: Path) -> None:
    prompt = load_prompt("rate", directory=prompt_dir)
    with pytest.raises(PromptError, match="rate.md.*AttributeError"):
        prompt.render(item_noun="x", item=42, user="u")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("just text, no sections", "no section header"),
        (
            '## system\nok\n\n## user\nJSON: {"a": 1}',
            """section '## user' at line 4: placeholder '{"a"}' is not a name""",
        ),
        ("## user\nclose } alone", "Single '}'"),
        ("## user\nwho is {}", "positional placeholder"),
        ("## user\nwho is {0}", "positional placeholder"),
    ],
)
def test_malformed_files_are_refused_with_location(
    tmp_path: Path, text: str, fragment: str
) -> None:
    (tmp_path / "bad.md").write_text(text, encoding="utf-8")
    with pytest.raises(PromptError) as info:
        load_prompt("bad", directory=tmp_path)
    assert "bad.md" in str(info.value)
    assert fragment in str(info.value)


def test_missing_file_lists_available(prompt_dir: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"'nope.md' not found.*available: rate"):
        load_prompt("nope", directory=prompt_dir)
    assert available_prompts(prompt_dir) == ["rate"]


def test_cached_until_file_changes(prompt_dir: Path) -> None:
    first = load_prompt("rate", directory=prompt_dir)
    assert load_prompt("rate.md", directory=str(prompt_dir)) is first
    path = prompt_dir / "rate.md"
    path.write_text("## user\nchanged {x}", encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    second = load_prompt("rate", directory=prompt_dir)
    assert second is not first
    assert second.render(x=1) == [("user", "changed 1")]


def test_directory_list_overrides_in_order(prompt_dir: Path, tmp_path_factory) -> None:
    override = tmp_path_factory.mktemp("override")
    (override / "rate.md").write_text("## user\noverridden", encoding="utf-8")
    both = [override, prompt_dir]
    assert load_prompt("rate", directory=both).render() == [("user", "overridden")]
    (prompt_dir / "other.md").write_text("## system\nbase", encoding="utf-8")
    assert load_prompt("other", directory=both).render() == [("system", "base")]


def test_from_text() -> None:
    prompt = PromptTemplate.from_text("## user\nhi {name}", name="inline")
    assert prompt.render(name="bo") == [("user", "hi bo")]
