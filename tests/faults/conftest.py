"""One production-like stack for the whole fault suite (tests/faults/stack.py):
built once (a PostgreSQL cluster, Redis, the schema, the demo lab), with
gunicorn running; each test starts the other processes it needs and leaves
the servers running when it ends."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.stack import Stack, build


@pytest.fixture(scope="session")
def stack() -> Iterator[Stack]:
    if not shutil.which("pg_createcluster") or not shutil.which("redis-server"):
        pytest.fail("the fault suite needs pg_createcluster (postgresql-common) and redis-server")
    folder = Path(tempfile.mkdtemp(prefix="sf-faults-"))
    built = build(folder)
    try:
        built.start_web()
        yield built
    finally:
        built.close()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def servers_up(stack: Stack, request: pytest.FixtureRequest) -> Iterator[Stack]:
    """The stack with its database and broker running, and the tails of every log on failure."""
    if not stack.pg.ready():
        stack.pg.start()
    if stack.redis.proc is None:
        stack.redis.start()
    yield stack
    for name in [n for n in stack.procs if n != "web"]:
        stack.stop(name)
    if not stack.pg.ready():
        stack.pg.start()
    if stack.redis.proc is None:
        stack.redis.start()
    # the next test starts from a lab with no run under way (a test that failed half-way may leave one)
    stack.sql("UPDATE fabric_fabricrun SET status = 'failed', error = 'left by an earlier test' "
              "WHERE status IN ('queued', 'running')")  # fmt: skip


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed and "stack" in getattr(item, "funcargs", {}):
        report.sections.append(("fault stack logs", item.funcargs["stack"].tails()))
