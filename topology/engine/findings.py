"""The catalogue of topology findings: stable codes, severities, descriptions.

Codes are part of the product's vocabulary (the UI filters on them), so a
code is never renamed once shipped. The apps above add their own codes (the
health rules', fabric verification's, bookings') through
``FINDING_CATALOGUES``, a ``core.hooks.Hook`` of functions that give
{code: (severity, description)}; a code may be given twice only with the
same meaning.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from core.hooks import Hook

from .data import Finding, Severity

FindingCodes = Callable[[], Mapping[str, tuple[Severity, str]]]
FINDING_CATALOGUES: Hook[FindingCodes] = Hook("topology.finding_codes")

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

_merged: tuple[int, dict[str, tuple[Severity, str]]] = (-1, {})


def finding_catalogue() -> dict[str, tuple[Severity, str]]:
    """Every code, code -> (severity, description): the engine's own, then each
    catalogue added to ``FINDING_CATALOGUES`` (read again when the hook changes).
    Raises ValueError when two give one code different meanings."""
    global _merged
    version, merged = _merged
    if version != FINDING_CATALOGUES.version:
        merged = dict(_CATALOGUE)
        for source in FINDING_CATALOGUES:
            for code, meaning in source().items():
                if merged.setdefault(code, meaning) != meaning:
                    raise ValueError(f"finding code {code!r} is given two meanings: {merged[code]} and {meaning}")
        _merged = (FINDING_CATALOGUES.version, merged)
    return merged


def finding_description(code: str) -> str:
    """What a code means, for the pages ("" for a code nobody gives)."""
    return finding_catalogue().get(code, ("info", ""))[1]


def make_finding(code: str, message: str, objects: Iterable[str]) -> Finding:
    # Objects are sorted so the result does not depend on the order of the input.
    severity = _CATALOGUE[code][0] if code in _CATALOGUE else finding_catalogue()[code][0]
    return Finding(code, severity, message, tuple(sorted(set(objects))))
