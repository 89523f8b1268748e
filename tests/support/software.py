"""Software readings stored as a poll would store them: each Spark's answer
comes from the simulated Spark's own software sections (``software_text``
with its overrides and faults), read by the product's parser and stored by
its store service; no SSH."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime

from django.utils import timezone

from inventory.models import Spark
from simfleet.software_answers import software_text
from telemetry.parsers import split_sections
from telemetry.software import parse_software
from telemetry.software_store import readings_store

Answer = tuple[Mapping[str, str], Collection[str]]  # (software overrides, faults)


def store_software(answers: Mapping[str, Answer], images: Sequence[str] = (), at: datetime | None = None) -> datetime:
    """One software reading per named Spark, asked about ``images``; returns when it was read."""
    at = at or timezone.now()
    ids = dict(Spark.objects.filter(name__in=list(answers)).values_list("name", "pk"))
    readings = [
        (ids[name], at, 3600.0, parse_software(split_sections(software_text(sw, set(faults), list(images)))))
        for name, (sw, faults) in answers.items()
    ]
    readings_store(readings, now=at)
    return at
