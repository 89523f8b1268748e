"""The ground floor every app stands on: errors, the actor, roles, API
authentication and configuration. It imports no other app of the project."""
from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core"
