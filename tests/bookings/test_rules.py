"""The pure reservation rules: windows, splitting, states, clash texts and
busy-without-booking."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from bookings.rules import (
    BUSY_OTHER_USER,
    BUSY_UNBOOKED,
    Clash,
    GpuProcess,
    Holding,
    busy_findings,
    effective_status,
    group_clashes,
    splittable,
    window_errors,
)

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
H = timedelta(hours=1)


def errors(start, end, **kw):
    return window_errors(start, end, now=NOW, max_hours=336, max_ahead_days=90, **kw)


def test_a_good_window_has_no_errors():
    assert errors(NOW + H, NOW + 3 * H) == []
    # A start a couple of minutes ago is "now" (a form filled in, then sent).
    assert errors(NOW - timedelta(minutes=2), NOW + H) == []


def test_bad_windows_name_the_field_and_the_reason():
    assert errors(NOW + 3 * H, NOW + H) == [
        ("end", "the end (2026-12-01T10:00:00+00:00) is before the start (2026-12-01T12:00:00+00:00)")
    ]
    assert errors(NOW + H, NOW + H)[0][1] == "the window is empty: the end equals the start"
    year = errors(NOW + H, NOW + H + timedelta(days=365))
    assert year[0][0] == "end" and "longest booking is 336 h" in year[0][1]
    naive = errors(datetime(2026, 12, 1, 10, 0), NOW + 2 * H)
    assert naive == [("start", "2026-12-01T10:00:00 has no time zone: add Z or an offset such as +01:00")]
    past = errors(NOW - 5 * H, NOW - 2 * H)
    assert past == [("end", "the window ended in the past (2026-12-01T07:00:00+00:00)")]
    assert errors(NOW - 5 * H, NOW + H)[0][0] == "start"
    far = errors(NOW + timedelta(days=100), NOW + timedelta(days=100, hours=1))
    assert far[0][0] == "start" and "90 days ahead" in far[0][1]
    assert errors(None, NOW + H) == [("start", "give the start time")]


def test_a_running_booking_may_keep_a_start_in_the_past():
    assert errors(NOW - 5 * H, NOW + H, started=True) == []


def test_only_switched_groups_split():
    group = ["a", "b", "c", "d"]
    assert splittable("switched", group, ["a", "c"])
    assert splittable("ring", group, group)
    assert not splittable("ring", group, ["a", "b"])
    assert not splittable("direct", ["a", "b"], ["a"])
    assert not splittable("chain", group, ["a"])
    assert not splittable("switched", group, [])
    assert not splittable("switched", group, ["a", "z"])


@given(
    st.sampled_from(["ring", "direct", "chain", "switched", "irregular", "single"]),
    st.sets(st.sampled_from("abcdefgh"), min_size=1),
)
def test_a_whole_group_is_always_valid_and_a_strict_part_only_when_switched(kind, nodes):
    group = sorted(nodes)
    assert splittable(kind, group, group)
    if len(group) > 1:
        assert splittable(kind, group, group[1:]) == (kind == "switched")


def test_state_follows_the_clock():
    a, b = NOW + H, NOW + 2 * H
    assert effective_status("booked", a, b, NOW) == "booked"
    assert effective_status("booked", a, b, a) == "active"
    assert effective_status("active", a, b, b) == "finished"  # half-open: the end is free
    assert effective_status("cancelled", a, b, a) == "cancelled"
    assert effective_status("finished", a, b, a) == "finished"


def test_clashes_of_one_booking_read_as_one_sentence():
    held = [Clash("booking", 7, n, "member2", "fine-tune", NOW + H, NOW + 3 * H) for n in ("s-2", "s-1")]
    held.append(Clash("maintenance", 3, "s-1", "admin1", "new cable", NOW + 4 * H, NOW + 5 * H))
    groups = group_clashes(held, NOW + 2 * H, NOW + 6 * H)
    assert [g.nodes for g in groups] == [("s-1", "s-2"), ("s-1",)]
    assert groups[0].message(UTC) == (
        "s-1, s-2 are held by member2 from 2026-12-01 10:00 to 12:00 UTC (booking 7: fine-tune); "
        "overlap from 2026-12-01 11:00 to 12:00 UTC"
    )
    assert (
        groups[1]
        .message(ZoneInfo("Europe/Berlin"))
        .startswith("s-1 is under maintenance (new cable) from 2026-12-01 14:00 to 15:00 CET")
    )


def test_busy_without_a_booking():
    procs = [
        GpuProcess("s-1", 40, "python3", "member1"),
        GpuProcess("s-2", 41, "vllm", "member2"),
        GpuProcess("s-2", 42, "vllm", "root"),
        GpuProcess("s-3", 43, "llama-server", None),
        GpuProcess("s-4", 44, "python3", "Member3"),
    ]
    held = [Holding("s-2", "member1", 9), Holding("s-3", "member1", 9), Holding("s-4", "member3", 9)]
    found = busy_findings(procs, held)
    assert [(f.code, f.node) for f in found] == [(BUSY_UNBOOKED, "s-1"), (BUSY_OTHER_USER, "s-2")]
    assert found[0].message.startswith("s-1 runs 1 GPU compute process (python3 (pid 40, member1)) but nobody")
    # root (containers) and unknown owners are not blamed on anyone; names compare without case.
    assert "member2" in found[1].message and "root" not in found[1].message
    assert busy_findings([], held) == []


def test_windows_in_one_zone_are_compared_as_instants_across_a_daylight_saving_change():
    # Datetimes sharing a zone compare by wall clock: on the night Berlin's
    # clocks spring forward, 02:30 (not a real time: read as 01:30 UTC) and
    # 03:30 CEST are the same instant, so the window is empty, not an hour long.
    berlin = ZoneInfo("Europe/Berlin")
    start = datetime(2027, 3, 28, 2, 30, tzinfo=berlin)
    end = datetime(2027, 3, 28, 3, 30, tzinfo=berlin)
    now = datetime(2027, 3, 27, 12, 0, tzinfo=UTC)
    found = window_errors(start, end, now=now, max_hours=336, max_ahead_days=90)
    assert found == [("end", "the window is empty: the end equals the start")]
    # The night they fall back, 02:30 CEST to 02:30 CET is one real hour.
    first = datetime(2027, 10, 31, 2, 30, tzinfo=berlin)
    second = datetime(2027, 10, 31, 2, 30, fold=1, tzinfo=berlin)
    assert window_errors(first, second, now=now, max_hours=336, max_ahead_days=366) == []
