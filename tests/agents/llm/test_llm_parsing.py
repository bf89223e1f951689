"""Tolerant parsing of model answers into pydantic models."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from agents.llm.parsing import OutputParseError, content_to_text, parse_model


class Rating(BaseModel):
    item: str
    score: int
    reasons: list[str] = []


class Loose(BaseModel):
    """Every field optional: any object validates, so candidate order matters."""

    item: str | None = None
    score: int | None = None


@pytest.mark.parametrize(
    "text",
    [
        '{"item": "a", "score": 4}',
        '  \n{"item": "a", "score": 4}\n',
        'Sure! Here it is:\n```json\n{"item": "a", "score": 4}\n```\nHope that helps.',
        '```\n{"item": "a", "score": 4}\n```',
        'The answer is {"item": "a", "score": 4} as requested.',
        '{"item": "a", "score": 4,}',
        "{'item': 'a', 'score': 4}",
        '<think>should I say {"item": "b"}?</think>{"item": "a", "score": 4}',
    ],
)
def test_parse_accepts_common_shapes(text: str) -> None:
    assert parse_model(text, Rating) == Rating(item="a", score=4)


def test_trailing_commas_in_nested_arrays() -> None:
    result = parse_model('{"item": "a", "score": 4, "reasons": ["x", "y",],}', Rating)
    assert result.reasons == ["x", "y"]


def test_braces_and_quotes_inside_strings_do_not_confuse_the_scanner() -> None:
    text = (
        'Answer: {"item": "curly } brace { and \\" quote", '
        '"score": 2, "reasons": ["it\'s ok"]} done'
    )
    result = parse_model(text, Rating)
    assert result.item == 'curly } brace { and " quote'
    assert result.reasons == ["it's ok"]


def test_single_quotes_with_embedded_double_quotes_and_python_literals() -> None:
    class Flags(BaseModel):
        note: str
        ok: bool
        missing: str | None

    result = parse_model("{'note': 'say \"hi\"', 'ok': True, 'missing': None}", Flags)
    assert result == Flags(note='say "hi"', ok=True, missing=None)


def test_raw_newline_inside_a_string_is_accepted() -> None:
    assert parse_model('{"item": "line1\nline2", "score": 1}', Rating).item == "line1\nline2"


def test_outer_object_is_used_not_a_nested_one() -> None:
    text = 'Result: {"wrapper": {"item": "inner", "score": 1}}'
    result = parse_model(text, Loose)
    assert result == Loose()  # the outer object validates (extra keys ignored); inner not used


def test_a_later_object_is_used_when_an_earlier_one_is_broken() -> None:
    text = 'Format: {item: ..., score: ...}\nAnswer: {"item": "a", "score": 5}'
    assert parse_model(text, Rating) == Rating(item="a", score=5)


def test_content_blocks_are_flattened_and_reasoning_dropped() -> None:
    blocks = [
        {"type": "reasoning", "text": "{not this}"},
        {"type": "text", "text": '{"item": "a", '},
        '"score": 3}',
        {"type": "image_url", "image_url": {"url": "x"}},
    ]
    assert content_to_text(blocks) == '{"item": "a", "score": 3}'
    assert parse_model(blocks, Rating) == Rating(item="a", score=3)
    assert content_to_text(None) == ""


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("I cannot help with that.", "no JSON object found"),
        ('{"item": "a", "score": 4', "not closed"),
        ('{"item": "a" "score": 4}', "invalid JSON: Expecting ',' delimiter at line 1 column 14"),
        ('{"item": "a"}', "'score': Field required"),
        ('{"item": "a", "score": "lots"}', "'score': Input should be a valid integer"),
        ('{"item": "a", "score": 1, "reasons": [1]}', "'reasons.0'"),
        ("[1, 2]", "expected a JSON object, got list"),
    ],
)
def test_errors_say_what_was_wrong(text: str, fragment: str) -> None:
    with pytest.raises(OutputParseError) as info:
        parse_model(text, Rating)
    assert fragment in str(info.value)


def test_schema_error_wins_over_decode_error_of_another_candidate() -> None:
    text = 'Broken {"a": } then {"item": "a"}'
    with pytest.raises(OutputParseError, match="does not match the schema.*'score'"):
        parse_model(text, Rating)


def test_many_validation_errors_are_capped() -> None:
    class Wide(BaseModel):
        a: int
        b: int
        c: int
        d: int
        e: int
        f: int
        g: int

    with pytest.raises(OutputParseError, match=r"and 2 more error\(s\)"):
        parse_model("{}", Wide)
