"""One validation layer at the edge: the types every API schema, query and
path parameter uses, and the same checks for page forms.

What it refuses, whichever door a value comes through:

- text with NUL or another control character (C0, DEL, C1, U+2028/U+2029);
  multi-line text may hold tab, CR and LF; every string has the length of
  its database column;
- whole numbers beyond their column (and, where the field says so, beyond a
  plausible physical range: parameters, layers, ports, GB, tok/s);
  non-finite or absurd floats;
- date-times outside 2000-01-01 .. 2100-01-01, or with a UTC offset beyond
  +/-14:00 (PostgreSQL and Python refuse some of those, others turn into
  year 1 BC on the way in and crash every later read);
- JSON nested deeper than ``MAX_JSON_DEPTH``; offsets and limits of lists
  beyond their bounds.

The checks are plain functions (``text_problem``, ``datetime_problem``,
``json_too_deep``) so forms, documents and services can ask the same
question; the annotated types wrap them for pydantic so ``/api/openapi.json``
states each constraint (length, pattern, bounds).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from pydantic import AfterValidator, ConfigDict, Field

from .errors import BadInput

# Control characters: C0 and DEL, C1, and the Unicode line/paragraph separators.
_ONE_LINE_BAD = "\x00-\x1f\x7f-\x9f\u2028\u2029"
_MULTI_LINE_BAD = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029"
ONE_LINE_PATTERN = f"^[^{_ONE_LINE_BAD}]*$"
MULTI_LINE_PATTERN = f"^[^{_MULTI_LINE_BAD}]*$"
_ONE_LINE_RE = re.compile(f"[{_ONE_LINE_BAD}]")
_MULTI_LINE_RE = re.compile(f"[{_MULTI_LINE_BAD}]")

EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
LATEST = datetime(2100, 1, 1, tzinfo=UTC)
MAX_OFFSET = timedelta(hours=14)
MAX_JSON_DEPTH = 64

INT32 = 2**31 - 1
INT64 = 2**63 - 1


_WHOLE_NUMBER = re.compile(r"[0-9]{1,18}")


def whole_number(text: str) -> int | None:
    """``text`` as a whole number when it is ASCII digits alone (at most 18),
    else None. Not ``str.isdigit``: "²" and "٣" are digits to it, and
    ``int("²")`` raises, which turned such a query or form value into a 500."""
    return int(text) if isinstance(text, str) and _WHOLE_NUMBER.fullmatch(text) else None


def as_whole_number(value: Any, *, strip: bool = False) -> Any:
    """A reference that may be an id: a string of ASCII digits (``strip``:
    spaces around them allowed) as its number, anything else as given."""
    if isinstance(value, str):
        number = whole_number(value.strip() if strip else value)
        if number is not None:
            return number
    return value


def text_problem(value: str, *, multiline: bool = False) -> str | None:
    """Why this text cannot be stored, or None."""
    found = (_MULTI_LINE_RE if multiline else _ONE_LINE_RE).search(value)
    if found is None:
        return None
    char = found.group()
    what = "a NUL byte" if char == "\x00" else f"the control character U+{ord(char):04X}"
    where = "" if multiline else " (one line only)"
    return f"contains {what}{where}; remove it"


def datetime_problem(value: datetime) -> str | None:
    """Why this date-time is refused, or None. A naive value is judged as UTC."""
    offset = value.utcoffset()
    if offset is not None and abs(offset) > MAX_OFFSET:
        return "the UTC offset must be between -14:00 and +14:00"
    if not 2000 <= value.year <= 2100:
        return "must be between 2000-01-01 and 2100-01-01"
    aware = value if offset is not None else value.replace(tzinfo=UTC)
    if not EARLIEST <= aware <= LATEST:
        return "must be between 2000-01-01 and 2100-01-01"
    return None


def json_too_deep(text: str | bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when a JSON text nests arrays/objects deeper than ``limit``,
    found by one scan without recursion (so no RecursionError either)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def data_too_deep(data: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """The same question for already parsed data (YAML, form JSON)."""
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


# ------------------------------------------------------------------ pydantic types


def _one_line(value: str) -> str:
    problem = text_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def _multi_line(value: str) -> str:
    problem = text_problem(value, multiline=True)
    if problem:
        raise ValueError(problem)
    return value


def _sane_datetime(value: datetime) -> datetime:
    problem = datetime_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def _no_deep_json(value: Any) -> Any:
    if data_too_deep(value):
        raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels")
    return value


def CleanStr(max_length: int, *, min_length: int = 0, pattern: str | None = None) -> Any:  # noqa: N802
    """One line of text for a column of ``max_length`` characters. A
    ``pattern`` of the field's own (already free of control characters)
    replaces the generic one in the schema."""
    return Annotated[
        str,
        Field(min_length=min_length, max_length=max_length, pattern=pattern or ONE_LINE_PATTERN),
        AfterValidator(_one_line),
    ]


def MultiLineStr(max_length: int) -> Any:  # noqa: N802
    """Free text that may span lines (notes, purposes, reasons)."""
    return Annotated[str, Field(max_length=max_length, pattern=MULTI_LINE_PATTERN), AfterValidator(_multi_line)]


def Int(ge: int = -INT32 - 1, le: int = INT32) -> Any:  # noqa: N802
    """A whole number within ``[ge, le]``: the column's range at most."""
    return Annotated[int, Field(ge=ge, le=le, strict=False)]


SaneDatetime = Annotated[
    datetime,
    Field(
        description="ISO 8601 with a zone; between 2000-01-01 and 2100-01-01, offset within +/-14:00",
        json_schema_extra={"x-earliest": "2000-01-01T00:00:00Z", "x-latest": "2100-01-01T00:00:00Z"},
    ),
    AfterValidator(_sane_datetime),
]
JsonData = Annotated[Any, AfterValidator(_no_deep_json)]

# Database columns most lists and ids live in.
Id = Int(1, INT64)
PositiveInt32 = Int(0, INT32)
Limit = Int(1, 1000)
Offset = Int(0, 10_000_000)
TcpPort = Int(1, 65535)


def zone_missing(value: datetime) -> str | None:
    """Why a date-time the API was sent cannot be placed in time (it has no zone), or None."""
    return None if value.tzinfo is not None else f"{value.isoformat()} has no time zone: add Z or an offset"


def merge_patch(changes: dict[str, Any], *, cleared: tuple[str, ...] = (), where: str = "") -> dict[str, Any]:
    """A change's null as JSON merge-patch reads it (RFC 7386: null removes):
    a field that may be empty (``cleared``) becomes "", and any other field
    given null is refused (400), each named: "cannot be emptied"."""
    errors = [
        (f"{where}{key}", "cannot be emptied: leave the field out to keep its value")
        for key, value in changes.items()
        if value is None and key not in cleared
    ]
    if errors:
        raise BadInput(errors)
    return {key: "" if value is None else value for key, value in changes.items()}


# A change (PATCH) names only fields that exist: a misspelt one would otherwise
# change nothing and answer 200, and the client would believe it had.
PATCH_ONLY_KNOWN = ConfigDict(extra="forbid")
