"""Cheap per-field checks for source rows, raising `BadRow` with the field's name.

Review files have millions of rows, and building a pydantic model per row would cost
more than parsing the JSON. These checks test exactly what the catalog models need
(type, presence, range) by hand; what they let through is what `Review`/`Item`
accept, which the adapters' tests verify by loading every imported catalog with
`Catalog.load`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, TypeVar

from environments.datasets.base import BadRow

R = TypeVar("R")

_NUMBER = (int, float)


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def req_str(row: dict[str, Any], key: str) -> str:
    """A non-empty string (ids, names)."""
    value = row.get(key)
    if type(value) is str and value:
        return value
    if value is None:
        raise BadRow(key, "missing" if key not in row else "is null")
    if type(value) is str:
        raise BadRow(key, "is empty")
    raise BadRow(key, f"expected a string, got {_kind(value)}")


def req_id(row: dict[str, Any], key: str) -> str:
    """An identifier: a non-empty string, or an integer (ReDial's ids are numbers)."""
    value = row.get(key)
    if type(value) is str and value:
        return value
    if type(value) is int:
        return str(value)
    if value is None:
        raise BadRow(key, "missing" if key not in row else "is null")
    raise BadRow(key, "is empty" if value == "" else f"expected a string or integer id, got {_kind(value)}")


def opt_str(row: dict[str, Any], key: str, default: str = "") -> str:
    """A string that may be missing or null (review text, titles)."""
    value = row.get(key)
    if value is None:
        return default
    if type(value) is str:
        return value
    raise BadRow(key, f"expected a string, got {_kind(value)}")


def req_number(row: dict[str, Any], key: str, low: float | None = None, high: float | None = None) -> float:
    """A number (not a bool), optionally within [low, high]."""
    value = row.get(key)
    if type(value) not in _NUMBER:
        if value is None:
            raise BadRow(key, "missing" if key not in row else "is null")
        raise BadRow(key, f"expected a number, got {_kind(value)}")
    number = float(value)
    if (low is not None and number < low) or (high is not None and number > high) or number != number:
        raise BadRow(key, f"{value!r} is outside [{low}, {high}]")
    return number


def opt_int(row: dict[str, Any], key: str, default: int = 0) -> int:
    """A count that may be missing; numeric strings with thousands separators ("1,234") are accepted."""
    value = row.get(key)
    if value is None:
        return default
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    if type(value) is str:
        digits = value.replace(",", "").strip()
        if digits.isdigit():
            return int(digits)
    raise BadRow(key, f"expected an integer, got {value!r}")


def opt_bool(row: dict[str, Any], key: str, default: bool = False) -> bool:
    value = row.get(key)
    if value is None:
        return default
    if type(value) is bool:
        return value
    raise BadRow(key, f"expected true/false, got {value!r}")


def opt_list_of_str(row: dict[str, Any], key: str) -> list[str]:
    """A list of strings that may be missing; a single string counts as a one-element list."""
    value = row.get(key)
    if value is None:
        return []
    if type(value) is str:
        return [value] if value else []
    if type(value) is list:
        odd = next((part for part in value if type(part) is not str), None)
        if odd is None:
            return [part for part in value if part]
        raise BadRow(key, f"expected a list of strings, got a list holding {_kind(odd)}")
    raise BadRow(key, f"expected a list of strings, got {_kind(value)}")


def opt_dict(row: dict[str, Any], key: str) -> dict[str, Any]:
    value = row.get(key)
    if value is None:
        return {}
    if type(value) is dict:
        return value
    raise BadRow(key, f"expected an object, got {_kind(value)}")


_EPOCH = datetime(1970, 1, 1)
_EPOCH_UTC = _EPOCH.replace(tzinfo=timezone.utc)


def iso_timestamp(value: str, key: str) -> int:
    """Unix seconds (UTC) of 'YYYY-MM-DD[ HH:MM:SS]' as Yelp writes dates (no zone = UTC)."""
    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise BadRow(key, f"expected a date like 2018-07-07 22:09:11, got {value!r}") from None
    # subtracting an epoch is ~3x cheaper than attaching a zone and calling timestamp()
    return int((moment - (_EPOCH if moment.tzinfo is None else _EPOCH_UTC)).total_seconds())


def parse_float(text: str, key: str, low: float | None = None, high: float | None = None) -> float:
    """A number from a CSV cell."""
    try:
        number = float(text)
    except (TypeError, ValueError):
        raise BadRow(key, f"expected a number, got {text!r}") from None
    if (low is not None and number < low) or (high is not None and number > high) or number != number:
        raise BadRow(key, f"{text!r} is outside [{low}, {high}]")
    return number


def parse_int(text: str, key: str) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        raise BadRow(key, f"expected an integer, got {text!r}") from None


def speaker_and_text(element: Any, where: str, speakers: Mapping[str, R], speaker_key: str,
                     text_key: str = "utterance") -> tuple[R, str]:
    """(who, text) of one message of a conversation: an object whose `speaker_key` names one
    of `speakers` and whose `text_key` is a string; `where` says which message in an error."""
    if type(element) is not dict:
        raise BadRow(where, f"expected an object, got {type(element).__name__}")
    speaker = speakers.get(element.get(speaker_key))  # type: ignore[arg-type]
    if speaker is None:
        raise BadRow(f"{where}.{speaker_key}", f"expected {' or '.join(speakers)}, got {element.get(speaker_key)!r}")
    text = element.get(text_key)
    if type(text) is not str:
        raise BadRow(f"{where}.{text_key}", "missing" if text is None else f"expected a string, got {text!r}")
    return speaker, text
