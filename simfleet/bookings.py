"""A generated month of bookings on every live automatic group, for the
timeline's browser journey and ``bench/bookings.py`` (with a lab from
``simfleet.labgen``).

Written in bulk, bypassing the services (no checks, no change log): a
fixture for size tests and benchmarks, never a path for users' bookings.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from bookings.models import Allocation, Booking
from inventory.models import NodeGroup, NodeGroupMember

PURPOSES = [
    "TP=4 decode sweep",
    "fine-tune LoRA",
    "vLLM soak test",
    "NCCL all-reduce",
    "RoCEnante A/B",
    "GLM-5.3 on 8 nodes",
    "llama.cpp RPC",
    "eval harness",
    "SGLang EP trial",
    "class demo",
]


def fill_month(start: datetime, end: datetime, users: list[Any], *, seed: int = 7) -> int:
    """Bookings back to back with gaps over [start, end) on every live auto
    group (switched groups often as two halves). Returns the number of bookings."""
    rnd = random.Random(seed)
    members: dict[int, list[int]] = {}
    for gid, sid in (
        NodeGroupMember.objects.filter(group__auto=True, group__retired_at=None)
        .order_by("spark__name")
        .values_list("group_id", "spark_id")
    ):
        members.setdefault(gid, []).append(sid)
    plans: list[tuple[NodeGroup, list[int], datetime, datetime, Any, str]] = []
    for group in NodeGroup.objects.filter(auto=True, retired_at=None, pk__in=list(members)).order_by("name"):
        ids = members[group.pk]
        lanes = (
            [ids[: len(ids) // 2], ids[len(ids) // 2 :]] if group.kind == "switched" and rnd.random() < 0.6 else [ids]
        )
        for lane in lanes:
            at = start + timedelta(hours=rnd.randint(0, 30))
            while at < end:
                hours = rnd.choice([2, 3, 4, 6, 8, 12, 24, 36, 48, 72])
                until = at + timedelta(hours=hours)
                plans.append((group, lane, at, until, rnd.choice(users), rnd.choice(PURPOSES)))
                at = until + timedelta(hours=rnd.choice([0, 0, 1, 2, 5, 10, 20, 40]))
    rows = Booking.objects.bulk_create(
        [
            Booking(
                owner=u,
                group=g,
                group_name=g.name,
                whole_group=len(lane) == len(members[g.pk]),
                start=a,
                end=b,
                purpose=p,
                status="booked",
            )
            for g, lane, a, b, u, p in plans
        ]
    )
    Allocation.objects.bulk_create(
        [
            Allocation(booking=row, spark_id=sid, start=row.start, end=row.end)
            for row, (_, lane, _, _, _, _) in zip(rows, plans, strict=True)
            for sid in sorted(lane)
        ],
        batch_size=2000,
    )
    return len(rows)
