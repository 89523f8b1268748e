"""Many serve requests on the same Sparks at once, each from its own thread
and database connection: exactly one is accepted, every other is a 409, and
no Spark is ever held by two live servings (PostgreSQL: the bookings'
per-Spark lock, then the partial unique index; SQLite: the write lock)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from core.roles import ADMIN
from serving import services
from serving.models import ServingNode
from tests.conftest import ApiClient, make_user
from tests.serving.conftest import SMALL, book

pytestmark = pytest.mark.django_db(transaction=True)
THREADS = 8


def test_racing_serves_exactly_one_wins(pair, member_user, monkeypatch):
    monkeypatch.setattr(services, "queue", lambda serving, stop=False: None)  # no worker: the race is the point
    book(member_user, pair)
    clients = [ApiClient(make_user(f"racer{i}", ADMIN)) for i in range(THREADS)]
    barrier = threading.Barrier(THREADS)
    results: list[Any] = [None] * THREADS

    def run(i: int) -> None:
        try:
            barrier.wait()
            body = {"group": pair.pk, "model": SMALL, "plan": i % 2}  # one node, or two copies: both hold pair-a
            response = clients[i].post("/api/serving", body)
            results[i] = (response.status_code, response.json())
        except Exception as exc:
            results[i] = (599, {"message": repr(exc)})
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    statuses = sorted(status for status, _ in results)
    assert statuses == [202] + [409] * (THREADS - 1), results
    for status, body in results:
        if status == 409:
            assert body["errors"][0]["path"] == "group"
    live = list(ServingNode.objects.filter(live=True).values_list("spark__name", flat=True))
    assert len(live) == len(set(live)) and "pair-a" in live
