"""Pages answer a FleetError their view lets out in one way
(core.middleware.FleetErrorPages): a getter's NotFound is the 404 page,
bad input its own status with the message, and the API keeps its JSON."""

import pytest

pytestmark = pytest.mark.django_db


def test_a_getters_miss_is_the_404_page_on_every_app(admin_client, import_lab):
    import_lab("demo.yaml")
    for url in (
        "/sparks/nope/",
        "/sparks/nope/telemetry/",
        "/bookings/999999/",
        "/fabric/runs/999999/",
        "/plans/saved/999999/",
        "/groups/999999/",
        "/benchmarks/groups/999999/",
        "/sparks/nope/edit/",
    ):
        response = admin_client.get(url)
        assert response.status_code == 404, url
        assert "Not found" in response.content.decode(), url


def test_bad_input_on_a_page_is_its_status_and_its_message(admin_client, api_admin, import_lab):
    import_lab("demo.yaml")
    page = admin_client.get("/sparks/spark-17/netplan.yaml")
    assert page.status_code == 400
    assert "spark-17 has no cabled ConnectX-7 port" in page.content.decode()
    api = api_admin.get("/api/sparks/spark-17/netplan")
    assert api.status_code == 400 and api.json()["errors"] == [
        {"path": "name", "message": "spark-17 has no cabled ConnectX-7 port: it needs no cluster network file"}
    ]
