"""Import preview: a dry run through the same import, rolled back, lists what
applying would create, change and remove; the page takes a pasted document or
a file, asks before prune removes anything, and links what it changed."""

from __future__ import annotations

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile

from core.actor import Actor
from inventory.labio import lab_import
from inventory.models import Cable, Spark
from tests.conftest import db_state, lab_data

pytestmark = pytest.mark.django_db


def _ring_changed() -> dict:
    doc = lab_data("ring4.yaml")
    doc["sparks"] = [s for s in doc["sparks"] if s["name"] != "ring-4"]  # gone from the document
    doc["sparks"][0]["serial"] = "SN-NEW"  # changed
    doc["sparks"].append({"name": "ring-5", "hardware": "dgx-spark-128", "ssh": {"host": "10.20.2.15"}})  # new
    doc["cables"] = doc["cables"][:2]
    return doc


def test_a_dry_run_lists_the_changes_and_changes_nothing(import_lab):
    import_lab("ring4.yaml")
    before = db_state()
    report = lab_import(actor=Actor(source="import"), data=_ring_changed(), prune=True, dry_run=True)
    assert db_state() == before
    assert ("created", "spark", "ring-5") in [o[:3] for o in report.objects]
    assert ("updated", "spark", "ring-1") in [o[:3] for o in report.objects]
    deleted = {(k, n) for a, k, n, _ in report.objects if a == "deleted"}
    assert ("spark", "ring-4") in deleted and sum(1 for k, _ in deleted if k == "cable") == 2
    assert report.as_dict()["confirm_remove"] == 1  # the number applying with prune must repeat
    applied = lab_import(actor=Actor(source="import"), data=_ring_changed(), prune=True, confirm_remove=1)
    assert [o[:3] for o in applied.objects] == [o[:3] for o in report.objects]  # the preview told the truth


def test_paste_preview_then_apply_with_links(admin_client, import_lab):
    import_lab("ring4.yaml")
    before = db_state()
    text = yaml.safe_dump(_ring_changed())
    preview = admin_client.post("/lab/import/", {"text": text, "action": "preview"})
    html = preview.content.decode()
    assert preview.status_code == 200 and db_state() == before
    assert "dry run: nothing changed" in html and "Would create" in html and "ring-5" in html
    assert 'value="apply"' in html and "Removed" not in html  # no prune: nothing would be removed
    applied = admin_client.post("/lab/import/", {"text": text, "action": "apply"})
    html = applied.content.decode()
    assert applied.status_code == 200 and Spark.objects.filter(name="ring-5").exists()
    assert '<a href="/sparks/ring-5/">ring-5</a>' in html and '<a href="/sparks/ring-1/">ring-1</a>' in html


def test_a_tampered_hidden_field_is_said_not_silently_refused(admin_client, import_lab):
    """confirm_remove=abc once answered 400 with nothing on the page to say why."""
    import_lab("ring4.yaml")
    before = db_state()
    text = yaml.safe_dump(_ring_changed())
    refused = admin_client.post("/lab/import/", {"text": text, "confirm_remove": "abc", "action": "apply"})
    html = refused.content.decode()
    assert refused.status_code == 400 and db_state() == before
    assert "Nothing was imported." in html and "<code>confirm_remove</code>: Enter a whole number." in html


def test_prune_asks_before_it_removes(admin_client, import_lab):
    import_lab("ring4.yaml")
    before = db_state()
    text = yaml.safe_dump(_ring_changed())
    upload = SimpleUploadedFile("lab.yaml", text.encode(), content_type="application/yaml")
    preview = admin_client.post("/lab/import/", {"document": upload, "prune": "on", "action": "preview"})
    html = preview.content.decode()
    assert "Removed (with prune)" in html and "ring-4" in html and 'name="confirm_prune"' in html
    assert '<input type="hidden" name="confirm_remove" value="1">' in html  # the one Spark it removes
    assert "ring-5" in html and "sparks:" in html  # the file's text is now in the paste box
    refused = admin_client.post("/lab/import/", {"text": text, "prune": "on", "action": "apply"})
    assert refused.status_code == 400 and "tick the box to confirm" in refused.content.decode()
    assert db_state() == before
    done = admin_client.post(
        "/lab/import/", {"text": text, "prune": "on", "confirm_prune": "on", "confirm_remove": "1", "action": "apply"}
    )
    assert done.status_code == 200 and not Spark.objects.filter(name="ring-4").exists()
    assert Cable.objects.count() == 2


def test_an_empty_form_and_a_bad_document_say_what_is_wrong(admin_client, import_lab):
    import_lab("ring4.yaml")
    before = db_state()
    empty = admin_client.post("/lab/import/", {"text": "  ", "action": "preview"})
    assert empty.status_code == 400 and "Paste a lab document or choose a file" in empty.content.decode()
    bad = admin_client.post(
        "/lab/import/", {"text": "sparks:\n  - {name: Spark 18, hardware: dgx-spark-128}\n", "action": "preview"}
    )
    assert bad.status_code == 400 and "sparks[0]" in bad.content.decode()
    # YAML's flow style opens with "{" as JSON does: read as the API reads it (it was "invalid JSON")
    flow = admin_client.post(
        "/lab/import/",
        {"text": "{sparks: [{name: ring-9, hardware: dgx-spark-128, ssh: {host: 10.0.0.9}}]}", "action": "preview"},
    )
    assert flow.status_code == 200 and "Would create" in flow.content.decode() and "ring-9" in flow.content.decode()
    broken = admin_client.post("/lab/import/", {"text": '{"sparks": [', "action": "preview"})
    assert broken.status_code == 400 and "invalid JSON" in broken.content.decode()  # neither: JSON's reason
    assert db_state() == before


def test_the_api_dry_run(api_admin, import_lab):
    import_lab("ring4.yaml")
    before = db_state()
    r = api_admin.post(
        "/api/import?dry_run=true&prune=true", yaml.safe_dump(_ring_changed()), content_type="application/yaml"
    )
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["dry_run"] is True and body["message"] == "would change the inventory"
    assert {"action": "created", "kind": "spark", "name": "ring-5"} in body["objects"]
    assert db_state() == before
