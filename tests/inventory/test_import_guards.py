"""No import can erase a lab by mistake: an empty or key-less document is
refused, a repeated key is an error at its line, and a prune that would
remove Sparks or switches needs ``confirm_remove`` to repeat the preview's
number, in the API and on the page. Each refusal changes nothing.
(The same through gunicorn with a chunked body: tests/faults/test_imports.py.)"""

from __future__ import annotations

import pytest
import yaml

from inventory.models import Cable, Spark, Switch
from tests.conftest import db_state, lab_data

pytestmark = pytest.mark.django_db


def _post(client, query: str, text: str, content_type: str = "application/yaml"):
    return client.post(f"/api/import{query}", text, content_type=content_type)


@pytest.mark.parametrize("body", ["", "   \n", "{}", "---\n", "null\n"])
def test_an_empty_document_is_refused_even_with_prune(api_admin, import_lab, body):
    import_lab("demo.yaml")
    before = db_state()
    for query in ("?prune=true", "?prune=true&dry_run=true", ""):
        r = _post(api_admin, query, body)
        assert r.status_code == 400, (query, r.content)
        assert r.json()["errors"] == [
            {"path": "", "message": "the document is empty: it must name sparks, switches or cables"}
        ]
    assert db_state() == before


def test_a_document_naming_no_section_is_refused(api_admin, import_lab):
    import_lab("pair.yaml")
    before = db_state()
    r = _post(api_admin, "?prune=true", "spark:\n  - name: pair-a\n")  # a typo for "sparks"
    assert r.status_code == 400
    paths = {e["path"]: e["message"] for e in r.json()["errors"]}
    assert paths[""] == "the document names none of sparks, switches or cables"
    assert paths["spark"].startswith("unknown key")
    assert db_state() == before


def test_a_repeated_key_is_an_error_at_its_line(api_admin, import_lab):
    import_lab("pair.yaml")
    before = db_state()
    text = (pair := yaml.safe_dump(lab_data("pair.yaml"), sort_keys=False)) + "sparks: []\n"
    r = _post(api_admin, "?prune=true&confirm_remove=2", text)
    assert r.status_code == 400
    line = pair.count("\n") + 1
    assert r.json()["errors"] == [
        {"path": f"line {line}, column 1", "message": "the key 'sparks' is repeated (first on line 1)"}
    ]
    inner = _post(api_admin, "", "sparks:\n  - {name: x1, name: x2, hardware: dgx-spark-128, ssh: {host: h}}\n")
    assert inner.status_code == 400 and inner.json()["errors"][0]["path"] == "line 2, column 16"
    as_json = _post(api_admin, "", '{"sparks": [], "sparks": []}', "application/json")
    assert as_json.status_code == 400 and "repeated" in as_json.json()["errors"][0]["message"]
    assert db_state() == before


def test_a_prune_that_removes_sparks_needs_their_number(api_admin, import_lab):
    import_lab("demo.yaml")
    before = db_state()
    doc = yaml.safe_dump(lab_data("pair.yaml"))
    preview = _post(api_admin, "?prune=true&dry_run=true", doc)
    assert preview.status_code == 200
    body = preview.json()
    n = body["deleted"]["spark"] + body["deleted"]["switch"]
    assert n > 10 and body["confirm_remove"] == n
    for query in ("?prune=true", f"?prune=true&confirm_remove={n - 1}", "?prune=true&confirm_remove=0"):
        r = _post(api_admin, query, doc)
        assert r.status_code == 409, (query, r.content)
        err = r.json()["errors"][0]
        assert err["path"] == "confirm_remove" and f"apply with confirm_remove={n}" in err["message"]
        assert db_state() == before
    done = _post(api_admin, f"?prune=true&confirm_remove={n}", doc)
    assert done.status_code == 200 and done.json()["deleted"] == body["deleted"]
    assert sorted(Spark.objects.values_list("name", flat=True)) == ["pair-a", "pair-b"]
    assert Switch.objects.count() == 0 and Cable.objects.count() == 1


def test_a_prune_that_removes_only_cables_needs_no_confirmation(api_admin, import_lab):
    import_lab("pair.yaml")
    doc = lab_data("pair.yaml")
    doc["cables"] = []
    r = _post(api_admin, "?prune=true", yaml.safe_dump(doc))
    assert r.status_code == 200 and r.json()["deleted"] == {"spark": 0, "switch": 0, "cable": 1}
    assert r.json()["confirm_remove"] == 0 and Cable.objects.count() == 0


def test_the_page_refuses_an_apply_whose_preview_removed_fewer(admin_client, import_lab):
    import_lab("ring4.yaml", "pair.yaml")
    before = db_state()
    text = yaml.safe_dump(lab_data("pair.yaml"))  # removes the four ring Sparks
    preview = admin_client.post("/lab/import/", {"text": text, "prune": "on", "action": "preview"})
    assert '<input type="hidden" name="confirm_remove" value="4">' in preview.content.decode()
    stale = admin_client.post(  # the box ticked for a preview that removed one Spark
        "/lab/import/", {"text": text, "prune": "on", "confirm_prune": "on", "confirm_remove": "1", "action": "apply"}
    )
    html = stale.content.decode()
    assert stale.status_code == 400 and "now removes 4 Sparks and switches, not the 1 of the preview" in html
    assert db_state() == before
    done = admin_client.post(
        "/lab/import/", {"text": text, "prune": "on", "confirm_prune": "on", "confirm_remove": "4", "action": "apply"}
    )
    assert done.status_code == 200 and Spark.objects.count() == 2


def test_numbers_are_read_as_yaml_1_2_so_a_serial_keeps_its_text(api_admin):
    """PyYAML reads YAML 1.1, where 0123 is the octal 83, 12_345 is 12345 and a
    port 1:30 is 90 (base 60): once imported silently, and re-importing the same
    file then said "nothing to change". A plain decimal is still a number."""
    text = (
        "sparks:\n"
        "  - {name: s-oct, hardware: dgx-spark-128, ssh: {host: 10.0.0.1}, serial: 0123}\n"
        "  - {name: s-hex, hardware: dgx-spark-128, ssh: {host: 10.0.0.2}, serial: 0x1F}\n"
        "  - {name: s-und, hardware: dgx-spark-128, ssh: {host: 10.0.0.3, port: 2222}, serial: 12_345}\n"
        "  - {name: s-dec, hardware: dgx-spark-128, ssh: {host: 10.0.0.4}, serial: 4096}\n"
    )
    r = _post(api_admin, "", text)
    assert r.status_code == 200, r.content
    assert dict(Spark.objects.values_list("name", "serial")) == {
        "s-oct": "0123",
        "s-hex": "0x1F",
        "s-und": "12_345",
        "s-dec": "4096",
    }
    assert Spark.objects.get(name="s-und").ssh_port == 2222
    assert _post(api_admin, "", text).json()["unchanged"] == 4


def test_a_port_written_in_base_60_is_refused_not_read_as_90(api_admin):
    before = db_state()
    r = _post(api_admin, "", "sparks:\n  - {name: s-60, hardware: dgx-spark-128, ssh: {host: 10.0.0.1, port: 1:30}}\n")
    assert r.status_code == 400
    assert [e["path"] for e in r.json()["errors"]] == ["sparks[0].ssh.port"]
    assert db_state() == before


def test_a_date_stays_text_and_odd_documents_are_refused_not_a_500(api_admin):
    """A serial 2026-01-01 became a date ("datetime.date(2026, 1, 1) is not a valid
    serial"); a 5,000-digit port and a key that is a 300-deep list answered 500."""
    dated = _post(
        api_admin,
        "",
        "sparks:\n  - {name: s-day, hardware: dgx-spark-128, ssh: {host: 10.0.0.1}, serial: 2026-01-01}\n",
    )
    assert dated.status_code == 200, dated.content
    assert Spark.objects.get(name="s-day").serial == "2026-01-01"
    before = db_state()
    digits = "9" * 5000
    for text, content_type in (
        (
            f"sparks:\n  - {{name: s-x, hardware: dgx-spark-128, ssh: {{host: 10.0.0.9, port: {digits}}}}}\n",
            "application/yaml",
        ),
        (
            '{"sparks": [{"name": "s-x", "hardware": "dgx-spark-128", "ssh": {"port": ' + digits + "}}]}",
            "application/json",
        ),
    ):
        r = _post(api_admin, "?dry_run=true", text, content_type)
        assert r.status_code == 400, r.content[:300]
        assert "4300" in r.json()["errors"][0]["message"]
    deep = _post(api_admin, "?dry_run=true", "? " + "[" * 300 + "]" * 300 + "\n: 1\n")
    assert deep.status_code == 400
    assert deep.json()["errors"] == [
        {"path": "line 1, column 3", "message": "a key is plain text (a name), not a list or a mapping"}
    ]
    assert db_state() == before
