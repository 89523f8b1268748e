"""Through gunicorn, as a script sees it: a chunked import is read whole, an
empty one is refused, a prune needs its confirmation; a stranger's wrong
tokens do not lock a valid one out; the longest query the schema allows
fits in a request line; proxy headers are not trusted unless configured."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from tests.faults.stack import ROOT, Stack

pytestmark = pytest.mark.faults


def chunks(data: bytes, size: int = 700) -> Iterator[bytes]:
    for i in range(0, len(data), size):
        yield data[i : i + size]


def counts(stack: Stack) -> tuple[int, int, int]:
    rows = stack.sql(
        "SELECT (SELECT count(*) FROM inventory_spark), (SELECT count(*) FROM inventory_switch),"
        " (SELECT count(*) FROM inventory_cable)"
    )
    return rows[0]


def test_a_chunked_import_is_read_whole(servers_up):
    stack = servers_up
    pair = (ROOT / "labs" / "pair.yaml").read_bytes()
    before = counts(stack)
    r = stack.post(
        "/api/import?dry_run=true",
        stack.tokens["admin"],
        data=chunks(pair),  # requests sends a generator with Transfer-Encoding: chunked
        headers={"Content-Type": "application/yaml"},
    )
    assert r.request.headers.get("Transfer-Encoding") == "chunked" and "Content-Length" not in r.request.headers
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["message"] == "would change the inventory"
    assert body["created"] == {"spark": 2, "switch": 0, "cable": 1}
    assert counts(stack) == before  # a dry run


def test_a_chunked_or_empty_prune_cannot_erase_the_lab(servers_up):
    stack = servers_up
    before = counts(stack)
    assert before[0] >= 17
    demo = (ROOT / "labs" / "demo.yaml").read_bytes()
    token = stack.tokens["admin"]
    for body in (b"", iter([b""]), iter([b"\n", b"  \n"])):
        r = stack.post("/api/import?prune=true", token, data=body, headers={"Content-Type": "application/yaml"})
        assert r.status_code == 400, r.text
        assert r.headers["Content-Type"].startswith("application/json")
        assert r.json()["errors"][0]["message"].startswith("the document is empty")
    # the whole demo lab, chunked, with prune: nothing to remove, so nothing to confirm
    r = stack.post("/api/import?prune=true&dry_run=true", token, data=chunks(demo),
                   headers={"Content-Type": "application/yaml"})  # fmt: skip
    assert r.status_code == 200 and r.json()["deleted"] == {"spark": 0, "switch": 0, "cable": 0}, r.text
    pair = (ROOT / "labs" / "pair.yaml").read_bytes()
    r = stack.post("/api/import?prune=true", token, data=chunks(pair), headers={"Content-Type": "application/yaml"})
    assert r.status_code == 409 and r.json()["errors"][0]["path"] == "confirm_remove", r.text
    assert counts(stack) == before


def test_a_strangers_wrong_tokens_do_not_lock_a_script_out(servers_up):
    stack = servers_up
    good = stack.tokens["viewer"]
    seen = []
    for i in range(40):
        seen.append(stack.get("/api/sparks?limit=1", f"sfk_not-a-token-{i}").status_code)
        r = stack.get("/api/sparks?limit=1", good)
        assert r.status_code == 200, (i, r.status_code, r.text[:200])
    assert seen[0] == 401 and seen[-1] == 429  # the stranger is paused, the script is not


def test_the_longest_query_the_schema_allows_fits_a_request_line(servers_up):
    stack = servers_up
    schema = stack.get("/api/openapi.json").json()
    (param,) = [p for p in schema["paths"]["/api/bookings/availability"]["get"]["parameters"] if p["name"] == "nodes"]
    longest = param["schema"]["maxLength"]
    names = ",".join(["spark-01"] * (longest // 9 + 1))[:longest]
    r = stack.get(
        "/api/bookings/availability",
        stack.tokens["viewer"],
        params={"nodes": names, "start": "2030-01-01T00:00:00Z", "end": "2030-01-01T01:00:00Z"},
    )
    assert r.status_code == 200 and r.json()["free"] is not None, r.text[:300]
    key = next(p for p in schema["paths"]["/api/sparks/{name}/hostkey/accept"]["post"]["parameters"]
               if p["name"] == "key")  # fmt: skip
    worst = "+" * key["schema"]["maxLength"]  # three bytes each once percent-encoded
    r = stack.post("/api/sparks/spark-01/hostkey/accept", stack.tokens["admin"], params={"key": worst})
    assert len(r.request.url) > 6144  # beyond gunicorn's default limit (4094), within the one set (8190)
    # the app answered (no host key presented yet: nothing to accept), not gunicorn's HTML "Bad Request"
    assert r.status_code == 400 and r.headers["Content-Type"].startswith("application/json"), r.text[:300]


def sign_in(stack: Stack, username: str, password: str) -> requests.Session:
    session = requests.Session()
    session.get(stack.url("/accounts/login/"), timeout=30)
    r = session.post(
        stack.url("/accounts/login/"),
        data={"username": username, "password": password, "csrfmiddlewaretoken": session.cookies["csrftoken"]},
        headers={"Referer": stack.url("/accounts/login/")},
        timeout=30,
    )
    assert r.status_code == 200 and "sessionid" in session.cookies, r.text[:300]
    return session


def test_forwarded_proto_from_a_local_client_is_not_trusted(servers_up):
    """gunicorn trusts X-Forwarded-Proto from 127.0.0.1 by default, so any local
    client could pass a plain request off as HTTPS; gunicorn.conf.py trusts it
    only with FLEET_BEHIND_PROXY. The calendar links show the scheme Django saw."""
    stack = servers_up
    stack.shell(
        "import json\nfrom django.contrib.auth.models import User\nfrom bookings.feeds import feed_token_rotate\n"
        "feed_token_rotate(user=User.objects.get(username='member'))\nprint(json.dumps(1))"
    )
    session = sign_in(stack, "member", "member-demo-pass")
    page = session.get(stack.url("/bookings/mine/"), headers={"X-Forwarded-Proto": "https"}, timeout=30)
    assert page.status_code == 200
    assert f'value="http://127.0.0.1:{stack.web_port}/feeds/bookings/' in page.text
    assert "https://127.0.0.1" not in page.text
