"""Pages past 1,000 Sparks: on the 1,024-Spark lab (204 groups), /topology/
and /memory/ fold the groups by kind and load each kind's drawings a page at
a time, so the page itself stays under 200 KB (and each page of drawings under
400 KB); every group is still reachable by paging, with htmx or plain links."""

from __future__ import annotations

import re

import pytest

from core.actor import Actor
from inventory.labio import lab_import
from simfleet.labgen import lab_document

pytestmark = pytest.mark.django_db

LIMIT = 200 * 1024
# A page of 12 groups under one switch carries two drawings of each (the desktop's and
# the phone's, two Sparks a row): about 31 KB a group of 8 on this lab, 370 KB a page.
CHUNK_LIMIT = 2 * LIMIT


def test_the_1024_spark_lab_pages_stay_light_and_every_group_is_reachable(admin_client):
    lab_import(actor=Actor(source="import"), data=lab_document(switched=80, rings=70, pairs=50, singles=4,
                                                               prefix="spark"))  # fmt: skip
    htmx = {"HX-Request": "true"}
    for path, card in (("/topology/", r'id="group-(\d+)"'), ("/memory/", r'id="mem-(\d+)"')):
        page = admin_client.get(path)
        html = page.content.decode()
        assert page.status_code == 200 and len(page.content) < LIMIT, (path, len(page.content))
        kinds = re.findall(r'<section class="kind-section" id="kind-(\w+)">', html)
        assert {"switched", "ring", "direct"} <= set(kinds), path
        assert "Show the 80 switched groups" in html and 'hx-trigger="revealed"' in html
        seen: set[str] = set()
        for kind in kinds:
            url = f"{path}?kind={kind}&page=1"
            while url:
                part = admin_client.get(url, headers=htmx)
                body = part.content.decode()
                assert part.status_code == 200 and "<html" not in body and len(part.content) < CHUNK_LIMIT
                ids = re.findall(card, body)
                assert 0 < len(ids) <= 12 and not seen & set(ids)
                seen |= set(ids)
                more = re.search(r'hx-get="([^"]+)"', body)
                url = more.group(1).replace("&amp;", "&") if more else ""
        expected = 204 if path == "/topology/" else 200  # /memory/ draws the 4 lone Sparks in one chart
        assert len(seen) == expected, path
    # Without htmx, a kind's page is a whole page with that kind opened at that page.
    plain = admin_client.get("/topology/?kind=ring&page=2").content.decode()
    assert len(re.findall(r'id="group-\d+"', plain)) == 12 and 'href="/topology/?kind=ring&amp;page=3' in plain
    assert admin_client.get("/topology/?kind=mesh").status_code == 404
    assert admin_client.get("/memory/?kind=ring&page=x").status_code == 404
    for page in ("\u0663", "1_0", " 2", "+2"):  # an Arabic-Indic 3 and Python's other number forms, which int() took
        assert admin_client.get(f"/topology/?kind=ring&page={page}").status_code == 404, page
