"""Personal API tokens. Only a SHA-256 hash is stored; the token is shown once."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=60)
    prefix = models.CharField(max_length=12, help_text="First characters, to recognise a token")
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class Refusal(models.Model):
    """Wrong secrets (API tokens, calendar-feed tokens) presented from one
    address: counted per secret's digest and for the address as a whole
    (``key`` "*"), so the wrong ones can be paused without ever touching a
    valid one (``accounts.throttle``)."""

    kind = models.CharField(max_length=8)  # "token" | "feed"
    address = models.CharField(max_length=45)
    key = models.CharField(max_length=64)  # SHA-256 of the wrong secret, or "*" for the address
    count = models.PositiveIntegerField(default=0)
    window_start = models.DateTimeField()
    paused_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["kind", "address", "key"], name="accounts_refusal_one_row")]

    def __str__(self) -> str:
        return f"{self.kind} refusals from {self.address} ({self.count})"
