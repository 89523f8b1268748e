"""iCalendar (RFC 5545) output for the booking feeds, written by the
``icalendar`` package. Pure: events in, text out.

The package does what calendar clients are strict about: CRLF line ends;
content lines folded at 75 octets without cutting a UTF-8 character; TEXT
values with backslash, semicolon, comma and newline escaped; times in UTC
with a trailing Z. What it lets through, this module cleans first: RFC 5545
TEXT may hold no control character but a tab, so line and paragraph
separators (U+2028, U+2029, NEL, CR) become line breaks and every other
control character becomes a space before the package escapes the value.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

import icalendar

CRLF = "\r\n"
LIMIT = 75  # octets per content line, CRLF not counted
_LINE_BREAKS = {"\r\n": "\n", "\r": "\n", "\u2028": "\n", "\u2029": "\n", "\x85": "\n"}


@dataclass(frozen=True)
class Event:
    uid: str
    start: datetime
    end: datetime
    summary: str
    description: str = ""
    location: str = ""
    url: str = ""
    cancelled: bool = False
    sequence: int = 0
    modified: datetime | None = None


def clean(text: str) -> str:
    """Text safe for a TEXT value: line breaks as ``\\n``, other control and
    format characters (Unicode categories Cc, Cf, Zl, Zp) as spaces, tabs kept."""
    for old, new in _LINE_BREAKS.items():
        text = text.replace(old, new)
    return "".join(
        ch if ch in "\n\t" or unicodedata.category(ch) not in {"Cc", "Cf", "Zl", "Zp", "Cs"} else " " for ch in text
    )


def _utc(at: datetime) -> datetime:
    if at.tzinfo is None:
        raise ValueError("a calendar time needs a time zone")
    return at.astimezone(UTC)


def _event(event: Event, stamp: datetime) -> icalendar.Event:
    out = icalendar.Event()
    out.add("uid", event.uid)
    out.add("dtstamp", _utc(stamp))
    out.add("dtstart", _utc(event.start))
    out.add("dtend", _utc(event.end))
    out.add("summary", clean(event.summary))
    if event.description:
        out.add("description", clean(event.description))
    if event.location:
        out.add("location", clean(event.location))
    if event.url:
        out.add("url", icalendar.vUri(event.url))  # a URI value: not TEXT-escaped
    out.add("status", "CANCELLED" if event.cancelled else "CONFIRMED")
    out.add("sequence", event.sequence)
    if event.modified is not None:
        out.add("last-modified", _utc(event.modified))
    return out


def calendar(events: Iterable[Event], *, name: str, stamp: datetime) -> str:
    """A whole VCALENDAR document."""
    cal = icalendar.Calendar()
    cal.add("version", "2.0")
    cal.add("prodid", "-//Spark Fleet//Reservations//EN")
    cal.add("calscale", "GREGORIAN")
    cal.add("method", "PUBLISH")
    cal.add("x-wr-calname", clean(name))
    for event in events:
        cal.add_component(_event(event, stamp))
    document: bytes = cal.to_ical(sorted=False)
    return document.decode()
