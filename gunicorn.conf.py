"""gunicorn's settings for Spark Fleet, read from the working directory
(gunicorn loads ./gunicorn.conf.py by itself): ``gunicorn fleet.wsgi``.

- Proxy headers (X-Forwarded-Proto and friends, which set the request's
  scheme) are trusted only with FLEET_BEHIND_PROXY=true, from the addresses in
  FORWARDED_ALLOW_IPS (default: any, as Django then trusts the header too).
  Without it nobody is trusted: gunicorn's own default trusts 127.0.0.1, so any
  local client could make a plain-HTTP request look like HTTPS.
- A request line may be up to 8190 bytes (gunicorn's largest; its default is
  4094): every query the API schema allows fits, percent-encoded
  (tests/faults/test_limits.py).
"""

import os

_behind_proxy = os.environ.get("FLEET_BEHIND_PROXY", "").strip().lower() in {"1", "true", "yes", "on"}
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "*") if _behind_proxy else ""
limit_request_line = 8190
limit_request_field_size = 8190
bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", "3"))
# A worker stuck longer than this (a database that stopped answering) is replaced.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
accesslog = "-"
