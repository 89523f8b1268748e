"""Write Alertmanager's configuration from the app's receivers (notifications.alertmanager).

python manage.py alertmanager_config --output /etc/alertmanager/alertmanager.yml
python manage.py alertmanager_config            # prints it
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from inventory.models import NodeGroupMember
from notifications import alertmanager, conf


def _members() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    rows = NodeGroupMember.objects.filter(group__retired_at__isnull=True).values_list("group__name", "spark__name")
    for group, spark in rows:
        out.setdefault(group, []).append(spark)
    return out


class Command(BaseCommand):
    help = "Write Alertmanager's configuration from FLEET_ALERT_WEBHOOKS, FLEET_MONITORING_EMAIL and the mail server."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--output", help="file to write (atomically); default: print it")

    def handle(self, *args: Any, **options: Any) -> None:
        mail = alertmanager.MailServer(
            host=settings.EMAIL_HOST,
            port=int(settings.EMAIL_PORT),
            user=settings.EMAIL_HOST_USER,
            password=settings.EMAIL_HOST_PASSWORD,
            use_tls=bool(settings.EMAIL_USE_TLS),
            sender=settings.DEFAULT_FROM_EMAIL,
        )
        hooks, email_to = conf.webhooks(), conf.monitoring_email()
        document = alertmanager.config(
            webhooks=hooks, email_to=email_to, mail=mail, members=_members(), site_url=conf.site_url()
        )
        text = (
            "# Written by `manage.py alertmanager_config` from the app's receivers: edit those, not this file.\n"
            + yaml.safe_dump(document, sort_keys=False, width=200)
        )
        output = options.get("output")
        if not output:
            self.stdout.write(text)
            return
        path = Path(output)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".alertmanager-")
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)  # Alertmanager runs as its own user
        os.replace(tmp, path)
        receivers = [r["name"] for r in document["receivers"] if r["name"] != "nobody"]
        said = ", ".join(receivers) if receivers else "none: set FLEET_ALERT_WEBHOOKS or FLEET_MONITORING_EMAIL"
        self.stdout.write(f"Wrote {path} (receivers: {said})")
