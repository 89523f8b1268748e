"""Signals telemetry sends for other apps (it imports none of them)."""

from django.dispatch import Signal

# Sent inside the storing transaction with the ids of alerts just opened and
# just closed (``opened=[...]``, ``closed=[...]``); receivers act on commit.
alerts_changed = Signal()
