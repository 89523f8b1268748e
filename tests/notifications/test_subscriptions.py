"""The profile page's alert emails: each user manages their own, roles alike;
bad input is refused with the field named and nothing changed."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from core.roles import MEMBER, VIEWER
from inventory.models import NodeGroup
from notifications.models import Subscription
from simfleet.simulator import make_nodes
from tests.conftest import make_user
from tests.telemetry.stored import register

pytestmark = pytest.mark.django_db


def signed_in(user) -> tuple[Client, str]:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    page = client.get("/accounts/profile/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    return client, token


def test_a_viewer_subscribes_to_a_group_and_removes_it():
    register(make_nodes(4, prefix="s-"))
    group = NodeGroup.objects.filter(members__spark__name="s-01", retired_at__isnull=True).get()
    viewer = make_user("viewer1", VIEWER)
    client, token = signed_in(viewer)
    page = client.get("/accounts/profile/").content.decode()
    assert 'id="alert-emails"' in page and f'<option value="{group.pk}">{group.name}' in page

    assert (
        client.post("/notifications/subscriptions/", {"group": group.pk, "min_severity": "critical"}).status_code == 403
    )
    response = client.post(
        "/notifications/subscriptions/",
        {"group": group.pk, "min_severity": "critical", "email": "v@example.org", "csrfmiddlewaretoken": token},
        follow=True,
    )
    assert "Alert emails updated." in response.content.decode()
    sub = Subscription.objects.get(user=viewer)
    assert (sub.group_id, sub.min_severity) == (group.pk, "critical")
    viewer.refresh_from_db()
    assert viewer.email == "v@example.org"
    page = client.get("/accounts/profile/").content.decode()
    assert f"<td>{group.name}</td><td>Critical only</td>" in page

    # Another user cannot remove it.
    other, other_token = signed_in(make_user("member1", MEMBER))
    other.post(f"/notifications/subscriptions/{sub.pk}/delete/", {"csrfmiddlewaretoken": other_token})
    assert Subscription.objects.filter(pk=sub.pk).exists()
    client.post(f"/notifications/subscriptions/{sub.pk}/delete/", {"csrfmiddlewaretoken": token})
    assert not Subscription.objects.filter(pk=sub.pk).exists()


@pytest.mark.parametrize(
    ("form", "error"),
    [
        ({"group": "999999", "min_severity": "warning", "email": "m@example.org"}, "group: no such live group"),
        ({"group": "abc", "min_severity": "warning", "email": "m@example.org"}, "group: choose a group"),
        ({"group": "", "min_severity": "loud", "email": "m@example.org"}, "min_severity: one of info, warning"),
        ({"group": "", "min_severity": "warning", "email": "not-an-address"}, "email: not an email address"),
        ({"group": "", "min_severity": "warning", "email": ""}, "email: add an email address"),
        ({"group": "", "min_severity": "warning", "email": "x" * 300 + "@example.com"}, "email: at most 254"),
    ],
)
def test_bad_input_names_the_field_and_changes_nothing(form, error):
    """The address too: it was saved before the subscription was refused."""
    member = make_user("member1", MEMBER)
    client, token = signed_in(member)
    response = client.post("/notifications/subscriptions/", {**form, "csrfmiddlewaretoken": token}, follow=True)
    assert error in response.content.decode()
    assert not Subscription.objects.exists()
    member.refresh_from_db()
    assert member.email == ""


def test_a_group_typed_in_other_digits_is_refused_and_a_tokens_name_takes_no_control_character():
    """ "٣" (an Arabic-Indic 3) subscribed to group 3, as int() reads it; a token
    named "a\\x01b" was made and listed under that name."""
    register(make_nodes(4, prefix="s-"))
    group = NodeGroup.objects.filter(members__spark__name="s-01", retired_at__isnull=True).get()
    member = make_user("member1", MEMBER)
    client, token = signed_in(member)
    arabic = "".join(chr(0x0660 + int(d)) for d in str(group.pk))
    response = client.post(
        "/notifications/subscriptions/",
        {"group": arabic, "min_severity": "critical", "email": "m@example.org", "csrfmiddlewaretoken": token},
        follow=True,
    )
    assert "group: choose a group from the list" in response.content.decode()
    assert not Subscription.objects.filter(user=member).exists()
    for name in ("a\x01b", "line\u2028break"):
        refused = client.post("/accounts/profile/", {"name": name, "csrfmiddlewaretoken": token})
        assert refused.status_code == 400
        assert "No token made: its name contains" in refused.content.decode()
    assert not member.api_tokens.exists()
    made = client.post("/accounts/profile/", {"name": "laptop", "csrfmiddlewaretoken": token})
    assert made.status_code == 200 and list(member.api_tokens.values_list("name", flat=True)) == ["laptop"]
