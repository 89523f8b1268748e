"""Time bookings on a 1,024-Spark fleet with a month of bookings.

The fleet: 80 switched groups of 8, 70 rings of 4, 52 direct pairs; every
group booked back to back with gaps over the five weeks ahead (switched
groups often as two halves). Then:

- the booking API under concurrent load: POST /api/bookings from several
  threads (each its own database connection), whole groups or halves of
  switched groups over random windows in the next four weeks, so many clash
  with the month's bookings or with each other. Every 409 is checked: the
  bookings it names must exist, be live, hold the Sparks it names, and
  overlap the asked window; and no two live allocations may overlap.
- the baseline in the same run and the same threads: GET /api/sparks?limit=100.
- the timeline page (/bookings/, a fully booked month and this week, all
  1,024 Sparks): server time and query count, against the Sparks list page
  (/sparks/, 50 Sparks a page) as baseline.

Requests go through Django's test client in-process (no sockets), so the
figures are the application's and the database's, not a web server's.
Runs in a throwaway database made like the test database:

    .venv/bin/python bench/bookings.py [--requests 400] [--threads 8] [--repeats 7]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sparkfleet .venv/bin/python bench/bookings.py
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from common import bench_var_dir  # noqa: E402 - bench/ is the script's own folder

if "DATABASE_URL" not in os.environ:
    bench_var_dir("fleet-bench-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fleet.settings")
os.environ.setdefault("FLEET_BOOKING_MAX_ACTIVE_PER_USER", "100000")  # measure clashes, not the per-person cap

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from accounts.tokens import token_create  # noqa: E402
from bookings.models import Allocation, Booking  # noqa: E402
from core.actor import Actor  # noqa: E402
from core.roles import MEMBER, set_role  # noqa: E402
from inventory.labio import lab_import  # noqa: E402
from inventory.models import NodeGroup, NodeGroupMember  # noqa: E402
from simfleet.bookings import fill_month  # noqa: E402
from simfleet.labgen import lab_document  # noqa: E402


def iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


def users(count: int, prefix: str = "bench") -> list[tuple[Any, str]]:
    from django.contrib.auth.models import User

    out = []
    for i in range(count):
        user = User.objects.create_user(username=f"{prefix}{i:03d}", password="x")
        set_role(user, MEMBER)
        out.append((user, token_create(user=user, name="bench")[1]))
    return out


def run_threads(jobs: list[Any], threads: int) -> tuple[float, list[tuple[int, Any]]]:
    """Run (method, path, body, token) jobs on ``threads`` threads; wall time and answers."""
    results: list[Any] = [None] * len(jobs)
    cursor = iter(range(len(jobs)))
    lock = threading.Lock()
    gate = threading.Barrier(threads)

    def worker() -> None:
        client = Client()
        gate.wait()
        try:
            while True:
                with lock:
                    i = next(cursor, None)
                if i is None:
                    return
                method, path, body, token = jobs[i]
                headers = {"Authorization": f"Bearer {token}"}
                if method == "post":
                    r = client.post(path, body, content_type="application/json", headers=headers)
                else:
                    r = client.get(path, headers=headers)
                results[i] = (r.status_code, r.json())
        finally:
            connections.close_all()

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    start = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return time.perf_counter() - start, results


Job = tuple[str, str, Any, str]  # method, path, body, token


def booking_jobs(count: int, people: list[tuple[Any, str]], now: datetime, seed: int) -> list[Job]:
    rnd = random.Random(seed)
    groups = list(NodeGroup.objects.filter(auto=True, retired_at=None).order_by("pk").values_list("pk", "kind"))
    names: dict[int, list[str]] = {}
    for gid, name in (
        NodeGroupMember.objects.filter(group__auto=True).order_by("spark__name").values_list("group_id", "spark__name")
    ):
        names.setdefault(gid, []).append(name)
    jobs = []
    for i in range(count):
        gid, kind = rnd.choice(groups)
        start = now + timedelta(hours=rnd.randint(1, 24 * 28))
        body: dict[str, Any] = {
            "start": iso(start),
            "end": iso(start + timedelta(hours=rnd.choice([2, 4, 8, 24]))),
            "purpose": f"bench {i}",
        }
        if kind == "switched" and rnd.random() < 0.5:
            half = names[gid][:4] if rnd.random() < 0.5 else names[gid][4:]
            body["nodes"] = half
        else:
            body["group"] = gid
        jobs.append(("post", "/api/bookings", body, rnd.choice(people)[1]))
    return jobs


def refusal_is_right(body: dict[str, Any], answer: dict[str, Any], asked: set[str]) -> bool:
    """A 409 is right when every booking it names is live, holds the Sparks it
    names (Sparks that were asked for), and overlaps the asked window."""
    start = datetime.fromisoformat(body["start"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(body["end"].replace("Z", "+00:00"))
    errors = answer.get("errors") or []
    if not errors:
        return False
    for err in errors:
        if err.get("kind") != "booking" or not set(err["nodes"]) <= asked:
            return False
        held = set(
            Allocation.objects.filter(booking_id=err["booking"], live=True, start__lt=end, end__gt=start).values_list(
                "spark__name", flat=True
            )
        )
        if not set(err["nodes"]) <= held:
            return False
    return True


def overlaps_in_db() -> int:
    rows = sorted(Allocation.objects.filter(live=True).values_list("spark_id", "start", "end"))
    return sum(1 for (s1, _, e1), (s2, b2, _) in zip(rows, rows[1:], strict=False) if s1 == s2 and e1 > b2)


def page_time(client: Client, path: str, repeats: int) -> tuple[float, int, int]:
    times = []
    for _ in range(repeats):
        with CaptureQueriesContext(connection) as ctx:
            start = time.perf_counter()
            r = client.get(path)
            times.append(time.perf_counter() - start)
        assert r.status_code == 200, (path, r.status_code)
    return statistics.median(times) * 1000, len(ctx.captured_queries), len(r.content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    test_db = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    settings.DEBUG = False
    try:
        t0 = time.perf_counter()
        admin = users(1, prefix="benchadmin")[0][0]
        admin.is_superuser = True
        admin.save()
        lab = lab_document(switched=80, rings=70, pairs=52, prefix="spark")
        lab_import(actor=Actor(user=admin, source="command"), data=lab)
        people = users(64)
        now = datetime.now(UTC).replace(second=0, microsecond=0)
        # A month ahead, booked back to back: what the load below runs into.
        filled = fill_month(now - timedelta(days=3), now + timedelta(days=35), [u for u, _ in people])
        busiest = (now + timedelta(days=15)).date().isoformat()  # a calendar month wholly inside the filled span
        allocations = Allocation.objects.count()
        setup_s = time.perf_counter() - t0

        base_jobs = [("get", "/api/sparks?limit=100", None, people[i % 64][1]) for i in range(args.requests)]
        base_s, base = run_threads(base_jobs, args.threads)
        assert all(code == 200 for code, _ in base), Counter(code for code, _ in base)
        jobs = booking_jobs(args.requests, people, now, seed=11)
        book_s, answers = run_threads(jobs, args.threads)
        codes = Counter(code for code, _ in answers)
        refused = [(job[2], body) for job, (code, body) in zip(jobs, answers, strict=True) if code == 409]

        def asked(body: dict[str, Any]) -> set[str]:
            if "nodes" in body:
                return set(body["nodes"])
            return set(NodeGroupMember.objects.filter(group_id=body["group"]).values_list("spark__name", flat=True))

        right = sum(refusal_is_right(body, answer, asked(body)) for body, answer in refused)
        double = overlaps_in_db()

        viewer = Client()
        viewer.force_login(people[0][0])
        month_ms, month_q, month_bytes = page_time(viewer, f"/bookings/?view=month&date={busiest}", args.repeats)
        week_ms, week_q, _ = page_time(viewer, "/bookings/?view=week", args.repeats)
        list_ms, list_q, _ = page_time(viewer, "/sparks/", args.repeats)

        vendor = connection.vendor
        print(
            f"python {platform.python_version()} on {platform.machine()}, database {vendor}, "
            f"{args.threads} threads, {args.repeats} page repeats (median)"
        )
        print(
            f"fleet: {NodeGroupMember.objects.filter(group__auto=True).count()} Sparks in "
            f"{NodeGroup.objects.filter(auto=True).count()} groups; month filled with {filled:,} bookings "
            f"({allocations:,} allocations); setup {setup_s:.1f} s"
        )
        print(
            f"baseline GET /api/sparks?limit=100: {args.requests} requests in {base_s:.2f} s = "
            f"{args.requests / base_s:7.1f} req/s"
        )
        print(
            f"POST /api/bookings:            {args.requests} requests in {book_s:.2f} s = "
            f"{args.requests / book_s:7.1f} req/s  ({args.requests / book_s / (args.requests / base_s):.2f} x "
            "baseline)"
        )
        print(
            f"  answers: {dict(sorted(codes.items()))}; refusals checked right: {right}/{len(refused)} "
            f"({100 * right / max(1, len(refused)):.1f} %); Sparks held twice: {double}"
        )
        print(f"timeline month (1,024 rows): {month_ms:7.1f} ms, {month_q} queries, {month_bytes / 1e6:.1f} MB HTML")
        print(f"timeline week:               {week_ms:7.1f} ms, {week_q} queries")
        print(
            f"baseline /sparks/ page:      {list_ms:7.1f} ms, {list_q} queries "
            f"(timeline month = {month_ms / list_ms:.1f} x)"
        )
        assert double == 0 and right == len(refused) and set(codes) <= {201, 409}
        assert Booking.objects.count() == filled + codes[201]
    finally:
        connections.close_all()
        connection.creation.destroy_test_db(test_db, verbosity=0)


if __name__ == "__main__":
    main()
