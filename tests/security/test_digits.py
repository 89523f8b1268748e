"""Numbers typed in a query, a form or a feed address are ASCII digits or
they are refused: ``str.isdigit`` says yes to "²" and "٣", and ``int("²")``
raised, so each of these requests was a 500 (an anonymous one for the
calendar feed). Each now gets its page's own answer."""

from __future__ import annotations

import pytest
from django.test import Client

from core.validation import whole_number
from serving.models import Serving
from telemetry.software import parse_nccl

SUPER_TWO, ARABIC_THREE = "\u00b2", "\u0663"


@pytest.mark.parametrize(
    ("text", "number"),
    [("0", 0), ("42", 42), ("9" * 18, int("9" * 18)), (SUPER_TWO, None), (ARABIC_THREE, None), ("-1", None),
     ("", None), (" 4", None), ("4.0", None), ("9" * 19, None)],
)  # fmt: skip
def test_a_whole_number_is_ascii_digits_alone(text, number):
    assert whole_number(text) == number


@pytest.fixture
def admin(admin_user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(admin_user)
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("odd", [SUPER_TWO, ARABIC_THREE])
def test_odd_digits_in_queries_get_the_pages_own_answer(admin, odd):
    assert admin.get(f"/plans/launch/?plan={odd}").status_code == 200
    plans = admin.get(f"/plans/?group={odd}&model=llama-3.1-8b")
    assert plans.status_code == 200
    assert f"Select a valid choice. {odd} is not one of the available choices." in plans.content.decode()
    board = admin.get(f"/benchmarks/?concurrency={odd}")
    assert board.status_code == 400
    assert f"no finished run at concurrency &#x27;{odd}&#x27;" in board.content.decode()
    check = admin.post("/bookings/check/", {"group": odd})
    assert check.status_code == 200 and f"no group &#x27;{odd}&#x27;" in check.content.decode()
    served = admin.post("/serving/start/", {"group": "1", "model": "llama-3.1-8b", "concurrency": odd})
    assert served.status_code == 302 and served["Location"] == "/plans/"
    assert not Serving.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("odd", [SUPER_TWO, ARABIC_THREE])
def test_a_feed_address_with_odd_digits_is_not_found(odd):
    assert Client(raise_request_exception=False).get(f"/feeds/bookings/{odd}-abc/mine.ics").status_code == 404


def test_an_nccl_header_with_odd_digits_reads_as_no_version():
    version, _, _, _ = parse_nccl(f"#define NCCL_MAJOR {SUPER_TWO}\n#define NCCL_MINOR 28\n#define NCCL_PATCH 9\n")
    assert version is None
    version, _, _, _ = parse_nccl("#define NCCL_MAJOR 2\n#define NCCL_MINOR 28\n#define NCCL_PATCH 9\n")
    assert version == "2.28.9"


@pytest.mark.django_db
@pytest.mark.parametrize(("declared", "status"), [(SUPER_TWO, 400), ("12x", 400), ("99999999999", 413)])
def test_a_content_length_that_is_not_a_number_of_bytes_is_refused(api_admin, declared, status):
    response = api_admin.post("/api/sparks", {}, CONTENT_LENGTH=declared)
    assert response.status_code == status
    said = response.json()["errors"][0]
    if status == 400:
        assert said == {"path": "body", "message": f"Content-Length {declared!r} is not a number of bytes"}
    else:
        assert said["message"].startswith("the body is 99,999,999,999 bytes; the limit is ")
