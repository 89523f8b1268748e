"""Hears telemetry's alert changes and queues the fan-out after the poll's transaction commits.

Publishing one small message per poll chunk with changes is all a poll pays;
a broker hiccup is logged and never fails the poll (its results are stored).
"""

from __future__ import annotations

import logging

from django.db import transaction

log = logging.getLogger(__name__)


def on_alerts_changed(opened: list[int], closed: list[int]) -> None:
    if not opened and not closed:
        return

    def publish() -> None:
        from notifications.tasks import alerts_changed

        try:
            alerts_changed.delay(list(opened), list(closed))
        except Exception:  # the broker is down: alerts stay on the dashboard
            log.exception("could not queue notifications for %d opened, %d closed alerts", len(opened), len(closed))

    transaction.on_commit(publish)


def connect() -> None:
    from telemetry.services import ALERTS_CHANGED

    ALERTS_CHANGED.add(on_alerts_changed)
