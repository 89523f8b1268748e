"""Fabric verification runs: nccl-tests all_gather_perf across a group, its
command, raw output, parsed result, verdict and findings."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from inventory.models import NodeGroup

from .nccl import socket_hosts_of


class FabricRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    group = models.ForeignKey(NodeGroup, on_delete=models.SET_NULL, null=True, related_name="fabric_runs")
    group_name = models.CharField(max_length=63)
    kind = models.CharField(max_length=16)
    link_gbps = models.FloatField()
    # [{"name", "host", "rdma": [...]}]: what the command is rebuilt from at run time
    nodes = models.JSONField(default=list)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    verdict = models.CharField(max_length=8, blank=True)  # ok | degraded | failed, once judged
    command = models.TextField(blank=True)
    output = models.TextField(blank=True)  # raw, bounded by the SSH read limit
    result = models.JSONField(null=True, blank=True)  # fabric.nccl.NcclResult.to_dict()
    avg_busbw = models.FloatField(null=True, blank=True)  # GB/s, measured
    expected_low = models.FloatField(null=True, blank=True)
    expected_high = models.FloatField(null=True, blank=True)
    expected_source = models.CharField(max_length=300, blank=True)
    findings = models.JSONField(default=list, blank=True)  # [{"code", "severity", "message", "fix"}]
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    created_by_name = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The Celery task running it, how many times it was started (a redelivery
    # after its worker died starts it again), and its last sign of life: a
    # running run silent for longer than HEARTBEAT_STALE_S is marked failed.
    task_id = models.CharField(max_length=64, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            # one run per group at a time, whatever starts it
            models.UniqueConstraint(
                fields=["group"], condition=Q(status__in=["queued", "running"]), name="fabric_one_active_run_per_group"
            ),
        ]
        indexes = [
            models.Index(fields=["group", "-created_at"], name="fabric_run_group_latest"),
            # each group's latest measurement (fabric.selectors: the planner's and the pages' measured figure)
            models.Index(
                fields=["group", "-finished_at", "-id"],
                condition=Q(status="done", avg_busbw__isnull=False),
                name="fabric_run_group_measured",
            ),
        ]

    def __str__(self) -> str:
        return f"fabric run {self.pk} on {self.group_name} ({self.status})"

    @property
    def active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def socket_hosts(self) -> tuple[str, ...]:
        """The nodes whose NCCL chose TCP sockets in this run (none for an
        older run that kept no networks, or a malformed result)."""
        return socket_hosts_of(self.result)

    @property
    def sizes_done(self) -> int:
        return len((self.result or {}).get("rows") or [])
