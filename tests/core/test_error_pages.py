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


def test_a_refused_write_says_nothing_changed_and_a_refused_read_does_not(rf, admin_user):
    """The one error page: "Not done. Nothing was changed." answers a write
    it refused; a read it could not show (a query naming what is not there)
    changed nothing to begin with, and says "Not shown"."""
    from core.errors import BadInput
    from core.middleware import FleetErrorPages

    pages = FleetErrorPages(lambda request: None)  # type: ignore[arg-type,return-value]
    for method, heading, changed in (("post", "Not done", True), ("get", "Not shown", False)):
        request = getattr(rf, method)("/somewhere/")
        request.user = admin_user
        response = pages.process_exception(request, BadInput("no such level", "level"))
        assert response is not None and response.status_code == 400
        html = response.content.decode()
        assert f"<h1>{heading}</h1><p>no such level</p>" in html
        assert ("Nothing was changed." in html) is changed
