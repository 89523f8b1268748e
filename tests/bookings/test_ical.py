"""RFC 5545 output: CRLF, folding at 75 octets without cutting characters,
TEXT escaping, UTC times, UID and DTSTAMP on every event."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from bookings.ical import Event, calendar

T = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def unfold(text: str) -> list[str]:
    return text.replace("\r\n ", "").split("\r\n")


def one_event(summary: str, start: datetime = T) -> list[str]:
    """The unfolded lines of a calendar holding one event called ``summary``."""
    text = calendar(
        [Event(uid="b@fleet", start=start, end=start + timedelta(hours=1), summary=summary)], name="n", stamp=T
    )
    assert all(len(part.encode()) <= 75 for part in text.split("\r\n"))
    return unfold(text)


def test_escaping_of_text_values():
    assert "SUMMARY:a\\,b\\;c\\\\d\\ne" in one_event("a,b;c\\d\ne")
    assert "SUMMARY:x\\ny" in one_event("x\r\ny")


def test_times_are_utc_with_z():
    lines = one_event("x", start=datetime(2026, 12, 1, 11, 0, tzinfo=timezone(timedelta(hours=1))))
    assert "DTSTART:20261201T100000Z" in lines and "DTEND:20261201T110000Z" in lines


@given(st.text(alphabet=st.characters(categories=["L", "N", "P", "S", "Zs"]), min_size=0, max_size=400))
def test_folding_keeps_lines_short_and_unfolds_to_the_original(text):
    escaped = text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
    assert "SUMMARY:" + escaped in one_event(text)


def test_a_whole_calendar():
    event = Event(
        uid="booking-1@fleet",
        start=T,
        end=T + timedelta(hours=2),
        summary="ring-a: TP=4 sweep, Qwen; long " + "é" * 60,
        description="Nodes: a, b\nPlan: x",
        url="http://fleet/bookings/1/",
        modified=T,
    )
    text = calendar(
        [event, Event(uid="booking-2@fleet", start=T, end=T + timedelta(hours=1), summary="x", cancelled=True)],
        name="Spark Fleet: ring-a",
        stamp=T,
    )
    assert text.endswith("END:VCALENDAR\r\n")
    assert "\n" not in text.replace("\r\n", "")
    assert all(len(line.encode()) <= 75 for line in text.split("\r\n"))
    lines = unfold(text)
    assert lines[:3] == ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Spark Fleet//Reservations//EN"]
    assert lines.count("BEGIN:VEVENT") == 2 and lines.count("DTSTAMP:20261201T100000Z") == 2
    assert "DTSTART:20261201T100000Z" in lines and "DTEND:20261201T120000Z" in lines
    assert "SUMMARY:ring-a: TP=4 sweep\\, Qwen\\; long " + "é" * 60 in lines
    assert "DESCRIPTION:Nodes: a\\, b\\nPlan: x" in lines
    assert "STATUS:CANCELLED" in lines and "UID:booking-2@fleet" in lines


def test_control_characters_are_never_written_raw():
    event = Event(
        uid="booking-3@fleet",
        start=T,
        end=T + timedelta(hours=1),
        summary="a\x0bb\u2028c\x00d",
        description="line\u2029next\x1b[31mred\x85end\rx",
    )
    text = calendar([event], name="lab\x07", stamp=T)
    raw = text.replace("\r\n", "")
    assert not any(ch in raw for ch in "\x00\x07\x0b\x1b\x85\u2028\u2029\r\n")
    lines = unfold(text)
    assert "SUMMARY:a b\\nc d" in lines
    assert "DESCRIPTION:line\\nnext [31mred\\nend\\nx" in lines
    assert "X-WR-CALNAME:lab " in lines


@given(st.text(max_size=200))
def test_any_text_becomes_one_clean_value(text):
    (value,) = [line for line in one_event(text) if line.startswith("SUMMARY:")]
    assert all(ch == "\t" or ch >= " " for ch in value) and "\u2028" not in value and "\u2029" not in value
