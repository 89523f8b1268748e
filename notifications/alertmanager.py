"""Alertmanager's configuration, written from the app's own receivers, so one
configuration says where every alert goes: the app's alerts (its webhooks and
subscribers' emails) and Prometheus's rules (deploy/prometheus/alerts.yml)
through Alertmanager.

- Each webhook of ``FLEET_ALERT_WEBHOOKS`` is a receiver: ``json`` ones get
  Alertmanager's webhook body (version 4) with the webhook's secret as a
  bearer token; ``slack`` ones Alertmanager's Slack message.
- ``FLEET_MONITORING_EMAIL`` (addresses) is an email receiver through the
  app's mail server (``EMAIL_HOST``, ``EMAIL_PORT``, ``EMAIL_HOST_USER``,
  ``EMAIL_HOST_PASSWORD``, ``EMAIL_USE_TLS``, ``DEFAULT_FROM_EMAIL``).
- A webhook's ``min_severity`` and ``groups`` route as they do in the app:
  by the alert's ``severity``, and by its ``group`` label or a ``node`` label
  naming a Spark of those groups (as the groups are when this is written:
  ``docker compose up`` writes it again).
- Inhibitions keep one outage to one alert: an unreachable Spark silences its
  other node alerts; a group down whole silences its Sparks' unreachable ones.

Plain data in, plain data out; ``manage.py alertmanager_config`` writes it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from notifications.conf import Webhook

SEVERITY_MATCH = {"info": None, "warning": 'severity=~"warning|critical"', "critical": 'severity="critical"'}
NODE_ALERTS_SILENCED_BY_UNREACHABLE = "|".join(
    (
        "SparkDegraded",
        "SparkNotPolled",
        "SparkMemoryPressure",
        "SparkDiskLow",
        "SparkDiskFillingUp",
        "TwinSlow",
        "SparkLinkDown",
        "ServingEngineDown",
    )
)


@dataclass(frozen=True)
class MailServer:
    host: str
    port: int
    user: str
    password: str
    use_tls: bool
    sender: str


def _alternatives(names: Sequence[str]) -> str:
    return "|".join(re.escape(n) for n in sorted(set(names)))


def _routes(
    receiver: str, min_severity: str, groups: Sequence[str], members: Mapping[str, Sequence[str]]
) -> list[dict[str, Any]]:
    severity = SEVERITY_MATCH.get(min_severity)
    base = [severity] if severity else []
    if not groups:
        return [{"receiver": receiver, "matchers": base, "continue": True}]
    routes = [{"receiver": receiver, "matchers": [*base, f'group=~"{_alternatives(groups)}"'], "continue": True}]
    nodes = [node for group in groups for node in members.get(group, ())]
    if nodes:
        routes.append({"receiver": receiver, "matchers": [*base, f'node=~"{_alternatives(nodes)}"'], "continue": True})
    return routes


def config(
    *,
    webhooks: Sequence[Webhook],
    email_to: Sequence[str],
    mail: MailServer | None,
    members: Mapping[str, Sequence[str]],
    site_url: str,
) -> dict[str, Any]:
    """Alertmanager's configuration as a dict (YAML-ready)."""
    receivers: list[dict[str, Any]] = [{"name": "nobody"}]
    routes: list[dict[str, Any]] = []
    for hook in webhooks:
        name = f"webhook-{hook.name}"
        if hook.format == "slack":
            receivers.append(
                {
                    "name": name,
                    "slack_configs": [
                        {
                            "api_url": hook.url,
                            "send_resolved": True,
                            "title": '{{ if eq .Status "firing" }}{{ .CommonLabels.alertname }}{{ else }}'
                            "Recovered: {{ .CommonLabels.alertname }}{{ end }}",
                            "text": "{{ range .Alerts }}{{ .Annotations.summary }}\n{{ end }}",
                            "title_link": site_url,
                        }
                    ],
                }
            )
        else:
            webhook: dict[str, Any] = {"url": hook.url, "send_resolved": True}
            if hook.secret:
                webhook["http_config"] = {"authorization": {"type": "Bearer", "credentials": hook.secret}}
            receivers.append({"name": name, "webhook_configs": [webhook]})
        routes += _routes(name, hook.min_severity, hook.groups, members)
    if email_to and mail is not None:
        email: dict[str, Any] = {
            "to": ", ".join(email_to),
            "from": mail.sender,
            "smarthost": f"{mail.host}:{mail.port}",
            "require_tls": mail.use_tls,
            "send_resolved": True,
        }
        if mail.user:
            email["auth_username"] = mail.user
            email["auth_password"] = mail.password
        receivers.append({"name": "email", "email_configs": [email]})
        routes.append({"receiver": "email", "matchers": [SEVERITY_MATCH["warning"]], "continue": True})
    return {
        "route": {
            "receiver": "nobody",
            "group_by": ["alertname", "node", "group", "a", "b"],
            "group_wait": "30s",
            "group_interval": "5m",
            "repeat_interval": "4h",
            "routes": routes,
        },
        "receivers": receivers,
        "inhibit_rules": [
            {
                "source_matchers": ['alertname="SparkUnreachable"'],
                "target_matchers": [f'alertname=~"{NODE_ALERTS_SILENCED_BY_UNREACHABLE}"'],
                "equal": ["node"],
            },
            {
                "source_matchers": ['alertname="FleetNotPolling"'],
                "target_matchers": ['alertname="SparkNotPolled"'],
                "equal": [],
            },
            {
                # NCCL on TCP sockets is why such a group's bandwidth is low: one cause, one alert
                "source_matchers": ['alertname="FabricOnTcpSockets"'],
                "target_matchers": ['alertname="FabricBelowExpected"'],
                "equal": ["group"],
            },
        ],
    }
