"""Container healthchecks (docker-compose.yml's ``healthcheck:``), without Django:

    python -m fleet.healthcheck web     # GET /health/ on this container's port 8000 answers 200
    python -m fleet.healthcheck beat    # beat's scheduler ticked within the last 90 s

Exit 0 when healthy, 1 with one line on stderr saying why not. Workers are
checked with Celery's own ``celery -A fleet inspect ping``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

WEB_URL = "http://127.0.0.1:{port}/health/"
BEAT_MAX_AGE_S = 90.0


def heartbeat_path() -> Path:
    """Where beat's scheduler (``fleet.beat``) touches its heartbeat: FLEET_BEAT_HEARTBEAT,
    else ``spark-fleet-beat.heartbeat`` in the temporary folder."""
    configured = os.environ.get("FLEET_BEAT_HEARTBEAT", "").strip()
    return Path(configured) if configured else Path(tempfile.gettempdir()) / "spark-fleet-beat.heartbeat"


def web(port: int) -> str | None:
    try:
        with urllib.request.urlopen(WEB_URL.format(port=port), timeout=8) as response:  # noqa: S310 - a fixed local URL
            return None if response.status == 200 else f"/health/ answered {response.status}"
    except urllib.error.HTTPError as exc:
        return f"/health/ answered {exc.code}: {exc.read(300).decode(errors='replace')}"
    except OSError as exc:
        return f"/health/ unreachable: {exc}"


def beat(max_age_s: float) -> str | None:
    path = heartbeat_path()
    try:
        age = time.time() - path.stat().st_mtime
    except OSError:
        return f"beat has not ticked yet ({path} missing)"
    return None if age <= max_age_s else f"beat's last tick was {age:.0f} s ago ({path})"


def main(argv: list[str]) -> int:
    what = argv[0] if argv else ""
    if what == "web":
        problem = web(int(os.environ.get("FLEET_HEALTH_PORT", "8000")))
    elif what == "beat":
        problem = beat(float(os.environ.get("FLEET_BEAT_MAX_AGE_S", BEAT_MAX_AGE_S)))
    else:
        print("usage: python -m fleet.healthcheck web|beat", file=sys.stderr)
        return 2
    if problem:
        print(problem, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
