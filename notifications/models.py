"""Who wants to hear about alerts, and every message sent (or held back) on their behalf."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

SEVERITIES = ("info", "warning", "critical")  # low to high


class Subscription(models.Model):
    """A user asks for alert emails: for one group (or every Spark) at or above a severity."""

    class Severity(models.TextChoices):
        WARNING = "warning", "Warning and critical"
        CRITICAL = "critical", "Critical only"
        INFO = "info", "Everything (info too)"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="alert_subscriptions")
    group = models.ForeignKey(
        "inventory.NodeGroup", on_delete=models.CASCADE, null=True, blank=True, related_name="+",
        help_text="empty: every Spark",
    )  # fmt: skip
    min_severity = models.CharField(max_length=10, choices=Severity.choices, default=Severity.WARNING)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["user_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "group"], name="subscription_one_per_group"),
            models.UniqueConstraint(
                fields=["user"], condition=Q(group__isnull=True), name="subscription_one_fleetwide"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.group or 'every Spark'} >= {self.min_severity}"


class Delivery(models.Model):
    """One message to one recipient (an email address or a configured webhook),
    kept with its content so a retry sends exactly the same thing."""

    class Channel(models.TextChoices):
        EMAIL = "email", "Email"
        WEBHOOK = "webhook", "Webhook"
        NONE = "none", "Nobody (held back)"

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed"
        QUIET = "quiet", "Held back (quiet period)"

    channel = models.CharField(max_length=8, choices=Channel.choices)
    target = models.CharField(max_length=254, help_text="email address, or the webhook's name (never its URL)")
    event = models.CharField(max_length=16, help_text="opened, closed, or booking")
    alert = models.ForeignKey(
        "telemetry.Alert", on_delete=models.CASCADE, null=True, blank=True, related_name="deliveries"
    )
    subject = models.CharField(max_length=255, blank=True)
    body = models.TextField(blank=True, help_text="email text, or the webhook's JSON")
    state = models.CharField(max_length=8, choices=State.choices, default=State.QUEUED)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["alert", "event"], name="delivery_alert_event")]

    def __str__(self) -> str:
        return f"{self.channel} to {self.target}: {self.event} ({self.state})"
