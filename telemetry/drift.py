"""The ``software-drift`` rule: the Sparks of a group that run other software
than the rest, or than the versions the lab pinned, and how to fix it.

Pure: plain values in, ``Verdict``s out. A multi-node run fails or silently
slows when its nodes disagree (NCCL builds, GPU driver and CUDA, ConnectX-7
firmware, kernel, DGX OS release, the launch image's digest), so within each
group every quantity is compared:

- the target is the lab's pinned version when there is one, else the value
  most of the group's Sparks run; a tie goes to the newest version (a digest
  has no order: a tie of digests names every Spark); a launch image that
  some Sparks do not hold is never the target: the build the others hold is;
- a Spark whose value differs from the target gets ONE verdict naming each
  quantity that differs, the Sparks that run the target and the fix; a value
  that could not be read (no Docker, nvidia-smi failing) is unknown, never
  "different";
- a pinned version applies to every Spark, even one alone or in a group that
  agrees.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from telemetry.health import Verdict
from telemetry.software import IMAGE_ABSENT, is_digest, pull_build, version_key

CODE = "software-drift"

# quantity -> how a sentence names it
LABELS: dict[str, str] = {
    "dgx_os": "DGX OS",
    "kernel": "kernel",
    "driver": "GPU driver",
    "cuda": "CUDA version",
    "connectx_firmware": "ConnectX-7 firmware",
    "nccl": "NCCL",
}
QUANTITIES: tuple[str, ...] = (*LABELS, "image")


def label(quantity: str) -> str:
    if quantity.startswith("image:"):
        return f"image {quantity[len('image:') :]}"
    return LABELS.get(quantity, quantity)


def is_digest_like(quantity: str) -> bool:
    return quantity.startswith("image:")


@dataclass(frozen=True)
class Difference:
    """One quantity on which some Sparks of a group differ from its target."""

    quantity: str
    target: str | None  # None: a tie of unordered values (digests): no Spark is "right"
    pinned: bool  # the target is the lab's pinned version
    holders: tuple[str, ...]  # the Sparks that run the target
    odd: tuple[tuple[str, str], ...]  # (Spark, its value), in name order

    @property
    def odd_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.odd)


def _target(values: Mapping[str, str], quantity: str) -> str | None:
    if is_digest_like(quantity):
        # a build some Spark holds, never "absent": a Spark without the image
        # pulls it, and one that has it is not wrong for that
        values = {name: value for name, value in values.items() if value != IMAGE_ABSENT} or values
    counts = Counter(values.values())
    best = max(counts.values())
    leaders = [value for value, count in counts.items() if count == best]
    if len(leaders) == 1:
        return leaders[0]
    if is_digest_like(quantity):
        return None
    return max(leaders, key=version_key)


def differences(
    members: Mapping[str, Mapping[str, str | None]], pinned: Mapping[str, str] | None = None
) -> list[Difference]:
    """What differs among ``members`` (Spark -> quantity -> value), quantity by quantity.

    ``pinned``: quantity -> the version the lab expects (images as "image:<ref>")."""
    pinned = pinned or {}
    quantities = sorted({q for values in members.values() for q in values} | set(pinned), key=quantity_order)
    out: list[Difference] = []
    for quantity in quantities:
        known = {name: v[quantity] for name, v in sorted(members.items()) if v.get(quantity) is not None}
        if not known:
            continue
        target = pinned.get(quantity)
        is_pinned = target is not None
        if target is None:
            if len(set(known.values())) == 1:
                continue
            target = _target(known, quantity)  # type: ignore[arg-type]
        odd = tuple((name, value) for name, value in known.items() if value != target)
        if odd:
            holders = tuple(name for name, value in known.items() if value == target)
            out.append(Difference(quantity, target, is_pinned, holders, odd))  # type: ignore[arg-type]
    return out


def quantity_order(quantity: str) -> tuple[int, str]:
    base = "image" if quantity.startswith("image:") else quantity
    return (QUANTITIES.index(base) if base in QUANTITIES else len(QUANTITIES), quantity)


# --------------------------------------------------------------------------- words


_NUMBERED = re.compile(r"(.*?)([0-9]+)")


def _runs(ordered: list[str]) -> list[str]:
    """Names in order, each run of three or more consecutive numbers of one
    prefix and width said as one part: spark-07, spark-08, spark-09 -> "spark-07 to spark-09"."""
    parts: list[str] = []
    run: list[str] = []
    last: tuple[str, int, int] | None = None
    for name in ordered:
        match = _NUMBERED.fullmatch(name)
        key = (match[1], int(match[2]), len(match[2])) if match else None
        if run and (key is None or last is None or key[0] != last[0] or key[2] != last[2] or key[1] != last[1] + 1):
            parts += [f"{run[0]} to {run[-1]}"] if len(run) >= 3 else run
            run = []
        if key is None:
            parts.append(name)
        else:
            run.append(name)
        last = key
    parts += [f"{run[0]} to {run[-1]}"] if len(run) >= 3 else run
    return parts


def names(items: Iterable[str], limit: int = 6) -> str:
    """spark-01, spark-02, spark-03 -> "spark-01 to spark-03" (each run of three
    or more consecutive names); else a list, cut after ``limit`` parts."""
    ordered = sorted(dict.fromkeys(items))
    if not ordered:
        return "no Spark"
    parts = _runs(ordered)
    if len(parts) > limit:
        return ", ".join(parts[:limit]) + f" and {len(parts) - limit} more"
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def short(quantity: str, value: str | None) -> str:
    """A value as a sentence shows it (digests shortened)."""
    if value is None:
        return "unknown"
    if value.startswith("sha256:"):
        return value[: len("sha256:") + 12]
    return value


def fix(quantity: str, spark: str, target: str | None, holders: Sequence[str]) -> str:
    """The fix for one Spark and one quantity, in the imperative."""
    where = f", as on {names(holders)}" if holders else ""
    t = short(quantity, target)
    if quantity.startswith("image:"):
        ref = quantity[len("image:") :]
        if target is None:
            return f"pull {ref} again on every node of the group so they run one build"
        if is_digest(target):  # that build, not whatever the tag names today
            return f"run `{pull_build(ref, target)}` on {spark} (digest {t}{where})"
        return f"run `docker pull {ref}` on {spark} (digest {t}{where})"
    if quantity == "dgx_os":
        return (
            f"update {spark} to DGX OS {t} (DGX Dashboard's update, or apt update and full-upgrade, then reboot){where}"
        )
    if quantity == "kernel":
        return f"update {spark}'s kernel to {t} and reboot into it{where}"
    if quantity == "driver":
        return f"update {spark}'s driver to {t}{where}"
    if quantity == "cuda":
        return f"update {spark}'s driver so it reports CUDA {t}{where}"
    if quantity == "connectx_firmware":
        return f"update {spark}'s ConnectX-7 firmware to {t} (fwupdmgr update, then reboot){where}"
    if quantity == "nccl":
        return f"rebuild NCCL on {spark} from the release that gives {t}{where}"
    return f"set {spark}'s {label(quantity)} to {t}{where}"


def spark_verdicts(
    groups: Mapping[str, Sequence[str]],
    versions: Mapping[str, Mapping[str, str | None]],
    pinned: Mapping[str, str] | None = None,
) -> dict[str, Verdict]:
    """Spark -> its ``software-drift`` verdict (absent: it agrees).

    ``groups``: group name -> its Sparks (each Spark in at most one group: the
    cabling's); Sparks with a reading in no group are checked against the pins."""
    pinned = pinned or {}
    per_spark: dict[str, list[tuple[str, Difference]]] = {}
    grouped = {name for members in groups.values() for name in members}
    scopes: list[tuple[str, list[str]]] = [(g, list(m)) for g, m in sorted(groups.items())]
    scopes += [("", [name]) for name in sorted(versions) if name not in grouped]
    for group, members in scopes:
        present = {n: versions[n] for n in members if n in versions}
        if not present:
            continue
        for diff in differences(present, pinned if len(present) > 0 else None):
            for name in diff.odd_names:
                per_spark.setdefault(name, []).append((group, diff))
    return {name: _verdict(name, found) for name, found in per_spark.items()}


def _verdict(spark: str, found: list[tuple[str, Difference]]) -> Verdict:
    parts, fixes = [], []
    group = found[0][0]
    for _, diff in found:
        mine = dict(diff.odd)[spark]
        if diff.pinned:
            expected = short(diff.quantity, diff.target)
            parts.append(f"{label(diff.quantity)} {short(diff.quantity, mine)} (the lab expects {expected})")
        elif diff.target is None:
            others = sorted({v for n, v in diff.odd if n != spark})
            parts.append(
                f"{label(diff.quantity)} {short(diff.quantity, mine)} "
                f"(others: {', '.join(short(diff.quantity, v) for v in others)})"
            )
        else:
            parts.append(
                f"{label(diff.quantity)} {short(diff.quantity, mine)} "
                f"({short(diff.quantity, diff.target)} on {names(diff.holders)})"
            )
        fixes.append(fix(diff.quantity, spark, diff.target, () if diff.pinned else diff.holders))
    scope = f" in {group}" if group else ""
    message = f"{spark} runs other software than the rest{scope}: {'; '.join(parts)}. Fix: {'; '.join(fixes)}."
    if all(diff.pinned for _, diff in found):
        message = f"{spark} runs other software than the lab expects: {'; '.join(parts)}. Fix: {'; '.join(fixes)}."
    return Verdict(CODE, "warning", message, (spark,))
