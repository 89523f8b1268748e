"""The topology engine: which Sparks form a cluster, how, and how well.

It owns the reading of cabling (nodes, switches, cables) into groups: each
group's kind (single, direct, ring, chain, switched, irregular), its links at
their real speed, its memory figures (local, pooled, symmetric, bandwidth:
never merged), its expected collective bandwidth and its findings. Plain
frozen dataclasses in and out, no Django import: the inventory app builds a
``LabIn`` from the database and renders the ``Group`` list.

Figures follow docs/hardware.md (with their public sources).
"""

from .data import (
    MEMORY_BANDWIDTH_GBS,
    NO_CONNECTX_GBPS,
    NODE_PORT_GBPS,
    CableIn,
    EndIn,
    Finding,
    Group,
    Kind,
    LabIn,
    Link,
    Memory,
    NodeIn,
    Severity,
    SwitchIn,
    SwitchPortIn,
)
from .engine import analyse
from .findings import FINDING_CATALOGUES, finding_catalogue, finding_description
from .shape import RING_LIMIT, link_speed_class

__all__ = [
    "FINDING_CATALOGUES",
    "MEMORY_BANDWIDTH_GBS",
    "NODE_PORT_GBPS",
    "NO_CONNECTX_GBPS",
    "RING_LIMIT",
    "CableIn",
    "EndIn",
    "Finding",
    "Group",
    "Kind",
    "LabIn",
    "Link",
    "Memory",
    "NodeIn",
    "Severity",
    "SwitchIn",
    "SwitchPortIn",
    "analyse",
    "link_speed_class",
    "finding_catalogue",
    "finding_description",
]
