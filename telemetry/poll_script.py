"""The fixed, read-only command script a poll sends to a Spark.

One poll is ONE exec request on ONE channel: the script below prints every
section behind a marker line (``@@fleet:<section>``) and ends with
``@@fleet:end`` so a truncated answer is recognisable. The script is a
constant: no user-supplied text (node names, interface names from the
inventory, ...) is ever interpolated into it, so a poll can never be turned
into arbitrary command execution.

Every command is guarded (``2>/dev/null || true``) so a missing tool (no
lldpd, no ibdev2netdev) prints an empty section instead of aborting the rest.
The script is POSIX ``sh`` (DGX OS logs users in with bash, which accepts it).

This module also owns the twin table (which Linux interfaces and RDMA devices
make up each physical QSFP port of a Spark, see docs/operations.md).
"""

from __future__ import annotations

from typing import Final

MARKER_PREFIX: Final = "@@fleet:"
END_SECTION: Final = "end"

# port -> ((ifname, rdma device) on PCIe domain 0000, (ifname, rdma) on domain 0002).
# Every physical port shows up as TWO interfaces ("twins"), each behind its own
# x4 PCIe link worth ~100 Gb/s; both are needed for 200 Gb/s.
TWINS: Final[dict[str, tuple[tuple[str, str], tuple[str, str]]]] = {
    "p0": (("enp1s0f0np0", "rocep1s0f0"), ("enP2p1s0f0np0", "roceP2p1s0f0")),
    "p1": (("enp1s0f1np1", "rocep1s0f1"), ("enP2p1s0f1np1", "roceP2p1s0f1")),
}

# ifname -> (port, rdma device, twin index 0/1)
TWIN_BY_IFNAME: Final[dict[str, tuple[str, str, int]]] = {
    ifname: (port, rdma, index) for port, pair in TWINS.items() for index, (ifname, rdma) in enumerate(pair)
}

TWIN_IFNAMES: Final[tuple[str, ...]] = tuple(TWIN_BY_IFNAME)

# Section names, in the order the script prints them.
SECTIONS: Final[tuple[str, ...]] = (
    "meminfo",
    "psi",
    "gpu",
    "apps",
    "owners",
    "ip_link",
    "ip_addr",
    "sysfs",
    "ibdev2netdev",
    "rdma",
    "lldp",
    "uptime",
    "loadavg",
    "disk",
)


def marker(section: str) -> str:
    """The shell line that prints a section's marker."""
    # The leading newline keeps a marker on its own line even after a command
    # whose output lacks a final newline; parsers ignore blank lines.
    return f"printf '\\n%s\\n' '{MARKER_PREFIX}{section}'"


def _build_script() -> str:
    twins = " ".join(TWIN_IFNAMES)
    lines = [
        # A fixed locale and PATH: parsers rely on C number formats, and a
        # user's odd PATH must not pick another nvidia-smi. The fleet user's
        # own PATH is kept for the one question about it (software_script's
        # host_vllm: what the benchmark command, which keeps it, will find).
        'user_path="$PATH"; export LC_ALL=C PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        marker("meminfo"),
        "cat /proc/meminfo 2>/dev/null || true",
        marker("psi"),
        "cat /proc/pressure/memory 2>/dev/null || true",
        marker("gpu"),
        "nvidia-smi --query-gpu=utilization.gpu,temperature.gpu,power.draw"
        " --format=csv,noheader,nounits 2>/dev/null || true",
        marker("apps"),
        # Kept in a variable so nvidia-smi (slow: ~100 ms) runs once and the
        # owners below match exactly the pids printed here.
        "apps=$(nvidia-smi --query-compute-apps=pid,used_memory,process_name"
        " --format=csv,noheader 2>/dev/null || true)",
        '[ -n "$apps" ] && printf \'%s\\n\' "$apps"',
        marker("owners"),
        "pids=$(printf '%s\\n' \"$apps\" | cut -d, -f1 | tr -d ' ' | grep -E '^[0-9]+$' | paste -sd, -)",
        '[ -n "$pids" ] && ps -o pid=,user= -p "$pids" 2>/dev/null || true',
        marker("ip_link"),
        "ip -j link 2>/dev/null || true",
        marker("ip_addr"),
        "ip -j addr 2>/dev/null || true",
        marker("sysfs"),
        f"for i in {twins}; do d=/sys/class/net/$i; [ -d $d ] || continue;"
        ' echo "$i operstate=$(cat $d/operstate 2>/dev/null || echo -)'
        " speed=$(cat $d/speed 2>/dev/null || echo -)"
        ' mtu=$(cat $d/mtu 2>/dev/null || echo -)"; done',
        marker("ibdev2netdev"),
        "ibdev2netdev 2>/dev/null || true",
        marker("rdma"),
        # RoCE port state and rate, readable without root: "dev|4: ACTIVE|200 Gb/sec (4X HDR)"
        'for d in /sys/class/infiniband/*; do [ -d "$d/ports/1" ] || continue;'
        ' printf \'%s|%s|%s\\n\' "${d##*/}" "$(cat "$d/ports/1/state" 2>/dev/null)"'
        ' "$(cat "$d/ports/1/rate" 2>/dev/null)"; done',
        marker("lldp"),
        "lldpctl -f json 2>/dev/null || true",
        marker("uptime"),
        "cat /proc/uptime 2>/dev/null || true",
        marker("loadavg"),
        "cat /proc/loadavg 2>/dev/null || true",
        marker("disk"),
        # the root filesystem in bytes, POSIX format: on DGX OS it holds Docker's images
        # (/var/lib/docker) and the Hugging Face cache (~/.cache/huggingface)
        "df -P -B1 / 2>/dev/null || true",
        marker(END_SECTION),
    ]
    return "\n".join(lines) + "\n"


POLL_SCRIPT: Final[str] = _build_script()
"""The exact command string sent in the exec request of every poll."""
