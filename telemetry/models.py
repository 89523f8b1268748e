"""Telemetry storage: one row per node poll, five-minute aggregates of old
polls, the latest state and host key of each node, and alerts.

Sized for a large fleet: a poll is one narrow row (numbers in columns, the
twins a reference to the ``TwinSet`` shared by every poll that read the same
ones), ``(spark, at)`` is unique (a retried store
cannot duplicate a poll, and the same index answers "latest per node" and
time ranges of one node), ``at`` alone serves retention. ``NodeState`` keeps
the latest poll per node so the dashboard reads one row per node.
An alert is open while ``ended_at`` is NULL; a partial unique constraint
keeps one open alert per (node, code, objects).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.health import SAMPLED_CHOICES, HealthStatus
from inventory.models import Spark
from telemetry.sample import ComputeProcess, Disk

# Order of the values in a stored twin (see ``twin_pack``): a list per twin
# instead of a dict keeps the JSON about half the size.
# New fields go last: rows stored before them read back without them.
TWIN_FIELDS = ("name", "port", "rdma", "up", "speed_mbps", "mtu", "addresses", "rdma_state", "rdma_rate_gbps")


class TwinSet(models.Model):
    """One distinct list of a Spark's twins as its polls read them, stored once
    and pointed at by every poll that read the same (``NodeSample.twin_set``):
    a Spark's twins (names, ports, RDMA devices, states, speeds, MTUs,
    addresses) almost never change between two polls, and as inline JSON they
    were about two thirds of a sample row.

    The key is content-derived (``telemetry.sample_rows.twin_set_key``: 64 bits
    of BLAKE2b over the JSON text), so storing one again is idempotent and any
    process can name a set without asking the database for an id. ``used_at``
    moves whenever a store points a poll at the set (at least every
    ``sample_rows.TWIN_SET_REFRESH_S``); retention forgets sets unused for
    longer than raw polls are kept, except those of a Spark's latest poll."""

    id = models.BigIntegerField(primary_key=True)
    twins = models.JSONField()  # [[name, port, rdma, up, speed_mbps, mtu, [addresses], rdma_state, rate], ...]
    used_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["used_at"], name="twinset_used_at")]

    def __str__(self) -> str:
        return f"twin set {self.id:016x}"


class NodeSample(models.Model):
    """What one poll of one node returned."""

    # No index of its own: the unique (spark, at) constraint serves every query by node.
    spark = models.ForeignKey(Spark, on_delete=models.CASCADE, related_name="samples", db_index=False)
    at = models.DateTimeField()
    reachable = models.BooleanField()
    error = models.CharField(max_length=500, blank=True)
    duration_ms = models.FloatField(default=0)
    status = models.CharField(max_length=8, choices=SAMPLED_CHOICES, default=HealthStatus.UNKNOWN)
    mem_total_bytes = models.BigIntegerField(null=True)
    mem_available_bytes = models.BigIntegerField(null=True)
    mem_used_bytes = models.BigIntegerField(null=True)
    swap_total_bytes = models.BigIntegerField(null=True)
    swap_free_bytes = models.BigIntegerField(null=True)
    psi_full_avg10 = models.FloatField(null=True)
    gpu_util_pct = models.FloatField(null=True)
    gpu_temp_c = models.FloatField(null=True)
    gpu_power_w = models.FloatField(null=True)
    load1 = models.FloatField(null=True)
    uptime_s = models.FloatField(null=True)
    # the root filesystem (df -P -B1 /): Docker's images and the Hugging Face cache live there
    disk_total_bytes = models.BigIntegerField(null=True)
    disk_free_bytes = models.BigIntegerField(null=True)
    twins_up = models.PositiveSmallIntegerField(null=True)
    # The twins this poll read: a set shared with the polls that read the same (None: not read).
    # No database constraint (the samples are partitioned; a set is never deleted while a
    # kept poll may point at it, see ``TwinSet``) and no index (nothing looks samples up by set).
    twin_set = models.ForeignKey(
        TwinSet, on_delete=models.DO_NOTHING, null=True, blank=True, related_name="+", db_constraint=False,
        db_index=False,
    )  # fmt: skip
    # Polls stored before twin sets (telemetry.0006) keep their twins inline here; new ones leave it NULL.
    twins_inline = models.JSONField(null=True, db_column="twins")
    errors = models.JSONField(default=list)  # the sample's parse errors
    # GPU compute processes: [[pid, used_mib, name, user], ...]; None when the
    # section could not be read (not the same as "no process").
    processes = models.JSONField(null=True)

    class Meta:
        ordering = ["-at"]
        constraints = [models.UniqueConstraint(fields=["spark", "at"], name="sample_unique_per_node_and_time")]
        indexes = [models.Index(fields=["at"], name="sample_at")]

    def __str__(self) -> str:
        return f"{self.spark_id}@{self.at:%Y-%m-%d %H:%M:%S}"

    @property
    def twins(self) -> list[list[Any]] | None:
        """The packed twins (``TWIN_FIELDS`` order) of this poll, from its set or
        inline; None when the poll read none. Readers of many rows select the
        set with them (``select_related("twin_set")``, ``"latest__twin_set"``)."""
        if self.twin_set_id is not None:
            try:
                found = self.twin_set
            except TwinSet.DoesNotExist:
                found = None
            if found is not None:
                return found.twins  # type: ignore[no-any-return]
        return self.twins_inline

    @twins.setter
    def twins(self, value: list[list[Any]] | None) -> None:
        """Twins given directly (a test, an import) are kept inline."""
        self.twin_set = None
        self.twins_inline = value

    @property
    def twin_list(self) -> list[dict[str, Any]]:
        return [dict(zip(TWIN_FIELDS, row, strict=False)) for row in self.twins or ()]

    @property
    def process_list(self) -> list[ComputeProcess]:
        return [ComputeProcess(*row) for row in self.processes or ()]

    @property
    def mem_used_fraction(self) -> float | None:
        if not self.mem_total_bytes or self.mem_used_bytes is None:
            return None
        return self.mem_used_bytes / self.mem_total_bytes

    @property
    def disk_free_fraction(self) -> float | None:
        if self.disk_total_bytes is None or self.disk_free_bytes is None:
            return None
        return Disk(self.disk_total_bytes, self.disk_free_bytes).free_fraction

    @property
    def disk_used_pct(self) -> int | None:
        """The share of the root filesystem not free to a user, in whole percent (the page's bar)."""
        free = self.disk_free_fraction
        return None if free is None else round((1 - free) * 100)


class NodeAggregate(models.Model):
    """Five minutes of one node's polls, once the raw rows are past retention."""

    spark = models.ForeignKey(Spark, on_delete=models.CASCADE, related_name="aggregates")
    bucket = models.DateTimeField()  # start of the five minutes
    samples = models.PositiveIntegerField()
    reachable = models.PositiveIntegerField()  # how many of them reached the node
    mem_total_bytes = models.BigIntegerField(null=True)
    mem_used_avg_bytes = models.BigIntegerField(null=True)
    mem_used_max_bytes = models.BigIntegerField(null=True)
    mem_available_min_bytes = models.BigIntegerField(null=True)
    gpu_util_avg_pct = models.FloatField(null=True)
    gpu_temp_max_c = models.FloatField(null=True)
    gpu_power_avg_w = models.FloatField(null=True)
    load1_avg = models.FloatField(null=True)
    twins_up_min = models.PositiveSmallIntegerField(null=True)
    speed_min_mbps = models.PositiveIntegerField(null=True)  # slowest up twin
    disk_total_bytes = models.BigIntegerField(null=True)  # the root filesystem's size (df /)
    disk_free_min_bytes = models.BigIntegerField(null=True)  # the least free it had in the five minutes

    class Meta:
        ordering = ["-bucket"]
        constraints = [models.UniqueConstraint(fields=["spark", "bucket"], name="aggregate_unique_per_bucket")]
        indexes = [models.Index(fields=["bucket"], name="aggregate_bucket")]

    def __str__(self) -> str:
        return f"{self.spark_id}@{self.bucket:%Y-%m-%d %H:%M}"


class NodeState(models.Model):
    """The latest of one node: health, last poll, and its SSH host key."""

    class KeyStatus(models.TextChoices):
        UNKNOWN = "unknown", "Not accepted yet"
        OK = "ok", "Verified"
        MISMATCH = "mismatch", "Changed: not polled until accepted"

    spark = models.OneToOneField(Spark, on_delete=models.CASCADE, primary_key=True, related_name="telemetry")
    status = models.CharField(max_length=8, choices=SAMPLED_CHOICES, default=HealthStatus.UNKNOWN)
    # No database constraint: on PostgreSQL the samples are partitioned by day
    # (telemetry.partitions), and a foreign key can only point at a partitioned
    # table through its whole key (id, at). Django still sets it null when a
    # sample is deleted; retention never drops a partition holding a latest row.
    # No index either: it changes with every poll, and an indexed column that
    # changes forbids PostgreSQL's heap-only updates (the row rewritten in its
    # page, no index touched; the table leaves room for them, telemetry.0005).
    latest = models.ForeignKey(
        NodeSample,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    last_poll_at = models.DateTimeField(null=True, blank=True)
    last_sample_at = models.DateTimeField(null=True, blank=True)  # last poll that brought a sample
    # The boot its latest poll with an uptime saw (time less uptime): what tells the next poll that it
    # rebooted (its software is read again) without reading the latest sample. Moves only when the node
    # reboots (a poll's own jitter is kept within ``software_store.BOOT_SLACK``).
    boot_at = models.DateTimeField(null=True, blank=True)
    host_key = models.TextField(blank=True, help_text="the accepted OpenSSH public key")
    host_key_accepted_at = models.DateTimeField(null=True, blank=True)
    host_key_accepted_by = models.CharField(max_length=150, blank=True)
    presented_key = models.TextField(blank=True, help_text="the key the node presented, when not the accepted one")
    key_status = models.CharField(max_length=8, choices=KeyStatus.choices, default=KeyStatus.UNKNOWN)

    class Meta:
        ordering = ["spark__name"]
        indexes = [models.Index(fields=["status"], name="nodestate_status")]

    def __str__(self) -> str:
        return f"{self.spark} {self.status}"


class Alert(models.Model):
    """A health code firing for a node (and the objects it is about), from first
    firing (``started_at``) until it stops (``ended_at``)."""

    spark = models.ForeignKey(Spark, on_delete=models.CASCADE, related_name="alerts")
    code = models.CharField(max_length=40)
    severity = models.CharField(max_length=10)
    objects_key = models.CharField(max_length=255)  # sorted objects joined by "|": identity of the alert
    about = models.JSONField(default=list)  # the objects it is about: "node", "node:port", ...

    message = models.TextField()
    started_at = models.DateTimeField()
    last_seen_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    acknowledged_by_name = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["spark", "code", "objects_key"],
                condition=Q(ended_at__isnull=True),
                name="alert_one_open_per_object",
            )
        ]
        indexes = [
            models.Index(fields=["spark", "ended_at"], name="alert_spark_open"),
            models.Index(fields=["ended_at", "started_at"], name="alert_open_started"),
            models.Index(fields=["code", "started_at"], name="alert_code_started"),
        ]

    def __str__(self) -> str:
        return f"{self.code} on {self.objects_key}"

    @property
    def is_open(self) -> bool:
        return self.ended_at is None


class SoftwareState(models.Model):
    """What one Spark runs: its latest software reading (``telemetry.software``)
    and, per quantity, since when it has run its current value."""

    spark = models.OneToOneField(Spark, on_delete=models.CASCADE, primary_key=True, related_name="software")
    reading = models.JSONField()  # SoftwareReading.to_dict()
    read_at = models.DateTimeField()  # the poll that read it
    boot_at = models.DateTimeField(null=True, blank=True)  # the node's boot as that poll saw it (uptime)
    # quantity -> its last known value (a value not read this time, Docker refusing, stays known)
    known = models.JSONField(default=dict)
    since = models.JSONField(default=dict)  # quantity -> ISO time its current value was first read

    class Meta:
        ordering = ["spark__name"]

    def __str__(self) -> str:
        return f"{self.spark_id} software@{self.read_at:%Y-%m-%d %H:%M}"


class SoftwareChange(models.Model):
    """One quantity of one Spark that changed between two readings (kept: the
    history shows changes, never every reading)."""

    spark = models.ForeignKey(Spark, on_delete=models.CASCADE, related_name="software_changes")
    at = models.DateTimeField()
    quantity = models.CharField(max_length=300)  # "driver", "image:nvcr.io/nvidia/vllm:26.05-py3", ...
    before = models.CharField(max_length=300, blank=True)  # "": not known before (its first reading)
    after = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["spark", "at"], name="softwarechange_spark_at")]

    def __str__(self) -> str:
        return f"{self.spark_id} {self.quantity}: {self.before} -> {self.after}"


class SoftwarePin(models.Model):
    """A version the lab expects every Spark to run (optional, set by a lab
    admin): a Spark that differs gets ``software-drift`` even when its group agrees."""

    quantity = models.CharField(max_length=300, unique=True)
    value = models.CharField(max_length=300)
    set_at = models.DateTimeField()
    set_by_name = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ["quantity"]

    def __str__(self) -> str:
        return f"{self.quantity} = {self.value}"
