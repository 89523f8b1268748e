from typing import Any

from django.apps import AppConfig


def roles_after_migrate(sender: Any, using: str = "default", **kwargs: Any) -> None:
    """The three role groups exist after every migrate or flush."""
    from django.contrib.auth.models import Group

    from core.roles import ROLES

    for name in ROLES:
        Group.objects.using(using).get_or_create(name=name)


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and roles"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        post_migrate.connect(roles_after_migrate, sender=self, dispatch_uid="accounts-roles")
