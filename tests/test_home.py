"""The home page: counts, node groups with local and pooled memory apart, recent changes."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db


def test_home_lists_groups_and_recent_changes(admin_client, import_lab):
    import_lab("pair.yaml", "ring4.yaml")
    html = admin_client.get("/").content.decode()
    table = html.split('id="home-groups"')[1].split("</table>")[0]
    assert "group-pair-a" in table and "group-ring-1" in table
    assert "253.4 GB over 2" in table and "506.8 GB over 4" in table  # pooled, never shown as one machine
    assert "126.7 GB" in table and "expected" in table  # local: one Spark's usable memory, not measured yet
    assert "Created" in html and "ring-4" in html.split("Recent changes")[1]


def test_home_queries_do_not_grow_with_the_lab(admin_client, import_lab):
    import_lab("pair.yaml")
    with CaptureQueriesContext(connection) as small:
        admin_client.get("/")
    import_lab("ring4.yaml", "lab8-crs804.yaml")
    with CaptureQueriesContext(connection) as large:
        admin_client.get("/")
    assert len(large) <= len(small) + 1


def test_favicon_and_skip_link(client, admin_client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon["Content-Type"] == "image/x-icon"
    assert b"".join(icon.streaming_content if icon.streaming else [icon.content])[:4] == b"\x00\x00\x01\x00"
    html = admin_client.get("/").content.decode()
    assert '<a class="skiplink" href="#main">Skip to content</a>' in html and '<main id="main"' in html


def test_the_api_reference_links_back_and_to_the_tokens(admin_client):
    html = admin_client.get("/api/docs").content.decode()
    assert 'href="/">← Back to Spark Fleet</a>' in html and 'href="/accounts/profile/#tokens"' in html
    profile = admin_client.get("/accounts/profile/").content.decode()
    assert 'id="tokens"' in profile and 'href="/api/docs"' in profile
    assert '<label for="id_token_name">' in profile
