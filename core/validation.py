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

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field, PlainValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

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


def _one_line(value: Any) -> Any:
    """Before the schema's pattern: a control character is named in words
    (the pattern alone said "should match pattern '^[^\\u0000-...]*$'")."""
    problem = text_problem(value) if isinstance(value, str) else None
    if problem:
        raise ValueError(problem)
    return value


def _multi_line(value: Any) -> Any:
    problem = text_problem(value, multiline=True) if isinstance(value, str) else None
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
        BeforeValidator(_one_line),
        Field(min_length=min_length, max_length=max_length, pattern=pattern or ONE_LINE_PATTERN),
    ]


def MultiLineStr(max_length: int) -> Any:  # noqa: N802
    """Free text that may span lines (notes, purposes, reasons)."""
    return Annotated[str, BeforeValidator(_multi_line), Field(max_length=max_length, pattern=MULTI_LINE_PATTERN)]


def _whole_not_bool(value: Any) -> Any:
    """A JSON ``true`` or ``1.0`` is not a whole number (pydantic's lax mode read
    them as 1, so ``"group": true`` served group 1); a query's or a path's text
    is read as a number after this."""
    if isinstance(value, bool | float):
        raise PydanticCustomError("int_type", "Input should be a valid integer, not {given}", {"given": repr(value)})
    return value


def Int(ge: int = -INT32 - 1, le: int = INT32) -> Any:  # noqa: N802
    """A whole number within ``[ge, le]``: the column's range at most. Text in
    a query or a path is read as one; a JSON boolean or a number with a point
    is refused."""
    return Annotated[int, BeforeValidator(_whole_not_bool), Field(ge=ge, le=le, strict=False)]


def _id_or_name(value: Any) -> int | str:
    if isinstance(value, int) and not isinstance(value, bool):
        if not 1 <= value <= INT64:
            raise PydanticCustomError("id_range", "an id is a whole number from 1 to {most}", {"most": INT64})
        return value
    if isinstance(value, str):
        if (problem := text_problem(value)) is not None:
            raise PydanticCustomError("name", "{problem}", {"problem": problem})
        if not 1 <= len(value) <= 63:
            raise PydanticCustomError("name", "a name is 1 to 63 characters, not {n}", {"n": len(value)})
        return value
    given = {"given": repr(value)[:40]}
    raise PydanticCustomError("id_or_name", "give an id (a whole number) or a name, not {given}", given)


# A group (or Spark) named by its id or its name, as one field: a union of the two
# types answered a bool as id 1 and named its refusals "group.constrained-int".
IdOrName = Annotated[
    int | str,
    PlainValidator(_id_or_name),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 1, "maximum": INT64},
                {"type": "string", "minLength": 1, "maxLength": 63},
            ]
        }
    ),
]


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
# change nothing and answer 200, and the client would believe it had. The POSTs
# that plan, design, serve or add to the catalogue take it too: a misspelt
# "contxt_tokens" planned the default context without a word.
PATCH_ONLY_KNOWN = ConfigDict(extra="forbid")
