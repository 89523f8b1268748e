from typing import Any

from django.apps import AppConfig


def roles_after_migrate(sender: Any, using: str = "default", **kwargs: Any) -> None:
    """The three role groups exist after every migrate or flush."""
    from django.contrib.auth.models import Group

    from core.roles import ROLES

    for name in ROLES:
        Group.objects.using(using).get_or_create(name=name)


FORGET_SCHEDULE = "accounts: forget day-old refusal counts"


def schedule_create(**kwargs: Any) -> None:
    """The throttle's daily clean-up, made after migrations (an admin's later edits are kept)."""
    from core.runs import schedule_ensure

    schedule_ensure(name=FORGET_SCHEDULE, task="accounts.forget_refusals", every=1, period="days")


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and roles"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from . import throttle  # noqa: F401 - its settings readers, read at start-up (core.config.read_at_start)

        post_migrate.connect(roles_after_migrate, sender=self, dispatch_uid="accounts-roles")
        post_migrate.connect(schedule_create, sender=self, dispatch_uid="accounts-schedule")
