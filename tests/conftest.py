"""Shared fixtures: users in each role, signed-in clients, API clients with a
personal token, and labs built from lab documents in ``labs/``."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.conf import settings
from django.contrib.auth.models import User
from django.middleware.csrf import _get_new_csrf_string
from django.test import Client
from hypothesis import settings as hypothesis_settings

from accounts.tokens import token_create
from core.roles import ADMIN, MEMBER, VIEWER, set_role

LABS = Path(__file__).resolve().parent.parent / "labs"

# No example database: parallel workers would share one folder of it, and a
# fresh CI clone starts empty anyway. No deadline: the suite runs on shared,
# busy machines, and timing is measured in bench/, never asserted in tests.
hypothesis_settings.register_profile("fleet", database=None, deadline=None)
hypothesis_settings.load_profile("fleet")


def pytest_configure(config: Any) -> None:
    # The settings no longer make the var folder at import (the image's app
    # folder is read-only); tests write keys and files there, so make it.
    Path(settings.VAR_DIR).mkdir(parents=True, exist_ok=True)
    # FLEET_TEST_CLOCK=2026-12-31T23:30:00+00:00 runs the suite as if the wall
    # clock read that instant (and ticked on from it): the date-dependent tests
    # must pass on a month's last evening, on New Year's night and on the day
    # of a daylight saving change (./run clock runs them so). Every test
    # process (each pytest-xdist worker too) travels; other processes (the
    # browser, the simulated Sparks) keep the real clock.
    clock = os.environ.get("FLEET_TEST_CLOCK", "").strip()
    if clock:
        import time_machine

        time_machine.travel(datetime.fromisoformat(clock), tick=True).start()


# Tests whose outcome could depend on the date, the hour or the zone: windows
# of hours from now, days, weeks and months, local times in forms. ./run test
# runs them again at three instants (see CLOCKS in ./run).
CLOCK_DEPENDENT = ("tests/bookings/", "tests/placement/test_django_plan_booking.py")


def pytest_collection_modifyitems(items: list[Any]) -> None:
    for item in items:
        if Path(item.path).relative_to(LABS.parent).as_posix().startswith(CLOCK_DEPENDENT):
            item.add_marker(pytest.mark.clock)
    # Browser journeys last: the quick tests report first.
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)


def celery_conf(name: str, value: Any) -> None:
    """Change a Celery setting at run time. The app reads Django's settings
    under the CELERY namespace, and Celery 5.6 then looks the prefixed name
    up first (``CELERY_TASK_ALWAYS_EAGER``): set both spellings."""
    from fleet.celery import app

    app.conf[name] = value
    app.conf["CELERY_" + name.upper()] = value


@pytest.fixture(autouse=True)
def _celery_eager() -> Any:
    """Tasks queued by the code under test (notifications, booking emails) run
    in the test, through Celery's own tracer (retries included). Tests that
    need a real broker and worker use ``real_broker``."""
    from fleet.celery import app

    before = app.conf.task_always_eager
    celery_conf("task_always_eager", True)
    yield
    celery_conf("task_always_eager", before)


@pytest.fixture
def real_broker(_celery_eager: Any) -> None:
    celery_conf("task_always_eager", False)


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    # PBKDF2 at full strength costs ~0.2 s per user; tests need none of it.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def lab_data(name: str) -> dict[str, Any]:
    return yaml.safe_load((LABS / name).read_text())


def make_user(username: str, role: str) -> User:
    user = User.objects.create_user(username=username, password=f"{username}-pass-123")
    set_role(user, role)
    return user


@pytest.fixture
def admin_user(db: Any) -> User:
    return make_user("admin1", ADMIN)


@pytest.fixture
def member_user(db: Any) -> User:
    return make_user("member1", MEMBER)


@pytest.fixture
def viewer_user(db: Any) -> User:
    return make_user("viewer1", VIEWER)


@pytest.fixture
def users(admin_user: User, member_user: User, viewer_user: User) -> dict[str, User]:
    return {ADMIN: admin_user, MEMBER: member_user, VIEWER: viewer_user}


class ApiClient:
    """An API client as a script or a browser uses it, on a test client that
    ENFORCES CSRF (Django's default test client skips the check).

    ``ApiClient(user)`` sends a personal bearer token and no cookie, as a
    script does. ``ApiClient(user, session=True)`` signs in instead and, like
    the browser, sends the CSRF cookie and its ``X-CSRFToken`` header on
    writes (``csrf=False`` leaves the header out). ``ApiClient(None)``
    is anonymous.
    """

    def __init__(self, user: User | None, *, session: bool = False, csrf: bool = True) -> None:
        self.client = Client(enforce_csrf_checks=True)
        self.headers: dict[str, str] = {}
        self.csrf = ""
        if user is not None and session:
            self.client.force_login(user)
            self.csrf = _get_new_csrf_string()
            self.client.cookies[settings.CSRF_COOKIE_NAME] = self.csrf
            self.csrf = self.csrf if csrf else ""
        elif user is not None:
            _, token = token_create(user=user, name="tests")
            self.headers["Authorization"] = f"Bearer {token}"

    def _send(
        self, method: str, path: str, body: Any = None, content_type: str = "application/json", **extra: Any
    ) -> Any:
        data = body if isinstance(body, str | bytes) or body is None else json.dumps(body)
        fn = getattr(self.client, method)
        headers = {**self.headers, **extra.pop("headers", {})}
        if self.csrf and method != "get":
            headers.setdefault("X-CSRFToken", self.csrf)
        kwargs: dict[str, Any] = {"headers": headers}
        if data is not None:
            kwargs.update(data=data, content_type=content_type)
        return fn(path, **kwargs, **extra)

    def get(self, path: str, **kw: Any) -> Any:
        return self._send("get", path, **kw)

    def post(self, path: str, body: Any = None, **kw: Any) -> Any:
        return self._send("post", path, body, **kw)

    def patch(self, path: str, body: Any = None, **kw: Any) -> Any:
        return self._send("patch", path, body, **kw)

    def delete(self, path: str, **kw: Any) -> Any:
        return self._send("delete", path, **kw)


@pytest.fixture
def api_admin(admin_user: User) -> ApiClient:
    return ApiClient(admin_user)


@pytest.fixture
def api_member(member_user: User) -> ApiClient:
    return ApiClient(member_user)


@pytest.fixture
def api_viewer(viewer_user: User) -> ApiClient:
    return ApiClient(viewer_user)


@pytest.fixture
def session_admin(admin_user: User) -> ApiClient:
    """The API as a signed-in lab admin's browser uses it (session cookie and CSRF token)."""
    return ApiClient(admin_user, session=True)


@pytest.fixture
def session_member(member_user: User) -> ApiClient:
    return ApiClient(member_user, session=True)


@pytest.fixture
def admin_client(admin_user: User) -> Client:
    c = Client()
    c.force_login(admin_user)
    return c


@pytest.fixture
def import_lab(admin_user: User) -> Any:
    """Import one or more lab documents from labs/ through the service."""
    from core.actor import Actor
    from inventory.labio import lab_import

    def _import(*names: str) -> None:
        for name in names:
            lab_import(actor=Actor(user=admin_user, source="import"), data=lab_data(name))

    return _import


def db_state() -> dict[str, Any]:
    """Everything an inventory change could touch, for 'nothing changed' checks."""
    from inventory.labio import lab_export
    from inventory.models import CableEnd, CatalogueEntry, Change, Port

    return {
        "export": lab_export(),
        "changes": Change.objects.count(),
        "ports": Port.objects.count(),
        "ends": CableEnd.objects.count(),
        "catalogue": CatalogueEntry.objects.count(),
    }
