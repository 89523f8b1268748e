"""Settings, read from the environment (``core.config.env``: blank is unset,
a value that does not read as its type stops start-up naming the variable).

With nothing set the app runs on an embedded default: a SQLite file under
``var/`` and a Celery broker on the filesystem, so a bare machine needs no
server. ``DATABASE_URL`` and ``CELERY_BROKER_URL`` switch to PostgreSQL and
Redis (or RabbitMQ).
"""

from __future__ import annotations

import os
import warnings
from datetime import timedelta
from pathlib import Path
from typing import Any

import dj_database_url
import django_stubs_ext
from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from core.config import as_bool, as_list, env

# Django's generic classes (ModelAdmin[Spark], QuerySet[Spark], ...) subscriptable at run time,
# as the type checker reads them.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("FLEET_VAR_DIR", BASE_DIR / "var"))
if os.environ.get("PYTEST_XDIST_WORKER"):
    # Parallel test workers each get their own folder: database file,
    # filesystem broker, keys. (PostgreSQL test databases get pytest-django's
    # per-worker suffix, test_<name>_gw0.)
    VAR_DIR = VAR_DIR / os.environ["PYTEST_XDIST_WORKER"]
# Importing the settings writes nothing in the app's folder (the image keeps
# it read-only): the var folder is made only when the embedded defaults use it
# (the SQLite file, the filesystem broker), below.


DEBUG = env("DEBUG", False, as_bool)
# The key signs sessions, CSRF tokens and calendar-feed tokens. It comes from
# SECRET_KEY, else from the file SECRET_KEY_FILE names, else from
# FLEET_VAR_DIR/secret_key (which `./run demo` and `./run test` write once with
# a random value). With DEBUG off the app refuses to start on anything else.
DEV_SECRET_KEY = "insecure-dev-key-only-for-the-embedded-default-not-for-production"
SECRET_KEY_MIN_LENGTH = 32


def read_secret_key() -> str:
    value = os.environ.get("SECRET_KEY", "").strip()
    var_dir = Path(os.environ.get("FLEET_VAR_DIR", BASE_DIR / "var"))  # not a test worker's sub-folder
    key_file = os.environ.get("SECRET_KEY_FILE", "").strip() or str(var_dir / "secret_key")
    if not value and Path(key_file).is_file():
        value = Path(key_file).read_text().strip()
    weak = (
        not value
        or value == DEV_SECRET_KEY
        or value.startswith("django-insecure")
        or len(value) < SECRET_KEY_MIN_LENGTH
        or len(set(value)) < 5
    )
    if not weak:
        return value
    if DEBUG:
        return value or DEV_SECRET_KEY
    raise ImproperlyConfigured(
        "SECRET_KEY is missing or too weak, and DEBUG is off. Set a long random value, e.g.\n"
        "    export SECRET_KEY=\"$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')\"\n"
        f"(at least {SECRET_KEY_MIN_LENGTH} characters), or put it in a file named by SECRET_KEY_FILE. "
        "For development on this machine only, DEBUG=true runs with a built-in key."
    )


SECRET_KEY = read_secret_key()
ALLOWED_HOSTS = env("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"], as_list)
CSRF_TRUSTED_ORIGINS: list[str] = env("CSRF_TRUSTED_ORIGINS", [], as_list)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "ninja",
    "django_htmx",
    "template_partials",
    "django_celery_beat",
    "csp",
    "axes",
    "core",
    "accounts",
    "inventory",
    "telemetry",
    "simfleet",
    "topology",
    "placement",
    "benchmarks",
    "fabric",
    "bookings",
    "notifications",
    "design",
    "serving",
]

MIDDLEWARE = [
    "telemetry.metrics.RequestMetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # The edge for every page and API call: no NUL or control character in a path or query.
    "core.middleware.RefuseControlCharacters",
    # A body is read whole (chunked too) or refused with 411/413 before anything reads it.
    "core.middleware.ReadWholeBody",
    # ... and a page form's fields hold no NUL, which PostgreSQL cannot store (400 naming the field).
    "core.middleware.RefuseNulInForms",
    # /api/: a method an address does not take answers in JSON; HEAD is taken where GET is.
    "core.middleware.ApiMethods",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A FleetError a page's view lets out: its own status (404 for a getter's NotFound).
    "core.middleware.FleetErrorPages",
    "fleet.middleware.LoginRequiredMiddleware",
    # Last, as django-axes asks: it turns a locked-out sign-in into its 429 page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "fleet.urls"
WSGI_APPLICATION = "fleet.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context.role",
                "csp.context_processors.nonce",
            ],
            "builtins": ["template_partials.templatetags.partials"],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env("DATABASE_URL", f"sqlite:///{VAR_DIR / 'fleet.sqlite3'}"),
        conn_max_age=env("DB_CONN_MAX_AGE", 0, int),
        # a kept connection is checked before a request reuses it: after a
        # database restart the next request reconnects instead of failing
        conn_health_checks=True,
    )
}
if env("DATABASE_PASSWORD_FILE", ""):
    # The password as a file (docker-compose's secret), so DATABASE_URL carries none.
    DATABASES["default"]["PASSWORD"] = Path(env("DATABASE_PASSWORD_FILE", "").strip()).read_text().strip()
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    if not env("DATABASE_URL", ""):
        VAR_DIR.mkdir(parents=True, exist_ok=True)
    # WAL lets the web process read while a worker writes; IMMEDIATE takes the
    # write lock at BEGIN so two writers queue instead of deadlocking.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # A file (not :memory:) so live-server and race tests share it across
    # threads; one per process so two test runs on one machine never collide.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-{os.getpid()}.sqlite3")}
elif env("FLEET_TEST_DB_SUFFIX", ""):
    # A second test run beside the first (./run test runs the live-server fuzz beside the
    # browser journeys) gets test databases of its own: test_<name>_<suffix>.
    DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}_{env('FLEET_TEST_DB_SUFFIX', '')}"}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    # django-axes first: it refuses a sign-in while its username and address are cooling off.
    "accounts.throttle.ThrottledSignIn",
    "django.contrib.auth.backends.ModelBackend",
    # Personal API tokens (core.api asks authenticate(request, api_token=...)); a
    # wrong token counts as a failed sign-in for the throttling above.
    "accounts.backends.TokenBackend",
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
# HTTPS: FLEET_HTTPS=true (or the older SECURE_COOKIES=true) declares the app is
# reached over HTTPS only: secure cookies, a redirect from http, and HSTS.
FLEET_HTTPS = env("FLEET_HTTPS", False, as_bool) or env("SECURE_COOKIES", False, as_bool)
SESSION_COOKIE_SECURE = FLEET_HTTPS
CSRF_COOKIE_SECURE = FLEET_HTTPS
SECURE_SSL_REDIRECT = FLEET_HTTPS
SECURE_HSTS_SECONDS = env("FLEET_HSTS_SECONDS", 31536000, int) if FLEET_HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = FLEET_HTTPS and env("FLEET_HSTS_SUBDOMAINS", False, as_bool)
SECURE_HSTS_PRELOAD = False
if env("FLEET_BEHIND_PROXY", False, as_bool):
    # A TLS-terminating proxy in front says so in this header.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp): scripts only from this site or with the
# response's nonce; no plugins, no framing, forms post here only. Inline style
# attributes stay allowed (pages and SVG drawings use them; they cannot run code).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, "'unsafe-inline'"],
        "img-src": [SELF, "data:"],
        "font-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    },
}

# Sign-in throttling (django-axes): after FLEET_LOGIN_FAILURE_LIMIT wrong
# passwords for one username from one address, that pair is refused, even with
# the right password, for FLEET_LOGIN_COOLOFF_MINUTES; a sign-in during the
# pause does not move its end. The login page and the admin share it. API and
# calendar-feed tokens are throttled apart (accounts.throttle): a valid token
# is never refused because of someone else's wrong ones.
AXES_ENABLED = env("FLEET_LOGIN_THROTTLE", True, as_bool)
AXES_FAILURE_LIMIT = env("FLEET_LOGIN_FAILURE_LIMIT", 5, int)
AXES_COOLOFF_TIME = timedelta(minutes=env("FLEET_LOGIN_COOLOFF_MINUTES", 15.0, float))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_WHITELIST_CALLABLE = "accounts.throttle.not_a_password"
AXES_LOCKOUT_CALLABLE = "accounts.throttle.lockout_response"
AXES_VERBOSE = False
if env("FLEET_BEHIND_PROXY", False, as_bool):
    # One proxy in front: the client's address is the last one it appended.
    AXES_IPWARE_META_PRECEDENCE_ORDER = ("HTTP_X_FORWARDED_FOR", "REMOTE_ADDR")
    AXES_IPWARE_PROXY_COUNT = 1

LANGUAGE_CODE = "en-us"
TIME_ZONE = env("TIME_ZONE", "UTC")
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"  # collectstatic fills it in the image; never made at import
WHITENOISE_USE_FINDERS = True
# Served from the app's static folders (the finders) whether or not collectstatic ran:
# WhiteNoise's warning about a STATIC_ROOT not collected yet says nothing useful then.
warnings.filterwarnings("ignore", message=r"No directory at: .*staticfiles")
WHITENOISE_ROOT = BASE_DIR / "static" / "root"  # files served at the site root: /favicon.ico

# Celery: the embedded default is a filesystem broker (no server needed).
_broker_dir = VAR_DIR / "broker"
# A host in the default URL, or kombu warns that it has none.
CELERY_BROKER_URL = env("CELERY_BROKER_URL", "filesystem://localhost//")
if CELERY_BROKER_URL.startswith("filesystem://"):
    for sub in ("out", "processed", "control"):
        (_broker_dir / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any] = {
        "data_folder_in": str(_broker_dir / "out"),
        "data_folder_out": str(_broker_dir / "out"),
        "data_folder_processed": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
    }
elif CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # A message taken by a worker that then died (kill -9, a lost machine) is given to another worker
    # once it has been unacknowledged this long: longer than any run (a fabric verification: 630 s,
    # a benchmark: FLEET_BENCH_TIMEOUT_S, 1800 s), or a run still going would be started twice.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env("FLEET_BROKER_VISIBILITY_S", 3600, int)}
CELERY_RESULT_BACKEND = None
# A task is acknowledged when it ends, and given back to the broker when the process running it dies,
# so a killed worker's run is redelivered (fabric.services: the run starts again, at most twice).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env("CELERY_TASK_ALWAYS_EAGER", False, as_bool)
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = "UTC"

# Inventory
FLEET_IMPORT_MAX_BYTES = env("FLEET_IMPORT_MAX_BYTES", 4 * 1024 * 1024, int)
FLEET_OS_RESERVE_GB = env("FLEET_OS_RESERVE_GB", 4.0, float)
# The largest body any request may send: a lab document and the form around it.
DATA_UPLOAD_MAX_MEMORY_SIZE = max(FLEET_IMPORT_MAX_BYTES + 65_536, 2_621_440)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE

# The apps' own settings (FLEET_POLL_INTERVAL_S, FLEET_SSH_KEY, ...) are read
# where they are used, with their one default (telemetry/conf.py and the
# other apps' conf.py, through core.config.setting).

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", "INFO")},
    "loggers": {"asyncssh": {"level": "WARNING"}, "axes": {"level": "WARNING"}},
}
EMAIL_BACKEND = env("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env("EMAIL_HOST", "localhost")
EMAIL_PORT = env("EMAIL_PORT", 25, int)
EMAIL_HOST_USER = env("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env("EMAIL_USE_TLS", False, as_bool)
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", "Spark Fleet <fleet@localhost>")
