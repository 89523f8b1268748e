"""The catalogue of topology findings: stable codes, severities, descriptions.

Codes are part of the product's vocabulary (the UI filters on them, telemetry
rules may add their own through ``register_finding_code``), so a code is never
renamed once shipped.
"""

from __future__ import annotations

from collections.abc import Iterable

from .data import Finding, Severity

# code -> (severity, description)
_CATALOGUE: dict[str, tuple[Severity, str]] = {
    # memory
    "mixed-memory": (
        "warning",
        "64 GB and 128 GB Sparks in one group: symmetric sharding uses only the smallest node's share.",
    ),
    # speed
    "slow-cable": ("warning", "A cable slower than 200 Gb/s caps a Spark link."),
    "slow-switch-port": (
        "warning",
        "A switch port (or breakout leg) slower than 200 Gb/s caps a Spark link.",
    ),
    "uncoded-cable": (
        "warning",
        "A cable not coded for NVIDIA: the NIC may refuse it; use an NVIDIA-coded or re-coded cable.",
    ),
    "duplicate-link": (
        "warning",
        "Two cables between the same two Sparks: the second adds no bandwidth.",
    ),
    # nodes
    "no-connectx": (
        "error",
        "A node without ConnectX-7 (RTX Spark) is cabled into a group; it cannot join a RoCE cluster.",
    ),
    "isolated-node": ("info", "A Spark with no cluster cable: it only runs what fits on one node."),
    "node-loop": ("warning", "A cable runs from a Spark back to itself."),
    # shape
    "open-chain": ("warning", "Sparks cabled in a line: close it into a ring by cabling the two ends."),
    "switch-recommended": (
        "info",
        "A ring or chain of more than four Sparks: a switch gives any-to-any and shorter paths.",
    ),
    "mixed-links": (
        "warning",
        "A group with both Spark-to-Spark cables and switch links (e.g. a ring that also hangs on a switch).",
    ),
    "irregular-cabling": (
        "warning",
        "Sparks cabled as neither a pair, a ring, a chain nor a switched group.",
    ),
    # switches
    "breakout-not-supported": (
        "error",
        "A breakout trunk on a switch port that cannot break out, or on a Spark port.",
    ),
    "switch-without-sparks": ("info", "A switch with no Spark cabled to it."),
    "switch-loop": ("error", "A cable from a switch back to itself."),
    "inter-switch-link": ("warning", "Switches cabled to each other: Spark traffic crosses an extra hop."),
    "node-bridges-switches": (
        "warning",
        "Several switches joined only through Sparks cabled to more than one of them.",
    ),
    # data that does not add up
    "port-conflict": ("error", "One port holds more than one cable."),
    "unknown-device": ("error", "A cable ends on a device that is not in the lab."),
    "unknown-port": ("error", "A cable ends on a port the device does not have."),
    "malformed-cable": ("error", "A cable with the wrong number of ends for its kind."),
    "duplicate-name": ("error", "Two devices share one name."),
}

FINDING_CODES: dict[str, str] = {code: desc for code, (_, desc) in _CATALOGUE.items()}
FINDING_SEVERITY: dict[str, Severity] = {code: sev for code, (sev, _) in _CATALOGUE.items()}


def register_finding_code(code: str, *, severity: Severity, description: str) -> None:
    """Add a code from another rule set (e.g. telemetry health rules).

    Registering the same code twice with the same meaning is harmless (modules
    may be imported more than once in tests); changing a code's meaning is not.
    """
    known = FINDING_SEVERITY.get(code)
    if known is not None and (known, FINDING_CODES[code]) != (severity, description):
        raise ValueError(f"finding code {code!r} is already registered with another meaning")
    FINDING_CODES[code] = description
    FINDING_SEVERITY[code] = severity


def make_finding(code: str, message: str, objects: Iterable[str]) -> Finding:
    # Objects are sorted so the result does not depend on the order of the input.
    return Finding(code, FINDING_SEVERITY[code], message, tuple(sorted(set(objects))))
