"""The Spark Fleet Django project: settings, URLs, the Celery app and the API root."""

from .celery import app as celery_app

__all__ = ["celery_app"]
