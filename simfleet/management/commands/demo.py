"""Load the demo lab and the demo users (idempotent: safe to run again)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError

from core.actor import Actor
from core.roles import ADMIN, MEMBER, VIEWER, set_role
from inventory.labio import lab_import

DEMO_USERS = [("admin", ADMIN), ("member", MEMBER), ("viewer", VIEWER)]


def shift_ssh_ports(data: dict[str, Any], base: int) -> None:
    """Move every Spark's SSH port so the lowest is base+1, keeping their distances."""
    sparks = [s for s in data.get("sparks") or [] if isinstance(s, dict) and isinstance(s.get("ssh"), dict)]
    ports = [int(s["ssh"]["port"]) for s in sparks if s["ssh"].get("port")]
    if not ports:
        return
    shift = base + 1 - min(ports)
    if base < 1024 or max(ports) + shift > 65535:
        raise CommandError(
            f"--ssh-base-port: ports {base + 1}..{max(ports) + shift} are not all between 1025 and 65535"
        )
    for spark in sparks:
        if spark["ssh"].get("port"):
            spark["ssh"]["port"] = int(spark["ssh"]["port"]) + shift


class Command(BaseCommand):
    help = "Create the demo users and import labs/demo.yaml (for trying the app, never for production)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--lab", default=str(Path(settings.BASE_DIR) / "labs" / "demo.yaml"))
        parser.add_argument(
            "--ssh-base-port",
            type=int,
            default=None,
            help="move the lab's SSH ports so the lowest is base+1 (as `simulate --base-port` does for the fleet)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        admin = None
        for username, role in DEMO_USERS:
            user = User.objects.filter(username=username).first()
            if user is None:
                user = User.objects.create_user(username=username, password=f"{username}-demo-pass")
                self.stdout.write(f"created user {username} ({role})")
            set_role(user, role)
            if role == ADMIN:
                user.is_staff = True
                user.save(update_fields=["is_staff"])
                admin = user
        data = yaml.safe_load(Path(options["lab"]).read_text())
        if options["ssh_base_port"] is not None:
            shift_ssh_ports(data, options["ssh_base_port"])
        report = lab_import(actor=Actor(user=admin, source="command"), data=data)
        created = report.created
        self.stdout.write(
            f"demo lab: {_count(created['spark'], 'Spark')}, {_count(created['switch'], 'switch')}, "
            f"{_count(created['cable'], 'cable')} created; "
            f"{report.unchanged} already there"
        )


def _count(n: int, word: str) -> str:
    """ "1 switch", "2 switches", "17 Sparks"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}{'es' if word.endswith(('sh', 'ch')) else 's'}"
