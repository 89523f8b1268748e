"""Celery tasks of accounts (thin: service calls)."""

from __future__ import annotations

from celery import shared_task

from .throttle import forget_old


# Daily (beat): refusal counts nobody added to for a day are dropped, so the
# throttle's table stays the size of one day's wrong guesses.
@shared_task(name="accounts.forget_refusals", ignore_result=True, expires=3600)
def forget_refusals() -> int:
    return forget_old()
