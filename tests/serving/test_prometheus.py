"""/metrics/serving-targets, the list Prometheus's http_sd_configs reads: every
engine and router metrics port of the models served now, with their labels;
guarded by the metrics token like /metrics. (A real Prometheus reads it in
tests/deploy/test_live_alerts.py.)"""

from __future__ import annotations

import pytest
from django.test import Client

from inventory.models import Spark
from serving.models import Serving
from tests.serving.test_api import ONE_NODE, TWO_COPIES, serve

pytestmark = pytest.mark.django_db
URL = "/metrics/serving-targets"
TOKEN = "sfm_targets-0123456789abcdef0123"


def listed(client: Client | None = None, **headers: str) -> list[dict[str, object]]:
    response = (client or Client()).get(URL, **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    return response.json()


def test_the_engines_and_router_of_what_serves_now_with_their_labels(api_member, booked_pair, settings):
    settings.FLEET_SERVE_PORT = 9300
    assert listed() == []
    copies = serve(api_member, booked_pair, TWO_COPIES)
    assert copies.status_code == 202, copies.json()
    serving_id = copies.json()["id"]
    assert listed() == []  # starting: nothing answers yet
    Serving.objects.filter(pk=serving_id).update(status=Serving.Status.SERVING)
    labels = {
        "serving": str(serving_id),
        "model": "llama-3.1-8b",
        "quantization": "bf16",
        "group": booked_pair.name,
        "plan": "2 one-node copies",
    }
    # each copy's engine on its own Spark; the router's metrics port (not its API port) on the first
    assert listed() == [
        {"targets": ["10.20.1.11:9300"], "labels": {**labels, "node": "pair-a", "kind": "engine"}},
        {"targets": ["10.20.1.12:9300"], "labels": {**labels, "node": "pair-b", "kind": "engine"}},
        {"targets": ["10.20.1.11:9302"], "labels": {**labels, "node": "pair-a", "kind": "router"}},
    ]
    # stopped (its addresses handed back): gone from the list
    Serving.objects.filter(pk=serving_id).update(status=Serving.Status.STOPPED)
    assert listed() == []


def test_an_ipv6_host_is_written_in_brackets(api_member, booked_pair, settings):
    settings.FLEET_SERVE_PORT = 9400
    Spark.objects.filter(name="pair-a").update(ssh_host="fd00:20::11")
    response = serve(api_member, booked_pair, ONE_NODE)
    assert response.status_code == 202, response.json()
    Serving.objects.filter(pk=response.json()["id"]).update(status=Serving.Status.SERVING)
    assert [t["targets"] for t in listed()] == [["[fd00:20::11]:9400"]]


def test_the_metrics_token_guards_the_list_as_it_guards_metrics(settings):
    settings.FLEET_METRICS_TOKEN = TOKEN
    client = Client()
    for headers in ({}, {"HTTP_AUTHORIZATION": f"Bearer {TOKEN}x"}, {"HTTP_AUTHORIZATION": TOKEN}):
        refused = client.get(URL, **headers)
        assert refused.status_code == 401
        assert refused["WWW-Authenticate"] == 'Bearer realm="metrics"'
        assert refused.content == b"send Authorization: Bearer <FLEET_METRICS_TOKEN>\n"
    assert listed(client, HTTP_AUTHORIZATION=f"Bearer {TOKEN}") == []
    assert client.post(URL, HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 405


def test_an_unreadable_token_file_refuses_every_request(settings, tmp_path):
    settings.FLEET_METRICS_TOKEN = ""
    settings.FLEET_METRICS_TOKEN_FILE = str(tmp_path / "missing")
    refused = Client().get(URL)
    assert refused.status_code == 503
    assert refused.content.startswith(b"FLEET_METRICS_TOKEN_FILE cannot be read (No such file or directory)")
