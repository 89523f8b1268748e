"""A digest of every row the app's API and pages could write, for "nothing
changed" checks after a refused request."""

from __future__ import annotations

import hashlib

from django.apps import apps

# Columns that move on every authenticated request, by design.
VOLATILE_FIELDS = {"last_used_at"}
APPS = ("inventory", "topology", "telemetry", "placement", "bookings", "accounts")


def snapshot() -> str:
    digest = hashlib.sha256()
    for label in APPS:
        try:
            config = apps.get_app_config(label)
        except LookupError:
            continue
        for model in sorted(config.get_models(), key=lambda m: m._meta.label):
            fields = [f.attname for f in model._meta.concrete_fields if f.attname not in VOLATILE_FIELDS]
            for row in model.objects.order_by("pk").values_list(*fields):
                digest.update(repr((model._meta.label, row)).encode())
    return digest.hexdigest()
