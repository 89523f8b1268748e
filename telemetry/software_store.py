"""What each Spark runs, stored: its latest software reading, the changes
between readings (the history keeps changes, never every reading), the
versions a lab pins, and the ``software-drift`` verdicts they imply.

A Spark's software is due (``software_due_at``) when it was never read, about
``FLEET_SOFTWARE_INTERVAL_S`` after its last reading (``period_s``), or when it booted since
(its uptime went back: an update usually ends in a reboot). The drift rule
itself is pure (``telemetry.drift``); ``drift_verdicts`` feeds it the latest
readings, the live auto groups (one per cabled component, so each Spark is in
one) and the pins. ``telemetry.services.software_drift_sync`` stores the
verdicts as alerts, which carry them to the group pages, the Sparks list, the
dashboard, notifications and /metrics like every other finding.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils.dateparse import parse_datetime

from inventory.models import NodeGroup, NodeGroupMember, Spark
from telemetry import drift
from telemetry.health import Verdict
from telemetry.models import SoftwareChange, SoftwarePin, SoftwareState
from telemetry.software import DOCKER_STATES, IMAGE_ABSENT, SoftwareReading, clean_version, is_digest, version_key

# A boot this much later than the one the last reading saw is a reboot (uptime is read to the second).
BOOT_SLACK = timedelta(seconds=90)
SCALARS: tuple[str, ...] = ("dgx_os", "kernel", "driver", "cuda", "connectx_firmware", "nccl")


def boot_of(at: datetime, uptime_s: float | None) -> datetime | None:
    return at - timedelta(seconds=uptime_s) if uptime_s is not None and uptime_s >= 0 else None


def period_s(spark_id: int, interval_s: int) -> float:
    """This Spark's own reading period: between half and one and a half of the
    interval (fixed per Spark, the interval on average), so a fleet whose
    software was first read in one round spreads its readings over the interval
    instead of reading every Spark again in the same round each hour."""
    phase = ((spark_id * 2654435761) % 2**32) / 2**32
    return interval_s * (0.5 + phase)


def software_due_at(
    spark_id: int,
    read_at: datetime,
    boot_at: datetime | None,
    booted: datetime | None,
    *,
    now: datetime,
    interval_s: int,
) -> bool:
    """Read this Spark's software in this poll? On plain values: a Spark that has a reading (its time and
    the boot it saw) and the boot its latest poll saw (``NodeState.boot_at``)."""
    if now - read_at >= timedelta(seconds=period_s(spark_id, interval_s)):
        return True
    return booted is not None and boot_at is not None and booted > boot_at + BOOT_SLACK


def boot_moved(known: datetime | None, seen: datetime | None) -> bool:
    """Whether a poll's boot (``boot_of``) is another boot than the one known: a reboot,
    not the poll's own jitter (uptime is read to the second, the poll takes time)."""
    if seen is None:
        return False
    return known is None or abs(seen - known) > BOOT_SLACK


# ---------------------------------------------------------------- storing


def readings_store(readings: Sequence[tuple[int, datetime, float | None, SoftwareReading]], *, now: datetime) -> bool:
    """Store (spark id, poll time, uptime, reading) of one poll batch; a change
    row per quantity whose value differs from the last reading. True when
    anything changed (a first reading included): the drift must be judged again."""
    if not readings:
        return False
    with transaction.atomic():  # a savepoint inside the poll's store; its own transaction otherwise
        return _readings_store(readings)


def _readings_store(readings: Sequence[tuple[int, datetime, float | None, SoftwareReading]]) -> bool:
    ids = [spark_id for spark_id, *_ in readings]
    states = {s.spark_id: s for s in SoftwareState.objects.select_for_update().filter(spark_id__in=ids)}
    changes: list[SoftwareChange] = []
    new: list[SoftwareState] = []
    updated: list[SoftwareState] = []
    changed = False
    for spark_id, at, uptime_s, reading in readings:
        state = states.get(spark_id)
        read = {q: v for q, v in reading.values().items() if v is not None}
        if state is None:
            new.append(
                SoftwareState(
                    spark_id=spark_id,
                    reading=reading.to_dict(),
                    read_at=at,
                    boot_at=boot_of(at, uptime_s),
                    known=read,
                    since={q: at.isoformat() for q in read},
                )
            )
            changed = True
            continue
        if at < state.read_at:
            continue  # an older poll stored late (a retried chunk)
        known, since = dict(state.known or {}), dict(state.since or {})
        # A quantity not read this time (Docker refused, nvidia-smi failing) stays
        # as last known: unknown is not a change.
        for quantity, value in sorted(read.items()):
            if known.get(quantity) == value:
                continue
            changes.append(
                SoftwareChange(
                    spark_id=spark_id,
                    at=at,
                    quantity=quantity[:300],
                    before=(known.get(quantity) or "")[:300],
                    after=value[:300],
                )
            )
            known[quantity], since[quantity] = value, at.isoformat()
            changed = True
        state.reading, state.read_at, state.boot_at = reading.to_dict(), at, boot_of(at, uptime_s)
        state.known, state.since = known, since
        updated.append(state)
    if new:
        SoftwareState.objects.bulk_create(new, ignore_conflicts=True)
    if updated:
        SoftwareState.objects.bulk_update(updated, ["reading", "read_at", "boot_at", "known", "since"], batch_size=200)
    if changes:
        SoftwareChange.objects.bulk_create(changes, batch_size=500)
    return changed


# ---------------------------------------------------------------- the drift rule's inputs


def pins() -> dict[str, str]:
    return dict(SoftwarePin.objects.values_list("quantity", "value"))


def image_pin(image: str) -> str:
    """The registry digest the lab pins this launch image to, or "" (no pin,
    or a pin from before pins were checked that names no digest: its Sparks
    drift, and serving refuses on that)."""
    value = SoftwarePin.objects.filter(quantity=f"image:{image}").values_list("value", flat=True).first()
    return value if is_digest(value) else ""


def group_members(spark_ids: Collection[int] | None = None) -> dict[str, list[str]]:
    """Live auto group name -> its Sparks (each Spark in at most one); with
    ``spark_ids``, only the groups these Sparks are in."""
    out: dict[str, list[str]] = {}
    live = NodeGroupMember.objects.filter(group__auto=True, group__retired_at__isnull=True)
    if spark_ids is not None:
        live = live.filter(group__in=live.filter(spark_id__in=list(spark_ids)).values("group"))
    rows = live.values_list("group__name", "spark__name")
    for group, name in rows.order_by("group__name", "spark__name"):
        out.setdefault(group, []).append(name)
    return out


def latest_values(names: Collection[str] | None = None) -> dict[str, dict[str, str | None]]:
    """Spark name -> quantity -> value, from every active Spark's latest reading (or these Sparks')."""
    rows = SoftwareState.objects.filter(spark__status=Spark.Status.ACTIVE)
    if names is not None:
        rows = rows.filter(spark__name__in=list(names))
    return {name: dict(known or {}) for name, known in rows.values_list("spark__name", "known")}


def drift_verdicts(
    spark_ids: Collection[int] | None = None, cared: Callable[[str, str | None], bool] | None = None
) -> tuple[dict[str, Verdict], set[str] | None]:
    """(Spark name -> its ``software-drift`` verdict (absent: it agrees), the
    Sparks judged: None for all). With ``spark_ids``, only these Sparks and
    the members of their groups are judged (a group's verdict needs all its
    members): what a poll chunk that brought readings needs, without judging
    the whole fleet once per chunk. ``cared(quantity, value)``: which readings
    and pins count (default: all)."""
    if spark_ids is None:
        groups, judged = group_members(), None
        versions = latest_values()
    else:
        groups = group_members(spark_ids)
        judged = set(Spark.objects.filter(pk__in=list(spark_ids)).values_list("name", flat=True))
        judged |= {name for members in groups.values() for name in members}
        versions = latest_values(judged)
    pinned = pins()
    if cared is not None:
        versions = {name: {q: v for q, v in values.items() if cared(q, v)} for name, values in versions.items()}
        pinned = {q: v for q, v in pinned.items() if cared(q, v)}
    return (drift.spark_verdicts(groups, versions, pinned) if versions else {}), judged


def run_drift(names: Collection[str], *, image: str) -> list[tuple[str, str]]:
    """(Spark, why) for these Sparks whose software differs in a way a run of
    ``image`` on them cares about, in name order: what a serving refuses on.

    The drift rule's own verdicts, from the same latest readings, groups and
    pins as the ``software-drift`` finding, with two readings left out: other
    launch images than ``image`` (the run never starts them), and ``image``
    absent from a Spark (serving pulls it there first, and its image step
    checks that a multi-node instance's nodes then hold one build). A
    different build of ``image`` still counts, as does every other quantity."""
    kept = f"image:{image}"

    def cared(quantity: str, value: str | None) -> bool:
        if not drift.is_digest_like(quantity):
            return True
        return quantity == kept and value != IMAGE_ABSENT

    ids = Spark.objects.filter(name__in=list(names)).values_list("pk", flat=True)
    verdicts, _ = drift_verdicts(list(ids), cared)
    return [(name, verdicts[name].message) for name in sorted(names) if name in verdicts]


# ---------------------------------------------------------------- reads for the pages and the API


@dataclass(frozen=True)
class Cell:
    """One quantity of one Spark on the fleet page."""

    value: str | None
    odd: bool  # differs from its group's target, or from the lab's pin
    target: str | None  # what it should be, when odd


@dataclass(frozen=True)
class SoftwareRow:
    name: str
    group: str
    read_at: datetime | None
    cells: dict[str, Cell]
    notes: tuple[str, ...]
    drift: str  # the verdict's message, "" when it agrees


def _when(text: Any) -> str | None:
    parsed = parse_datetime(text) if isinstance(text, str) else None
    return parsed.isoformat() if parsed is not None else None


def software_out(state: SoftwareState | None) -> dict[str, Any] | None:
    """A Spark's software as the API gives it: each quantity with its value,
    when it was read and since when it runs it; the images with their digests."""
    if state is None:
        return None
    reading = SoftwareReading.from_dict(state.reading)
    read_at = state.read_at.isoformat()
    since = state.since or {}
    out: dict[str, Any] = {
        q: {"value": getattr(reading, q), "read_at": read_at, "since": _when(since.get(q))} for q in SCALARS
    }
    out["nccl"].update(build=reading.nccl_build, release=reading.nccl_release)
    out["dgx_os"]["installed"] = reading.dgx_os_installed
    out["images"] = {
        "docker": reading.docker,
        "read_at": read_at,
        "value": None
        if reading.images is None
        else [
            {
                "ref": i.ref,
                "digest": i.digest,
                "image_id": i.image_id,
                "nccl": i.nccl,
                "launch": i.ref in reading.launch_images,
                "since": _when(since.get(f"image:{i.ref}")),
            }
            for i in reading.images
        ],
        "launch": list(reading.launch_images),
    }
    out["vllm"] = {
        "value": reading.vllm,
        "path": reading.vllm_path,
        "version": reading.vllm_version,
        "python": reading.vllm_python,
        "ray": reading.vllm_ray,
        "read_at": read_at,
    }
    out["notes"] = list(reading.notes)
    return out


def software_by_name(names: Iterable[str]) -> dict[str, dict[str, Any] | None]:
    """Spark name -> ``software_out`` (None: never read), one query for any number."""
    wanted = list(names)
    found = {s.spark.name: s for s in SoftwareState.objects.filter(spark__name__in=wanted).select_related("spark")}
    return {name: software_out(found.get(name)) for name in wanted}


def docker_gap(sw: Mapping[str, Any], image: str) -> str:
    """What a Spark's software (``software_out``) says stands between it and
    running ``image`` under Docker: its Docker state ("absent", "denied",
    "unreachable", "error"), "image" when Docker answered without that image,
    "" when nothing does (or nothing could be told)."""
    docker, value = sw["images"]["docker"], sw["images"]["value"]
    if docker in ("absent", "denied", "unreachable", "error"):
        return str(docker)
    if image and value is not None and all(i["ref"] != image for i in value):
        return "image"
    return ""


def docker_states() -> list[tuple[str, str]]:
    """(Spark, its Docker state as its last software reading found it), for
    the active Sparks that were ever read; one query."""
    rows = SoftwareState.objects.filter(spark__status=Spark.Status.ACTIVE).values_list("spark__name", "reading")
    out = []
    for name, reading in rows:
        state = reading.get("docker") if isinstance(reading, dict) else None
        out.append((name, state if state in DOCKER_STATES else "unread"))
    return sorted(out)


def launch_readiness(names: Iterable[str], *, image: str = "") -> dict[str, list[str]]:
    """What the last software readings of these Sparks say against a launch,
    by what the launch needs: "docker" (a container launch: Docker the fleet
    user may use, and ``image``, which ``docker run`` would first download)
    and "vllm" (a bare-metal launch: ``vllm`` on the fleet user's PATH); one
    sentence per problem naming its Sparks. A note, not a refusal: a reading
    may be older than an install, and a person's own shell may find what the
    fleet user's does not. One query for both."""
    found: dict[tuple[str, str], list[tuple[str, str]]] = {}  # (need, problem in words) -> (Spark, read at)
    readings = software_by_name(sorted(set(names)))
    for name, sw in readings.items():
        if sw is None:
            continue
        at = sw["images"]["read_at"][:16].replace("T", " ")
        gap = docker_gap(sw, image)
        if gap:
            found.setdefault(("docker", DOCKER_WORDS[gap].format(image=image)), []).append((name, at))
        if sw["vllm"]["value"] == "absent":
            found.setdefault(("vllm", "the fleet user's SSH shell found no vllm"), []).append((name, at))
    out: dict[str, list[str]] = {"docker": [], "vllm": []}
    for (need, problem), items in found.items():
        times = sorted({at for _, at in items})
        when = f"at {times[0]} UTC" if len(times) == 1 else f"from {times[0]} to {times[-1]} UTC"
        then = ": the first start downloads it" if problem.endswith("was not pulled") else ""
        then = then or (": install vLLM there, or use the container recipe" if need == "vllm" else "")
        out[need].append(f"{problem} on {drift.names(n for n, _ in items)} (software read {when}){then}")
    # a multi-node launch runs one vLLM, one Ray and one Python on every node (a Ray cluster refuses a
    # node of another Ray or Python): their versions, when they differ
    for key, what in (("version", "the fleet user's vllm"), ("ray", "Ray beside it"), ("python", "their Python")):
        versions: dict[str, list[str]] = {}
        for name, sw in readings.items():
            if sw is not None and sw["vllm"]["value"] == "present" and sw["vllm"].get(key):
                versions.setdefault(sw["vllm"][key], []).append(name)
        if len(versions) > 1:
            each = ", ".join(
                f"{v} on {drift.names(n)}" for v, n in sorted(versions.items(), key=lambda kv: version_key(kv[0]))
            )
            out["vllm"].append(f"{what} is not one version everywhere ({each}): install one on all")
    return out


# docker_gap's answers in words
DOCKER_WORDS = {
    "absent": "Docker was not installed",
    "denied": "the fleet's SSH user could not use Docker",
    "unreachable": "the Docker daemon did not answer",
    "error": "the Docker daemon did not answer",
    "image": "{image} was not pulled",
}


def history(spark: Spark, *, limit: int = 50) -> list[SoftwareChange]:
    return list(SoftwareChange.objects.filter(spark=spark).order_by("-at", "-id")[:limit])


def fleet_rows(group: str = "") -> tuple[list[str], list[SoftwareRow]]:
    """(quantities shown, one row per Spark) for the fleet's software page;
    ``group``: only that group's Sparks."""
    members = group_members()
    group_of = {n: g for g, names in members.items() for n in names}
    states = list(SoftwareState.objects.filter(spark__status=Spark.Status.ACTIVE).select_related("spark"))
    readings = {s.spark.name: SoftwareReading.from_dict(s.reading) for s in states}
    values: dict[str, dict[str, str | None]] = {s.spark.name: dict(s.known or {}) for s in states}
    pinned = pins()
    odd: dict[tuple[str, str], str | None] = {}
    scopes = [list(m) for m in members.values()] + [[n] for n in values if n not in group_of]
    for scope in scopes:
        present = {n: values[n] for n in scope if n in values}
        if present:
            for diff in drift.differences(present, pinned):
                for name in diff.odd_names:
                    odd[(name, diff.quantity)] = diff.target
    verdicts = drift.spark_verdicts(members, values, pinned) if values else {}
    quantities = sorted({q for v in values.values() for q in v}, key=drift.quantity_order)
    rows = []
    all_sparks = sorted(Spark.objects.filter(status=Spark.Status.ACTIVE).values_list("name", flat=True))
    by_name = {s.spark.name: s for s in states}
    for name in all_sparks:
        if group and group_of.get(name) != group:
            continue
        mine = values.get(name, {})
        cells = {q: Cell(mine.get(q), (name, q) in odd, odd.get((name, q))) for q in quantities}
        state = by_name.get(name)
        rows.append(
            SoftwareRow(
                name=name,
                group=group_of.get(name, ""),
                read_at=state.read_at if state else None,
                cells=cells,
                notes=readings[name].notes if name in readings else (),
                drift=verdicts[name].message if name in verdicts else "",
            )
        )
    return quantities, rows


def group_ids() -> list[tuple[int, str]]:
    """(id, name) of the live cabled groups, whose Sparks the software page compares."""
    return list(NodeGroup.objects.filter(auto=True, retired_at__isnull=True).order_by("name").values_list("pk", "name"))


def group_names() -> list[str]:
    return list(
        NodeGroup.objects.filter(auto=True, retired_at__isnull=True).order_by("name").values_list("name", flat=True)
    )


# ---------------------------------------------------------------- pins


def pin_problems(values: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(field, problem) for each pin that is not a quantity and a version."""
    problems: list[tuple[str, str]] = []
    for quantity, value in values.items():
        if quantity not in drift.LABELS and not (quantity.startswith("image:") and len(quantity) > len("image:")):
            problems.append((quantity, f"{quantity!r} is not a software quantity; one of {', '.join(drift.LABELS)}"))
            continue
        if value in (None, ""):
            continue  # an empty value removes the pin
        if quantity.startswith("image:"):
            if not is_digest(value.strip() if isinstance(value, str) else value):
                problems.append((quantity, f"{value!r} is not a registry digest (sha256: and 64 hex digits, as the "
                                           "software page shows a launch image)"))  # fmt: skip
            continue
        if not isinstance(value, str) or clean_version(value) != value.strip():
            problems.append((quantity, f"{value!r} is not a version (letters, digits and . _ + ~ : - only)"))
    return problems
