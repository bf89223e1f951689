"""Tolerant parsing of a chat model's answer into a pydantic model.

Small and local models rarely answer with bare JSON: they wrap it in a ```json fence, put
a sentence before or after it, leave a trailing comma, use Python quoting, or think aloud
in a ``<think>`` block first. Rejecting all of that would send most answers down the
repair path, so the parser looks for the JSON object the model meant and only then lets
the schema decide. When it fails, `OutputParseError` carries one short sentence saying
what was wrong: that sentence is quoted back to the model in the repair message, and
ends up in the episode log.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?(.*?)```", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_MAX_REPORTED_ERRORS = 5


class OutputParseError(ValueError):
    """The answer holds no JSON object that fits the output model; the message says why."""


def content_to_text(content: Any) -> str:
    """Flatten a langchain message `content` (a string or a list of blocks) into text.

    Providers return lists of blocks (text, reasoning, tool use, images); only text
    blocks are the answer, reasoning blocks are deliberately dropped.
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type", "text") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def parse_model(text: str | list[Any], model: type[M]) -> M:
    """Return the first JSON object in `text` that validates as `model`.

    Candidates are tried in order: the whole answer, the contents of code fences, then
    every balanced ``{...}`` object found in the text. Each is decoded as JSON, and if
    that fails, again after lenient fixes (trailing commas, single quotes, Python
    literals). Raises `OutputParseError` describing the most relevant failure.
    """
    text = _THINK.sub("", content_to_text(text)).strip()
    if not text:
        raise OutputParseError("the answer is empty")
    decode_error: str | None = None
    schema_error: str | None = None
    for candidate in _candidates(text):
        try:
            data = _decode(candidate)
        except ValueError as exc:
            if decode_error is None and _is_one_object(candidate):
                decode_error = str(exc)  # only a complete {...} gives a useful position
            continue
        if not isinstance(data, dict):
            schema_error = schema_error or f"expected a JSON object, got {type(data).__name__}"
            continue
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            schema_error = schema_error or _describe_validation(exc)
    if schema_error:
        raise OutputParseError(f"the JSON does not match the schema: {schema_error}")
    if decode_error:
        raise OutputParseError(decode_error)
    if "{" in text:
        raise OutputParseError("the JSON object is not closed (missing '}'; answer cut off?)")
    raise OutputParseError("no JSON object found in the answer")


def _candidates(text: str) -> Iterator[str]:
    yield text
    for match in _FENCE.finditer(text):
        yield match.group(2).strip()
    start = text.find("{")
    while start != -1:
        end = _balanced_end(text, start)
        if end is None:  # a stray '{' in prose: look further in
            start = text.find("{", start + 1)
            continue
        yield text[start:end]
        start = text.find("{", end)  # top-level objects only, never a nested one


def _balanced_end(text: str, start: int) -> int | None:
    """Index just past the `}` closing the object opened at `start`, or None.

    String-aware (double and single quotes, backslash escapes), so braces inside
    string values do not count.
    """
    depth = 0
    quote: str | None = None
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _decode(candidate: str) -> Any:
    """json.loads, then json.loads after `_lenient` fixes; ValueError names the position."""
    try:
        return json.loads(candidate, strict=False)
    except json.JSONDecodeError as first:
        try:
            return json.loads(_lenient(candidate), strict=False)
        except json.JSONDecodeError:
            raise ValueError(
                f"invalid JSON: {first.msg} at line {first.lineno} column {first.colno}"
            ) from None


_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}


def _lenient(s: str) -> str:
    """Rewrite common near-JSON into JSON, outside of strings only.

    Single-quoted strings become double-quoted, trailing commas before `}`/`]` are
    dropped, and bare True/False/None become true/false/null.
    """
    out: list[str] = []
    i, n = 0, len(s)
    while i < n:
        ch = s[i]
        if ch in "\"'":
            j, buf = i + 1, []
            while j < n and s[j] != ch:
                if s[j] == "\\" and j + 1 < n:
                    nxt = s[j + 1]
                    buf.append(nxt if (ch == "'" and nxt == "'") else s[j : j + 2])
                    j += 2
                    continue
                buf.append('\\"' if (ch == "'" and s[j] == '"') else s[j])
                j += 1
            out.append('"' + "".join(buf) + '"')
            i = j + 1
        elif ch == ",":
            k = i + 1
            while k < n and s[k].isspace():
                k += 1
            if k >= n or s[k] not in "}]":
                out.append(ch)
            i += 1
        elif ch.isalpha():
            j = i
            while j < n and (s[j].isalnum() or s[j] == "_"):
                j += 1
            word = s[i:j]
            out.append(_PY_LITERALS.get(word, word))
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _describe_validation(exc: ValidationError) -> str:
    """Compact 'field: message' list, short enough to quote in a repair prompt."""
    errors = exc.errors(include_url=False)
    parts = []
    for err in errors[:_MAX_REPORTED_ERRORS]:
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        parts.append(f"'{loc}': {err['msg']}")
    more = len(errors) - _MAX_REPORTED_ERRORS
    if more > 0:
        parts.append(f"and {more} more error(s)")
    return "; ".join(parts)


def _is_one_object(candidate: str) -> bool:
    return candidate.startswith("{") and _balanced_end(candidate, 0) == len(candidate)
