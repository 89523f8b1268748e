"""Served models: one ``Serving`` per plan started on a booked group, one
``ServingNode`` row per Spark it occupies and one ``ServingPort`` per address
it listens on (each instance's engine, and the router of a plan with several
copies).

No Spark ever serves two models at once, and no address is handed out twice:
both are partial unique indexes over the rows that are ``live`` (the engines
may run: starting, serving, stopping), on PostgreSQL and SQLite alike. A row
stops being live once its engines were stopped (or found gone).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q

from bookings.models import Booking
from inventory.models import NodeGroup, Spark
from placement.models import LlmModel, SavedPlan


class Serving(models.Model):
    class Status(models.TextChoices):
        STARTING = "starting", "Starting"
        SERVING = "serving", "Serving"
        FAILED = "failed", "Failed"
        STOPPING = "stopping", "Stopping"
        STOPPED = "stopped", "Stopped"

    model = models.ForeignKey(LlmModel, on_delete=models.PROTECT, related_name="servings")
    quantization = models.CharField(max_length=12, help_text="The variant served")
    group = models.ForeignKey(NodeGroup, on_delete=models.SET_NULL, null=True, blank=True, related_name="servings")
    group_name = models.CharField(max_length=63)
    # The plan: its index among the plans made for these inputs, or a saved plan, and what it was then.
    plan_index = models.PositiveSmallIntegerField(null=True, blank=True)
    saved_plan = models.ForeignKey(SavedPlan, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    plan = models.JSONField(default=dict, blank=True, help_text="The plan served: label, widths, instances, figures")
    launcher = models.CharField(max_length=20)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    owner_name = models.CharField(max_length=150)
    booking = models.ForeignKey(Booking, on_delete=models.SET_NULL, null=True, blank=True, related_name="servings")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.STARTING)
    # What the worker ran, node by node: [{"node", "label", "status", "output"}], written as output arrives.
    steps = models.JSONField(default=list, blank=True)
    failed_step = models.CharField(max_length=120, blank=True)
    error = models.TextField(blank=True)
    url = models.CharField(max_length=200, blank=True, help_text="The one address to call (the router's with copies)")
    endpoints = models.JSONField(default=list, blank=True, help_text="Each instance's own engine: node and URL")
    # The long run (core.runs): the worker that took it, its last sign of life.
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    task_id = models.CharField(max_length=64, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    serving_at = models.DateTimeField(null=True, blank=True)
    stopped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["status", "created_at"], name="serving_status_created"),
            models.Index(fields=["group", "status"], name="serving_group_status"),
        ]

    def __str__(self) -> str:
        return f"serving {self.pk}: {self.model_id} on {self.group_name}"

    @property
    def live(self) -> bool:
        return self.status in LIVE

    @property
    def engine_networks(self) -> dict[str, str]:
        """Which network each rank's NCCL chose, as the engines' own logs said
        once they answered (host -> "IB" or "Socket"; empty: one node, not read
        yet, or a serving from before). Reads whatever the steps hold."""
        found: dict[str, str] = {}
        for step in self.steps if isinstance(self.steps, list) else []:
            networks = step.get("networks") if isinstance(step, dict) else None
            if isinstance(networks, dict):
                found.update({str(h): str(n) for h, n in networks.items() if n in ("IB", "Socket")})
        return found

    @property
    def engines(self) -> list[dict[str, str]]:
        """Each instance's engine (node and URL) while the serving serves; none
        before it serves or once it ended (the addresses are handed back then)."""
        if self.status != Serving.Status.SERVING or not isinstance(self.endpoints, list):
            return []
        kept = [e for e in self.endpoints if isinstance(e, dict)]
        return [{"node": str(e.get("node", "")), "url": str(e.get("url", ""))} for e in kept]

    @property
    def step_rows(self) -> list[dict[str, Any]]:
        """The steps as the page and the API show them, whatever is stored:
        node, label, status, output, the image an image step readies, and its
        download so far as ``[layers ready, layers]`` (None when not counted);
        the repository a weights step downloads, and its bytes on disk so far
        beside about how many the plan's weights are (``weights_bytes``)."""
        rows = []
        for step in self.steps if isinstance(self.steps, list) else []:
            if not isinstance(step, dict):
                continue
            layers = step.get("layers")
            if not (
                isinstance(layers, list)
                and len(layers) == 2
                and all(type(v) is int and v >= 0 for v in layers)
                and layers[0] <= layers[1]
            ):
                layers = None
            rows.append(
                {
                    "node": str(step.get("node", "")),
                    "label": str(step.get("label", "")),
                    "status": str(step.get("status", "")),
                    "output": str(step.get("output") or ""),
                    "image": str(step.get("image") or "") or None,
                    "layers": None if layers is None else list(layers),
                    "weights": str(step.get("weights") or "") or None,
                    "weights_bytes": _weights_bytes(step),
                }
            )
        return rows

    @property
    def engine_socket_hosts(self) -> list[str]:
        """The hosts whose engine's NCCL fell back to TCP sockets."""
        return sorted(h for h, n in self.engine_networks.items() if n == "Socket")


def _weights_bytes(step: dict[str, Any]) -> list[int] | None:
    """A weights step's [bytes on disk, about how many expected], once it said (None before, or anything else)."""
    on_disk, expected = step.get("on_disk"), step.get("expected_bytes")
    if type(on_disk) is int and type(expected) is int and on_disk >= 0 and expected > 0:
        return [on_disk, expected]
    return None


LIVE = (Serving.Status.STARTING, Serving.Status.SERVING, Serving.Status.STOPPING)


class ServingNode(models.Model):
    """One Spark a serving occupies, while ``live``: the row the database keeps unique."""

    serving = models.ForeignKey(Serving, on_delete=models.CASCADE, related_name="nodes")
    spark = models.ForeignKey(Spark, on_delete=models.CASCADE, related_name="servings")
    live = models.BooleanField(default=True)

    class Meta:
        ordering = ["serving_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["serving", "spark"], name="serving_node_once"),
            models.UniqueConstraint(fields=["spark"], condition=Q(live=True), name="serving_one_live_per_spark"),
        ]

    def __str__(self) -> str:
        return f"{self.spark_id} in serving {self.serving_id}"


class ServingPort(models.Model):
    """An address a serving listens on (``host`` as the inventory's SSH host of the node)."""

    class Kind(models.TextChoices):
        ENGINE = "engine", "Engine"
        ROUTER = "router", "Router"
        METRICS = "metrics", "Router's Prometheus metrics"

    serving = models.ForeignKey(Serving, on_delete=models.CASCADE, related_name="ports")
    spark = models.ForeignKey(Spark, on_delete=models.CASCADE, related_name="+")
    host = models.CharField(max_length=255)
    port = models.PositiveIntegerField()
    kind = models.CharField(max_length=7, choices=Kind.choices)
    live = models.BooleanField(default=True)

    class Meta:
        ordering = ["serving_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["host", "port"], condition=Q(live=True), name="serving_port_once"),
            models.CheckConstraint(name="serving_port_range", condition=Q(port__gte=1, port__lte=65535)),
        ]

    def __str__(self) -> str:
        return f"{self.host}:{self.port} ({self.kind} of serving {self.serving_id})"


class ServingEvent(models.Model):
    """Who did what to a serving, and through which door (page, api, task)."""

    serving = models.ForeignKey(Serving, on_delete=models.CASCADE, related_name="events")
    at = models.DateTimeField(auto_now_add=True)
    username = models.CharField(max_length=150, blank=True)
    source = models.CharField(max_length=10)
    action = models.CharField(max_length=20)
    detail = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.action} serving {self.serving_id}"
