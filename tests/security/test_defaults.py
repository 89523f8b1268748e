"""Secure defaults: the app refuses a missing or development SECRET_KEY with
DEBUG off, declares HTTPS with HSTS and a redirect, sends a
Content-Security-Policy, validates passwords, and pauses sign-in after
repeated wrong passwords on the login page and the admin."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import django, os
django.setup()
from django.conf import settings
from django.test import Client
c = Client()
plain = c.get("/accounts/login/")
secure = c.get("/accounts/login/", secure=True)
print("redirect", plain.status_code, plain.get("Location", ""))
print("hsts", secure.get("Strict-Transport-Security", ""))
print("cookie-secure", settings.SESSION_COOKIE_SECURE, settings.CSRF_COOKIE_SECURE)
"""


def run_app(env: dict[str, str], code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Start the app's settings in a fresh process with exactly this environment."""
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in {"SECRET_KEY", "SECRET_KEY_FILE", "DEBUG", "FLEET_HTTPS", "SECURE_COOKIES", "PYTEST_XDIST_WORKER"}
    }
    base.update(DJANGO_SETTINGS_MODULE="fleet.settings", FLEET_VAR_DIR=str(tmp_path), **env)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=base, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    "key",
    [
        None,
        "",
        "insecure-dev-key-only-for-the-embedded-default-not-for-production",
        "django-insecure-abcdefghijklmnopqrstuvwxyz0123456789",
        "short-key",
        "a" * 50,
    ],
)
def test_without_a_real_secret_key_the_app_refuses_to_start(key, tmp_path):
    env = {} if key is None else {"SECRET_KEY": key}
    r = run_app(env, "import django; django.setup(); print('started')", tmp_path)
    assert r.returncode != 0 and "started" not in r.stdout
    assert "SECRET_KEY is missing or too weak, and DEBUG is off" in r.stderr
    assert "export SECRET_KEY=" in r.stderr  # says how to set one


def test_a_real_key_from_the_environment_or_the_var_folder_starts(tmp_path):
    key = "k3y-" + "x7Yq9" * 10
    r = run_app(
        {"SECRET_KEY": key},
        "import django; django.setup(); from django.conf import settings;print(settings.SECRET_KEY)",
        tmp_path,
    )
    assert r.returncode == 0 and r.stdout.strip() == key
    (tmp_path / "secret_key").write_text(key + "-file\n")
    r = run_app(
        {}, "import django; django.setup(); from django.conf import settings; print(settings.SECRET_KEY)", tmp_path
    )
    assert r.returncode == 0 and r.stdout.strip() == key + "-file"


def test_debug_runs_with_the_built_in_key(tmp_path):
    r = run_app({"DEBUG": "true"}, "import django; django.setup(); print('started')", tmp_path)
    assert r.returncode == 0 and "started" in r.stdout


@pytest.mark.parametrize("declare", ["FLEET_HTTPS", "SECURE_COOKIES"])
def test_https_declared_means_hsts_redirect_and_secure_cookies(declare, tmp_path):
    r = run_app({"SECRET_KEY": "k3y-" + "x7Yq9" * 10, declare: "true"}, PROBE, tmp_path)
    assert r.returncode == 0, r.stderr
    out = dict(line.split(" ", 1) for line in r.stdout.strip().splitlines())
    assert out["redirect"] == "301 https://testserver/accounts/login/"
    assert out["hsts"].startswith("max-age=31536000")
    assert out["cookie-secure"] == "True True"


def test_without_https_declared_there_is_no_hsts_and_no_redirect(tmp_path):
    r = run_app({"SECRET_KEY": "k3y-" + "x7Yq9" * 10}, PROBE, tmp_path)
    out = dict(line.split(" ", 1) for line in r.stdout.strip().splitlines())
    assert out["redirect"].startswith("200") and out["hsts"] == "" and out["cookie-secure"] == "False False"


def test_every_page_carries_a_content_security_policy(db):
    r = Client().get("/accounts/login/")
    policy = r["Content-Security-Policy"]
    directives = {d.split()[0]: d.split()[1:] for d in policy.split("; ")}
    assert directives["default-src"] == ["'self'"]
    assert directives["script-src"][0] == "'self'"
    assert all(s == "'self'" or s.startswith("'nonce-") for s in directives["script-src"])
    assert "'unsafe-inline'" not in directives["script-src"] and "'unsafe-eval'" not in directives["script-src"]
    assert directives["object-src"] == ["'none'"] and directives["frame-ancestors"] == ["'none'"]
    assert r["X-Frame-Options"] == "DENY" and r["X-Content-Type-Options"] == "nosniff"
    assert "<script>" not in r.content.decode() and " onclick=" not in r.content.decode()


@pytest.mark.parametrize("password", ["short", "password123", "1234567890123", "admin1-pass"])
def test_weak_passwords_are_refused(password, admin_user):
    with pytest.raises(ValidationError):
        validate_password(password, user=admin_user)
    validate_password("Spark-fleet: four nodes, one ring", user=admin_user)


def _sign_in(client: Client, path: str, username: str, password: str) -> int:
    r = client.post(path, {"username": username, "password": password, "next": "/"})
    return r.status_code


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/?next=/admin/"])
def test_wrong_passwords_pause_sign_in_even_with_the_right_one(path, admin_user, member_user, settings):
    settings.AXES_FAILURE_LIMIT = 5
    c = Client()
    for _ in range(4):
        assert _sign_in(c, path, "admin1", "wrong-password") == 200  # the form again, with its error
    assert "_auth_user_id" not in c.session
    assert _sign_in(c, path, "admin1", "wrong-password") == 429
    r = c.post(path, {"username": "admin1", "password": "admin1-pass-123", "next": "/"})
    assert r.status_code == 429 and "Too many attempts" in r.content.decode()
    assert "_auth_user_id" not in c.session  # the right password is refused during the cool-off
    # Another person signing in from the same address is not paused.
    other = Client()
    assert _sign_in(other, "/accounts/login/", "member1", "member1-pass-123") == 302
    assert other.session["_auth_user_id"] == str(member_user.pk)


def test_after_the_cool_off_the_right_password_works(admin_user, settings):
    settings.AXES_FAILURE_LIMIT = 3
    c = Client()
    for _ in range(3):
        _sign_in(c, "/accounts/login/", "admin1", "wrong-password")
    assert _sign_in(c, "/accounts/login/", "admin1", "admin1-pass-123") == 429
    from axes.models import AccessAttempt

    AccessAttempt.objects.update(attempt_time=AccessAttempt.objects.first().attempt_time - timedelta(hours=1))
    assert _sign_in(c, "/accounts/login/", "admin1", "admin1-pass-123") == 302
    assert c.session["_auth_user_id"] == str(admin_user.pk)


def test_a_few_typos_then_the_right_password_sign_in(admin_user):
    c = Client()
    for _ in range(2):
        _sign_in(c, "/accounts/login/", "admin1", "typo")
    assert _sign_in(c, "/accounts/login/", "admin1", "admin1-pass-123") == 302


def test_the_test_client_login_still_works_without_a_request(admin_user):
    assert Client().login(username="admin1", password="admin1-pass-123")
