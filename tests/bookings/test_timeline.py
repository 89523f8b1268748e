"""The timeline's window and bars (pure: no database)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from bookings.pages import window_of
from bookings.timeline import Item, Row, Window, render

BERLIN = ZoneInfo("Europe/Berlin")


def test_the_month_view_on_its_last_day_shows_the_next_days():
    start, end, prev, nxt = window_of("month", date(2026, 11, 30), BERLIN)
    assert start == datetime(2026, 10, 26, tzinfo=BERLIN)  # the Monday of the week of 1 November
    assert end >= datetime(2026, 12, 7, tzinfo=BERLIN)  # a week past 30 November: 1 December is in view
    assert (prev, nxt) == (date(2026, 10, 1), date(2026, 12, 1))


def test_a_month_ending_on_a_sunday_still_reaches_a_week_past_the_day():
    start, end, _, _ = window_of("month", date(2026, 5, 31), BERLIN)  # a Sunday
    assert start == datetime(2026, 4, 27, tzinfo=BERLIN)
    assert end == datetime(2026, 6, 8, tzinfo=BERLIN)
    mid = window_of("month", date(2026, 5, 10), BERLIN)
    assert mid[1] == datetime(2026, 6, 1, tzinfo=BERLIN)  # mid-month: just the month's weeks


def _bar(label: str, start: datetime, hours: float, rows: tuple[int, ...] = (1,)) -> Item:
    return Item(rows, 1, "booking", start, start + timedelta(hours=hours), label, label, "bk other booked", "/b/1/")


def test_a_booking_on_the_first_of_next_month_is_drawn_in_the_month_view():
    start, end, _, _ = window_of("month", date(2026, 11, 30), UTC)
    svg = render(
        [Row(1, "spark-01", "pair")],
        [_bar("ada · sweep", datetime(2026, 12, 1, 9, tzinfo=UTC), 8)],
        Window(start, end, UTC, datetime(2026, 11, 30, 12, tzinfo=UTC), month=date(2026, 11, 1)),
    )
    assert 'class="bk other booked"' in svg and "<title>ada · sweep</title>" in svg


def test_week_bars_carry_owner_and_purpose_inside_or_just_after_them():
    monday = datetime(2026, 11, 30, tzinfo=UTC)
    start, end, _, _ = window_of("week", monday.date(), UTC)
    w = Window(start, end, UTC, monday)
    long = render([Row(1, "spark-01", "pair")], [_bar("ada · decode sweep", monday + timedelta(hours=8), 30)], w)
    assert '<text class="tl-label tl-label-booking" ' in long and ">ada · decode sweep</text>" in long
    # Two hours are too narrow for the words: they follow the bar, in the room before the next one.
    short = render(
        [Row(1, "spark-01", "pair")],
        [_bar("bo · quick test", monday + timedelta(hours=8), 2), _bar("cy · later", monday + timedelta(days=2), 4)],
        w,
    )
    assert '<text class="tl-label tl-label-out"' in short and ">bo · quick test</text>" in short


def test_a_narrow_bar_over_many_rows_carries_its_label_up_its_side():
    monday = datetime(2026, 11, 30, tzinfo=UTC)
    start, end, _, _ = window_of("week", monday.date(), UTC)
    rows = [Row(i, f"spark-{i:02d}", "switched") for i in range(1, 9)]
    svg = render(
        rows,
        [
            _bar("ada · TP=8 sweep", monday + timedelta(hours=8), 3, tuple(range(1, 9))),
            _bar("bo · bench", monday + timedelta(hours=11), 3, tuple(range(1, 9))),
        ],
        Window(start, end, UTC, monday),
    )
    assert 'transform="rotate(-90' in svg and ">ada · TP=8 sweep</text>" in svg
