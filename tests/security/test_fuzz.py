"""A bounded schemathesis run against the live app: every operation in
/api/openapi.json, with data that fits the schema and data that does not,
as a viewer, a member and a lab admin (each with a personal token only,
as a script would be).

What must hold for every request: no 5xx; the answer is one the schema
declares (status, content type, headers, and a body that validates against
its response schema); a viewer's write never succeeds; a refused request
(any 4xx) changes nothing in the database. The run is
deterministic (a fixed seed) and small (FLEET_FUZZ_EXAMPLES examples per
operation, role and mode); it prints how many requests it sent and how long
it took. Select it alone with ``-m fuzz``.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from typing import Any

import pytest
import requests
from hypothesis import HealthCheck, Phase, given, seed, settings
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.tokens import token_create
from core.roles import ADMIN, MEMBER, VIEWER
from tests.conftest import lab_data, make_user
from tests.security.state import snapshot
from tests.support.catalogue import seed_catalogue

pytestmark = [pytest.mark.fuzz, pytest.mark.django_db(transaction=True)]

EXAMPLES = int(os.environ.get("FLEET_FUZZ_EXAMPLES", "3"))
CONFORMANCE = [
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
SEED = 20261130
READ_METHODS = {"GET", "HEAD", "OPTIONS"}


@pytest.fixture
def fuzz_lab() -> dict[str, str]:
    from bookings import services as booking_services
    from inventory.labio import lab_import
    from inventory.services import Actor

    seed_catalogue()
    tokens = {}
    for username, role in (("fuzz-admin", ADMIN), ("fuzz-member", MEMBER), ("fuzz-viewer", VIEWER)):
        user = make_user(username, role)
        tokens[role] = token_create(user=user, name="fuzz")[1]
        if role == ADMIN:
            lab_import(actor=Actor(user=user, source="import"), data=lab_data("demo.yaml"))
        if role == MEMBER:
            from datetime import UTC, datetime, timedelta

            from inventory.models import NodeGroup

            group = NodeGroup.objects.filter(retired_at=None, auto=True).order_by("pk").first()
            assert group is not None
            start = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=3)
            booking_services.booking_create(
                actor=Actor(user=user, source="test"),
                group=group.pk,
                start=start,
                end=start + timedelta(hours=2),
                purpose="fuzz target",
            )
    return tokens


def test_the_api_under_fuzzing(live_server, fuzz_lab, capsys):
    import schemathesis
    from schemathesis.generation.modes import GenerationMode

    base = live_server.url
    raw = requests.get(f"{base}/api/openapi.json", timeout=30).json()
    schema = schemathesis.openapi.from_dict(raw)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) > 20

    sent: Counter[str] = Counter()
    statuses: Counter[int] = Counter()
    failures: list[str] = []
    session = requests.Session()
    state = {"last": snapshot()}
    started = time.monotonic()

    for role in (VIEWER, MEMBER, ADMIN):  # the admin last: its writes may reshape the lab
        headers = {"Authorization": f"Bearer {fuzz_lab[role]}"}
        for operation in operations:
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                probe = _prober(role, headers, base, session, sent, statuses, failures, state)
                run = seed(SEED)(
                    settings(
                        max_examples=EXAMPLES,
                        deadline=None,
                        database=None,
                        phases=[Phase.explicit, Phase.generate],
                        suppress_health_check=list(HealthCheck),
                        print_blob=False,
                    )(given(case=operation.as_strategy(generation_mode=mode))(probe))
                )
                run()

    elapsed = time.monotonic() - started
    total = sum(sent.values())
    report = (
        f"fuzz: {total} requests in {elapsed:.0f} s ({total / max(elapsed, 1e-9):.0f}/s) over "
        f"{len(operations)} operations, {EXAMPLES} examples per operation, role and mode, seed {SEED}; "
        f"by role {dict(sent)}; statuses {dict(sorted(statuses.items()))}; {len(failures)} failures"
    )
    with capsys.disabled():
        print("\n" + report)
    out = os.environ.get("FLEET_FUZZ_REPORT")
    if out:
        with open(out, "w") as fh:
            json.dump({"report": report, "failures": failures}, fh, indent=1)
    assert not failures, report + "\n" + "\n".join(failures[:40])


def _prober(
    role: str,
    headers: dict[str, str],
    base: str,
    session: requests.Session,
    sent: Counter[str],
    statuses: Counter[int],
    failures: list[str],
    state: dict[str, str],
) -> Any:
    """One request and its checks, for one role. ``state`` holds the database
    digest after the previous request, so each request costs one snapshot."""

    def probe(case: Any) -> None:
        before = state["last"]
        try:
            response = case.call(base_url=base, session=session, headers=headers, timeout=60)
        except requests.RequestException as exc:
            failures.append(f"{role} {case.method} {case.formatted_path}: no answer ({exc})")
            return
        sent[role] += 1
        status = response.status_code
        statuses[status] += 1
        where = f"{role} {case.method} {case.formatted_path} {_show(case)} -> {status}"
        if status >= 500:
            failures.append(f"{where}: server error {response.text[:200]}")
        if role == VIEWER and case.method.upper() not in READ_METHODS and status < 400:
            failures.append(f"{where}: a viewer's write succeeded")
        try:  # the answer is one /api/openapi.json declares: its status, content type, headers and body
            case.validate_response(response, checks=CONFORMANCE)
        except Exception as exc:  # noqa: BLE001 - schemathesis raises a group of check failures
            failures.append(f"{where}: the answer breaks the schema ({' '.join(str(exc).split())[:300]})")
        state["last"] = after = snapshot()
        if 400 <= status < 500 and after != before:
            failures.append(f"{where}: refused, yet the database changed")

    return probe


def _show(case: Any) -> str:
    parts = []
    if case.query:
        parts.append(f"query={case.query!r}")
    if case.body is not None and not isinstance(case.body, bytes | type(None)):
        text = json.dumps(case.body, default=str)
        parts.append(f"body={text[:160]}")
    return " ".join(parts)
