"""Playwright driving Debian's Chromium (never a downloaded browser) against
pytest-django's live server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SHOTS = Path(os.environ.get("FLEET_SCREENSHOTS", Path(__file__).resolve().parents[2] / "screenshots"))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # Module scope: Playwright's sync API keeps an event loop running while it
    # is open, which would break asyncio.run() in the tests collected after it.
    # While that loop runs, Django takes this thread's ORM calls for async code
    # and refuses them: the journeys (and only they) allow them, and only while
    # the browser is open.
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Debian's Chromium is missing at {CHROMIUM}: `apt-get install chromium` (./run test does it)")
    from playwright.sync_api import sync_playwright

    with pytest.MonkeyPatch.context() as env, sync_playwright() as pw:
        env.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


@pytest.fixture
def shot(page: Any) -> Any:
    """Save a full-page screenshot for people to look at (screenshots/)."""

    def _shot(name: str) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return _shot


def sign_in(page: Any, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")


def no_sideways_scroll(page: Any, slack: int = 0) -> None:
    """Nothing pushes the page sideways: it is as wide as the window
    (``slack``: pixels of sub-pixel rounding a page may round up to)."""
    scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll <= inner + slack, f"the page is {scroll} px wide in a {inner} px window"


def fits_its_card(locator: Any) -> None:
    """An element (a table) is no wider than the box it sits in."""
    assert locator.evaluate("t => t.scrollWidth <= t.parentElement.clientWidth"), locator


def fits_a_phone(page: Any, *shown: Any) -> None:
    """At phone width (390 px): nothing pushes the page sideways, and each of
    ``shown`` lies on screen, its words wrapped rather than scrolled away."""
    assert page.viewport_size["width"] == 390
    no_sideways_scroll(page)
    for locator in shown:
        box = locator.bounding_box()
        assert box is not None and box["x"] + box["width"] <= 390
