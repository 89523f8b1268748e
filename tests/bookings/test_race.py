"""Many people click at once: overlapping booking requests fired together
from separate threads, each with its own database connection. Exactly one
wins; every other gets a 409 naming the winner. Runs on SQLite (the write
lock serialises) and on PostgreSQL (the exclusion constraint decides)."""

from __future__ import annotations

import random
import re
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection

from bookings.models import Allocation
from core.roles import ADMIN, MEMBER
from inventory.models import Spark
from tests.bookings.conftest import hours, iso
from tests.conftest import ApiClient, make_user

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 60


def fire(bodies: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    clients = [ApiClient(make_user(f"racer{i:02d}", MEMBER)) for i in range(len(bodies))]
    start = threading.Barrier(len(bodies))
    results: list[Any] = [None] * len(bodies)

    def run(i: int) -> None:
        try:
            start.wait()
            r = clients[i].post("/api/bookings", bodies[i])
            results[i] = (r.status_code, r.json())
        except Exception as exc:  # a crash is a result too: the assertions say which
            results[i] = (599, {"message": repr(exc)})
        finally:
            connection.close()  # this thread's own connection

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(bodies))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


def assert_no_overlap() -> None:
    rows = sorted(Allocation.objects.filter(live=True).values_list("spark_id", "start", "end"))
    for (s1, _, e1), (s2, b2, _) in zip(rows, rows[1:], strict=False):
        assert s1 != s2 or e1 <= b2, "a Spark is held twice"


def test_overlapping_requests_exactly_one_wins(lab):
    base = hours(2)
    bodies = [
        {
            "group": lab["ring"].pk,
            "start": iso(base + timedelta(minutes=i)),
            "end": iso(base + timedelta(hours=2, minutes=i)),
            "purpose": f"race {i}",
        }
        for i in range(THREADS)
    ]
    results = fire(bodies)
    codes = [code for code, _ in results]
    assert codes.count(201) == 1, codes
    assert codes.count(409) == THREADS - 1, codes
    winner = next(body for code, body in results if code == 201)
    for code, body in results:
        if code == 409:
            clash = body["errors"][0]
            assert clash["booking"] == winner["id"] and clash["owner"] == winner["owner"]
            assert clash["nodes"] == ["ring-1", "ring-2", "ring-3", "ring-4"]
    assert_no_overlap()


def test_racing_parts_of_a_switched_group_never_share_a_spark(lab):
    """Overlapping node sets, booked in any order: no deadlock, no double hold."""
    rnd = random.Random(5)
    names = [f"node-0{i}" for i in range(1, 9)]
    base = hours(2)
    bodies = [
        {
            "nodes": rnd.sample(names, rnd.randint(1, 4)),
            "start": iso(base + timedelta(minutes=rnd.randint(0, 30))),
            "end": iso(base + timedelta(hours=1)),
            "purpose": f"part {i}",
        }
        for i in range(THREADS)
    ]
    results = fire(bodies)
    codes = [code for code, _ in results]
    assert set(codes) <= {201, 409}, [b for c, b in results if c not in (201, 409)][:3]
    won = [set(body["nodes"]) for code, body in results if code == 201]
    assert won and all(a.isdisjoint(b) for i, a in enumerate(won) for b in won[i + 1 :])
    # Every refusal names a Spark it asked for that a winner holds.
    for (code, body), asked in zip(results, bodies, strict=True):
        if code == 409:
            assert set(body["errors"][0]["nodes"]) <= set(asked["nodes"])
    assert_no_overlap()


def test_deleting_a_spark_while_it_is_being_booked_never_strands_a_booking(lab):
    """An admin deletes ring-1 while members book the ring (each at its own
    time, so that every booking could win): the delete either wins (and no
    booking holds ring-1) or is refused naming a booking that does; no booking
    is left with fewer Sparks than it was given, and nothing answers 500."""
    base = hours(2)
    bodies: list[dict[str, Any]] = [
        {
            "group": lab["ring"].pk,
            "start": iso(base + timedelta(hours=3 * i)),
            "end": iso(base + timedelta(hours=3 * i + 1)),
            "purpose": f"ring {i}",
        }
        for i in range(12)
    ]
    admin = ApiClient(make_user("racing-admin", ADMIN))
    clients = [ApiClient(make_user(f"booker{i:02d}", MEMBER)) for i in range(len(bodies))]
    go = threading.Barrier(len(bodies) + 1)
    results: list[Any] = [None] * len(bodies)
    deleted: list[Any] = []

    def book(i: int) -> None:
        try:
            go.wait()
            r = clients[i].post("/api/bookings", bodies[i])
            results[i] = (r.status_code, r.json())
        except Exception as exc:
            results[i] = (599, {"message": repr(exc)})
        finally:
            connection.close()

    def delete() -> None:
        try:
            go.wait()
            time.sleep(random.Random(3).uniform(0, 0.05))
            r = admin.delete("/api/sparks/ring-1")
            deleted.append((r.status_code, r.json()))
        except Exception as exc:
            deleted.append((599, {"message": repr(exc)}))
        finally:
            connection.close()

    threads = [threading.Thread(target=book, args=(i,)) for i in range(len(bodies))]
    threads.append(threading.Thread(target=delete))
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    codes = sorted(code for code, _ in results)
    assert set(codes) <= {201, 409, 422}, results
    ((status, answer),) = deleted
    won = [body for code, body in results if code == 201]
    for body in won:  # every winner holds every Spark it was given
        held = sorted(Allocation.objects.filter(booking_id=body["id"]).values_list("spark__name", flat=True))
        assert held == sorted(body["nodes"]), (body, held)
    holding = [body["id"] for body in won if "ring-1" in body["nodes"]]
    if status == 200:
        assert not holding and not Spark.objects.filter(name="ring-1").exists()
    else:
        assert status == 409, answer
        named = {int(n) for n in re.findall(r"booking (\d+) of", answer["errors"][0]["message"])}
        assert holding and named and named <= set(holding), (named, holding)
        assert Spark.objects.filter(name="ring-1").exists()
