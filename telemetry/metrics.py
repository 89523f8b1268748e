"""Prometheus text exposition (format 0.0.4) of the stored telemetry at /metrics.

Open for scraping unless ``FLEET_METRICS_TOKEN`` is set; then it needs
``Authorization: Bearer <token>``. Reads stored state only (never SSH), a
fixed number of queries for any fleet size.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from telemetry import conf, selectors

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def escape(value: str) -> str:
    """A label value: backslash, double quote and newline escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(labels: dict[str, str]) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{k}="{escape(v)}"' for k, v in labels.items()) + "}"


class Exposition:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def family(self, name: str, kind: str, help_text: str, samples: Iterable[tuple[dict[str, str], float]]) -> None:
        self.lines.append(f"# HELP {name} {help_text.replace(chr(92), chr(92) * 2).replace(chr(10), ' ')}")
        self.lines.append(f"# TYPE {name} {kind}")
        for labels, value in samples:
            number = repr(float(value)) if not float(value).is_integer() else str(int(value))
            self.lines.append(f"{name}{_labels(labels)} {number}")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def exposition() -> str:
    tiles = selectors.fleet_tiles()
    out = Exposition()
    polled = [t for t in tiles if t.latest is not None]
    with_memory = [t for t in polled if t.latest and t.latest.mem_total_bytes is not None]
    out.family(
        "fleet_node_up",
        "gauge",
        "1 if the node answered its last poll over SSH, else 0.",
        (({"node": t.name}, 1 if t.latest and t.latest.reachable else 0) for t in polled),
    )
    out.family(
        "fleet_node_health",
        "gauge",
        "Node health: 1 for the node's current status, 0 for the others.",
        (({"node": t.name, "status": s}, 1 if t.status == s else 0) for t in tiles for s in selectors.STATUSES),
    )
    for key, help_text in (
        ("total", "Unified memory of the node (MemTotal), bytes."),
        ("used", "Unified memory in use (MemTotal - MemAvailable), bytes."),
        ("available", "Unified memory available (MemAvailable), bytes."),
    ):
        out.family(
            f"fleet_node_memory_{key}_bytes",
            "gauge",
            help_text,
            (({"node": t.name}, getattr(t.latest, f"mem_{key}_bytes") or 0) for t in with_memory),
        )
    out.family(
        "fleet_node_gpu_utilization_ratio",
        "gauge",
        "GPU utilisation reported by nvidia-smi, 0 to 1.",
        (
            ({"node": t.name}, (t.latest.gpu_util_pct or 0) / 100)
            for t in polled
            if t.latest and t.latest.gpu_util_pct is not None
        ),
    )
    out.family(
        "fleet_node_last_poll_timestamp_seconds",
        "gauge",
        "When the node was last polled, Unix time.",
        (({"node": t.name}, t.latest.at.timestamp()) for t in polled if t.latest),
    )
    twins = [(t.name, tw) for t in polled if t.latest for tw in t.latest.twin_list]
    out.family(
        "fleet_twin_up",
        "gauge",
        "1 if the twin interface is up, else 0.",
        (({"node": n, "port": tw["port"], "twin": tw["name"]}, 1 if tw["up"] else 0) for n, tw in twins),
    )
    out.family(
        "fleet_twin_speed_bits_per_second",
        "gauge",
        "Negotiated speed of an up twin interface, bits/s.",
        (
            ({"node": n, "port": tw["port"], "twin": tw["name"]}, tw["speed_mbps"] * 1_000_000)
            for n, tw in twins
            if tw["up"] and tw["speed_mbps"]
        ),
    )
    out.family(
        "fleet_alerts_open",
        "gauge",
        "Open alerts by code and severity.",
        (({"code": r["code"], "severity": r["severity"]}, r["n"]) for r in selectors.open_alert_counts()),
    )
    return out.text()


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    token = conf.metrics_token()
    if token:
        sent = request.headers.get("Authorization", "")
        if not hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
            response = HttpResponse(
                "send Authorization: Bearer <FLEET_METRICS_TOKEN>\n",
                status=401,
                content_type="text/plain; charset=utf-8",
            )
            response["WWW-Authenticate"] = 'Bearer realm="metrics"'
            return response
    return HttpResponse(exposition(), content_type=CONTENT_TYPE)
