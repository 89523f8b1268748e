"""Hardware inventory: the catalogue, Sparks, switches, their ports, cables
and cable ends, and the change log.

Rules that must hold whatever writes the data live in the database: a port
holds at most one cable end (unique), names are unique, a port belongs to
exactly one device. Everything else is validated by ``inventory.services``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from .hardware_catalogue import ports_text


class CatalogueEntry(models.Model):
    class Kind(models.TextChoices):
        SPARK = "spark", "Spark"
        SWITCH = "switch", "Switch"
        CABLE = "cable", "Cable"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=120)
    vendor = models.CharField(max_length=60, blank=True)
    memory_gb = models.PositiveIntegerField(null=True, blank=True, help_text="Sparks: unified memory")
    has_connectx = models.BooleanField(default=True, help_text="Sparks: has the ConnectX-7 NIC")
    port_count = models.PositiveIntegerField(null=True, blank=True, help_text="Switches: number of ports")
    speed_gbps = models.PositiveIntegerField(
        null=True, blank=True, help_text="Switches: port speed; cables: speed per end or leg"
    )
    breakout = models.BooleanField(
        default=False, help_text="Switches: ports split into 2 x 200G; cables: a breakout cable"
    )
    cage = models.CharField(
        max_length=12,
        blank=True,
        help_text="Switches: the cage of their ports (of the fastest when they differ); "
        "cables: the plug of the first end, a breakout's trunk; empty: unknown",
    )
    # Switches whose ports are not all alike: [count, speed_gbps, cage, breakout]
    # group by group in port order (inventory.hardware_catalogue.PORT_GROUPS).
    port_groups = models.JSONField(
        default=list, blank=True, help_text="Switches with ports of several kinds: [count, speed_gbps, cage, breakout]"
    )
    # What one unit costs the lab, as a lab admin enters it (none shipped: prices
    # vary by vendor, region and date, so no figure without a source).
    price = models.DecimalField(
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        help_text="Price of one unit, as the lab pays it; empty: unknown",
    )
    currency = models.CharField(max_length=3, blank=True, help_text="ISO 4217 code of the price, e.g. EUR, USD")

    class Meta:
        ordering = ["kind", "slug"]
        verbose_name_plural = "catalogue entries"
        constraints = [
            models.CheckConstraint(
                name="catalogue_spark_has_memory",
                condition=~Q(kind="spark") | Q(memory_gb__isnull=False, memory_gb__gt=0),
            ),
            models.CheckConstraint(
                name="catalogue_switch_has_ports",
                condition=~Q(kind="switch") | Q(port_count__gt=0, port_count__lte=256, speed_gbps__gt=0),
            ),
            models.CheckConstraint(name="catalogue_cable_has_speed", condition=~Q(kind="cable") | Q(speed_gbps__gt=0)),
            models.CheckConstraint(
                name="catalogue_price_has_currency",
                condition=Q(price__isnull=True) | (Q(price__gte=0) & ~Q(currency="")),
            ),
        ]

    def __str__(self) -> str:
        return self.slug

    @property
    def ports_text(self) -> str:
        """A switch's ports in words (every kind and cage, in port order)."""
        return ports_text(self.port_count or 0, self.speed_gbps or 0, self.breakout, self.cage, self.port_groups)


class Spark(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        MAINTENANCE = "maintenance", "Maintenance"
        RETIRED = "retired", "Retired"

    name = models.CharField(max_length=63, unique=True)
    hardware = models.ForeignKey(
        CatalogueEntry, on_delete=models.PROTECT, related_name="sparks", limit_choices_to={"kind": "spark"}
    )
    vendor = models.CharField(max_length=60, blank=True)
    serial = models.CharField(max_length=64, blank=True)
    ssh_host = models.CharField(max_length=253)
    ssh_port = models.PositiveIntegerField(default=22)
    ssh_user = models.CharField(max_length=32, default="fleet")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.ACTIVE)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(name="spark_ssh_port_range", condition=Q(ssh_port__gte=1, ssh_port__lte=65535)),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def memory_gb(self) -> int:
        return self.hardware.memory_gb or 0


class Switch(models.Model):
    name = models.CharField(max_length=63, unique=True)
    hardware = models.ForeignKey(
        CatalogueEntry, on_delete=models.PROTECT, related_name="switches", limit_choices_to={"kind": "switch"}
    )
    serial = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "switches"

    def __str__(self) -> str:
        return self.name


class Port(models.Model):
    """A cage on a Spark (``p0``, ``p1``) or a numbered switch port."""

    spark = models.ForeignKey(Spark, on_delete=models.CASCADE, null=True, blank=True, related_name="ports")
    switch = models.ForeignKey(Switch, on_delete=models.CASCADE, null=True, blank=True, related_name="ports")
    name = models.CharField(max_length=8)
    number = models.PositiveIntegerField(default=0, help_text="Sort order; the switch port number")
    speed_gbps = models.PositiveIntegerField()
    breakout = models.BooleanField(default=False)
    cage = models.CharField(max_length=12, blank=True, help_text="The cage's form factor; empty: unknown")

    class Meta:
        ordering = ["spark_id", "switch_id", "number"]
        constraints = [
            models.CheckConstraint(
                name="port_on_exactly_one_device",
                condition=Q(spark__isnull=False, switch__isnull=True) | Q(spark__isnull=True, switch__isnull=False),
            ),
            models.UniqueConstraint(fields=["spark", "name"], name="port_unique_on_spark"),
            models.UniqueConstraint(fields=["switch", "name"], name="port_unique_on_switch"),
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def device_name(self) -> str:
        device = self.spark if self.spark_id else self.switch
        return device.name if device else "?"

    @property
    def label(self) -> str:
        return f"{self.device_name}:{self.name}"


class Twin(models.Model):
    """One of the two Linux interfaces behind a Spark port (one per PCIe link)."""

    port = models.ForeignKey(Port, on_delete=models.CASCADE, related_name="twins")
    name = models.CharField(max_length=32)
    rdma = models.CharField(max_length=32)
    pcie_domain = models.CharField(max_length=4)

    class Meta:
        ordering = ["port_id", "pcie_domain"]
        constraints = [models.UniqueConstraint(fields=["port", "name"], name="twin_unique_per_port")]

    def __str__(self) -> str:
        return self.name


class Cable(models.Model):
    class Coding(models.TextChoices):
        NVIDIA = "nvidia", "NVIDIA / Mellanox coded"
        GENERIC = "generic", "Generic (not coded)"

    type = models.ForeignKey(
        CatalogueEntry, on_delete=models.PROTECT, related_name="cables", limit_choices_to={"kind": "cable"}
    )
    label = models.CharField(max_length=64, blank=True)
    length_m = models.DecimalField(max_digits=5, decimal_places=2, null=True, blank=True)
    coded_for = models.CharField(max_length=8, choices=Coding.choices, default=Coding.NVIDIA)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["label"], condition=~Q(label=""), name="cable_label_unique"),
        ]

    def __str__(self) -> str:
        return self.label or f"cable-{self.pk}"

    @property
    def key(self) -> str:
        """How findings and links name this cable."""
        return self.label or f"cable-{self.pk}"


class CableEnd(models.Model):
    """Where one end of a cable is plugged in. Position 0 is the first end of a
    straight cable or the trunk of a breakout; 1 and 2 are the other end / legs."""

    cable = models.ForeignKey(Cable, on_delete=models.CASCADE, related_name="ends")
    position = models.PositiveSmallIntegerField()
    port = models.OneToOneField(Port, on_delete=models.CASCADE, related_name="cable_end")

    class Meta:
        ordering = ["cable_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["cable", "position"], name="cable_end_position_unique"),
            models.CheckConstraint(name="cable_end_position_range", condition=Q(position__lte=2)),
        ]

    def __str__(self) -> str:
        return f"{self.cable} end {self.position}: {self.port}"


class Change(models.Model):
    """One create, update or delete of an inventory object, with the field diff."""

    class Action(models.TextChoices):
        CREATE = "create", "Created"
        UPDATE = "update", "Updated"
        DELETE = "delete", "Deleted"

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    username = models.CharField(max_length=150, blank=True)
    source = models.CharField(max_length=10)  # page, api, import, admin, command
    action = models.CharField(max_length=6, choices=Action.choices)
    object_type = models.CharField(max_length=20, db_index=True)
    object_id = models.PositiveBigIntegerField(null=True)
    object_name = models.CharField(max_length=120)
    diff = models.JSONField(default=dict)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["object_type", "object_name"])]

    def __str__(self) -> str:
        return f"{self.action} {self.object_type} {self.object_name}"


class NodeGroup(models.Model):
    """A group of Sparks that bookings and placement plans target.

    Auto groups (``auto=True``) mirror one connected component of the cabling
    and are kept in step by ``topology.services.groups_sync``; their id survives
    edits that leave most of their members in place. Sub-groups (``parent``
    set) are named by an admin inside a switched auto group. A group whose
    cabling is gone is retired, never deleted: bookings keep pointing at it.
    """

    class Kind(models.TextChoices):
        SINGLE = "single", "Single"
        DIRECT = "direct", "Direct pair"
        RING = "ring", "Ring"
        CHAIN = "chain", "Chain"
        SWITCHED = "switched", "Switched"
        IRREGULAR = "irregular", "Irregular"

    name = models.CharField(max_length=63)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    parent = models.ForeignKey("self", on_delete=models.PROTECT, null=True, blank=True, related_name="subgroups")
    auto = models.BooleanField(default=True, help_text="Follows a connected component of the cabling")
    retired_at = models.DateTimeField(null=True, blank=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            # Unique among live groups only: a retired group keeps its name for
            # the record while the name becomes free again.
            models.UniqueConstraint(
                fields=["name"], condition=Q(retired_at__isnull=True), name="nodegroup_live_name_unique"
            ),
            models.CheckConstraint(
                name="nodegroup_auto_has_no_parent", condition=Q(auto=False) | Q(parent__isnull=True)
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def live(self) -> bool:
        return self.retired_at is None


class NodeGroupMember(models.Model):
    group = models.ForeignKey(NodeGroup, on_delete=models.CASCADE, related_name="members")
    spark = models.ForeignKey(Spark, on_delete=models.CASCADE, related_name="group_memberships")

    class Meta:
        ordering = ["group_id", "spark_id"]
        constraints = [models.UniqueConstraint(fields=["group", "spark"], name="nodegroup_member_unique")]

    def __str__(self) -> str:
        return f"{self.group_id}:{self.spark_id}"
