"""iCalendar (RFC 5545) output for the booking feeds. Pure: events in, text out.

What calendar clients are strict about: CRLF line ends; content lines folded
at 75 octets (a continuation starts with one space, and a UTF-8 character is
never cut in two); TEXT values escape backslash, semicolon, comma and
newline; times in UTC with a trailing Z; every event has a UID and DTSTAMP.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

CRLF = "\r\n"
LIMIT = 75  # octets per content line, CRLF not counted


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


def escape(text: str) -> str:
    """A TEXT value (RFC 5545 3.3.11)."""
    return (text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
            .replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n"))


def utc(at: datetime) -> str:
    """A DATE-TIME in UTC form: 20261201T100000Z."""
    if at.tzinfo is None:
        raise ValueError("a calendar time needs a time zone")
    return at.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def fold(line: str) -> str:
    """Split a content line into pieces of at most 75 octets joined by CRLF
    and a space, cutting only between characters."""
    out: list[str] = []
    piece: list[str] = []
    size, limit = 0, LIMIT
    for char in line:
        width = len(char.encode("utf-8"))
        if size + width > limit:
            out.append("".join(piece))
            piece, size, limit = [], 0, LIMIT - 1  # the leading space takes one octet
        piece.append(char)
        size += width
    out.append("".join(piece))
    return (CRLF + " ").join(out)


def _lines(event: Event, stamp: datetime) -> list[str]:
    lines = [
        "BEGIN:VEVENT",
        f"UID:{event.uid}",
        f"DTSTAMP:{utc(stamp)}",
        f"DTSTART:{utc(event.start)}",
        f"DTEND:{utc(event.end)}",
        f"SUMMARY:{escape(event.summary)}",
    ]
    if event.description:
        lines.append(f"DESCRIPTION:{escape(event.description)}")
    if event.location:
        lines.append(f"LOCATION:{escape(event.location)}")
    if event.url:
        lines.append(f"URL:{event.url}")  # a URI value: not TEXT-escaped
    lines.append(f"STATUS:{'CANCELLED' if event.cancelled else 'CONFIRMED'}")
    lines.append(f"SEQUENCE:{event.sequence}")
    if event.modified is not None:
        lines.append(f"LAST-MODIFIED:{utc(event.modified)}")
    lines.append("END:VEVENT")
    return lines


def calendar(events: Iterable[Event], *, name: str, stamp: datetime) -> str:
    """A whole VCALENDAR document."""
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Spark Fleet//Reservations//EN",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"X-WR-CALNAME:{escape(name)}",
    ]
    for event in events:
        lines += _lines(event, stamp)
    lines.append("END:VCALENDAR")
    return "".join(fold(line) + CRLF for line in lines)
