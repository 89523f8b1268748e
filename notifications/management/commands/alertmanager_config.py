"""Write Alertmanager's configuration from the app's receivers (notifications.alertmanager).

python manage.py alertmanager_config --output /etc/alertmanager/alertmanager.yml
python manage.py alertmanager_config            # prints it
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

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
        parser.add_argument(
            "--mode",
            help="the file's permissions in octal (e.g. 640); default: those of the file it replaces, else 640 when "
            "it holds a password or a token (give Alertmanager's group the file) and 644 when it holds none",
        )

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
        if path.is_dir():
            raise CommandError(f"{path} is a folder: give the file to write, e.g. {path / 'alertmanager.yml'}")
        if not path.parent.is_dir():
            raise CommandError(f"{path.parent} is not a folder")
        secret = bool(mail.password) or any(h.secret for h in hooks)
        mode = _mode(options.get("mode"), path, secret)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".alertmanager-")
        try:
            with os.fdopen(fd, "w") as handle:
                handle.write(text)
            os.chmod(tmp, mode)  # mkstemp's 600 until here: the secrets are never readable by others meanwhile
            if path.exists():  # keep the group Alertmanager reads it through, where this user may
                with contextlib.suppress(PermissionError):
                    os.chown(tmp, -1, path.stat().st_gid)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        receivers = [r["name"] for r in document["receivers"] if r["name"] != "nobody"]
        said = ", ".join(receivers) if receivers else "none: set FLEET_ALERT_WEBHOOKS or FLEET_MONITORING_EMAIL"
        self.stdout.write(f"Wrote {path} (mode {mode:o}; receivers: {said})")
        if secret and mode & 0o004:
            self.stderr.write(
                f"{path} holds the mail password or a webhook token and everyone on this machine may read it "
                f"(mode {mode:o}): give it Alertmanager's group and --mode 640, unless only Alertmanager sees it"
            )


def _mode(given: str | None, path: Path, secret: bool) -> int:
    """The file's permissions: given (octal), else the replaced file's, else 640 with a secret, 644 without."""
    if given:
        try:
            mode = int(given, 8)
        except ValueError:
            mode = -1
        if not 0 <= mode <= 0o777:
            raise CommandError(f"--mode {given!r}: permissions in octal, e.g. 640")
        return mode
    if path.exists():
        return path.stat().st_mode & 0o777
    return 0o640 if secret else 0o644
