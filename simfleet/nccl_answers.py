"""What a simulated head node prints for ``mpirun ... all_gather_perf``.

The fabric verification runs nccl-tests through mpirun on a group's head
node; the simulated fleet answers it like real Sparks (docs/operations.md:
the table, the average line ending in a space, NCCL lines interleaved), one
row at a time so progress can be watched, and with the faults of the nodes
named in ``-H``:

- healthy pair or switch: about 21.3 to 22.6 GB/s, rising with the size;
- a ring (every node's two ports cabled to others in the run): about 11 to
  12 GB/s; without NCCL_NET_PLUGIN=none the ring fails with ``ibv_modify_qp``
  error 110, as community guides report;
- "twin-down" on a node, or NCCL_IB_HCA naming one twin only: about half;
- "negotiated-100g": about half (100 Gb/s links);
- "nccl-stuck": flat near 2.8 GB/s (a non-release NCCL build);
- "no-rdma" on a node: its NCCL finds no RoCE device ("NET/IB : No device
  found.") and falls back to TCP sockets ("Using network Socket"). On every
  node of the run, the run goes over sockets, about 5.4 to 5.7 GB/s. On some
  only, the others choose RoCE, and NCCL's two net transports refuse each
  other's connections: as NCCL 2.28's misc/socket.cc does, the accepting
  rank warns "socketFinalizeAccept from <peer>: wrong type 4 != 3" (a NET/IB
  connection on a NET/Socket listener) and the test fails before its first
  row;
- every rank prints the network its NCCL chose and its devices
  (NCCL_DEBUG=INFO, subsystems INIT,NET), as NCCL's init.cc, net_ib and
  net_socket do;
- "hung": the header and the first row, then nothing (the caller's timeout
  ends it); "down": mpirun cannot start its daemon there;
- "close-mid-output" on a worker: that rank dies after the first row.

The command is read with shlex.split, never executed. Pure text: no I/O.
"""

from __future__ import annotations

import random
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field

_SIZE = re.compile(r"^(\d+)([KMG]?)$")
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
NCCL_VERSION = "2.28.9+cuda13.0"


@dataclass
class NcclAnswer:
    """Chunks to write, each after a delay (seconds); then exit with
    ``exit_status``, or hang when it is None."""

    chunks: list[tuple[float, str]] = field(default_factory=list)
    exit_status: int | None = 0


def _size(text: str) -> int | None:
    match = _SIZE.match(text.upper())
    return int(match.group(1)) * _UNITS[match.group(2)] if match else None


def _mpirun_args(command: str) -> dict[str, object] | None:
    if "mpirun" not in command or "all_gather_perf" not in command:
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if "mpirun" not in words:
        return None
    words = words[words.index("mpirun") + 1 :]
    hosts: list[str] = []
    env: dict[str, str] = {}
    sweep = {"-b": "512M", "-e": "4G", "-f": "2"}
    i = 0
    while i < len(words):
        word = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if word == "-H":
            hosts = [h.rsplit(":", 1)[0] for h in nxt.split(",") if h]
            i += 2
        elif word == "-x":
            var, _, value = nxt.partition("=")
            env[var] = value
            i += 2
        elif word in sweep:
            sweep[word] = nxt
            i += 2
        elif word == "--mca":
            i += 3
        else:
            i += 1
    return {"hosts": hosts, "env": env, "sweep": sweep}


def _header(hosts: list[str], low: int, high: int) -> str:
    ranks = "".join(
        f"#  Rank {r:2d} Group  0 Pid {4000 + 97 * r:6d} on {h:>10} device  0 [000f:01:00] NVIDIA GB10\n"
        for r, h in enumerate(hosts)
    )
    return (
        "# nccl-tests version 2.17.6 nccl-headers=22809 nccl-library=22809\n"
        "# Collective test starting: all_gather_perf\n"
        f"# nThread 1 nGpus 1 minBytes {low} maxBytes {high} step: 2(factor) warmup iters: 1 iters: 20 "
        "agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n" + ranks + "#\n"
        f"{hosts[0]}:4000:4000 [0] NCCL INFO NCCL version {NCCL_VERSION}\n"
        "#                                                              out-of-place                       in-place\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
        "busbw #wrong\n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
        "(GB/s)\n"
    )


def _row(size: int, busbw: float, ranks: int) -> str:
    algbw = busbw * ranks / max(1, ranks - 1)
    time_us = size / (algbw * 1e3)
    ip = busbw * 1.002
    return (
        f"{size:>12d}  {size // 4:>12d}     float    none      -1  {time_us:7.0f}  {algbw:6.2f}  {busbw:6.2f}"
        f"      0  {time_us * 0.998:7.0f}  {algbw * 1.002:6.2f}  {ip:6.2f}      0\n"
    )


def nccl_answer(
    command: str,
    faults: Mapping[str, set[str]],
    cabling: Mapping[str, Mapping[str, tuple[str, str]]],
    *,
    row_s: float = 1.0,
) -> NcclAnswer | None:
    """The answer to a verification command, or None for any other command."""
    args = _mpirun_args(command)
    if args is None:
        return None
    hosts = list(args["hosts"])  # type: ignore[call-overload]
    env: dict[str, str] = args["env"]  # type: ignore[assignment]
    sweep: dict[str, str] = args["sweep"]  # type: ignore[assignment]
    refused = _refusal(hosts, faults)
    if refused is not None:
        return refused
    sizes = _sizes(sweep)
    if not sizes:
        return NcclAnswer([(0.05, "Invalid size or step arguments\n")], 1)
    low, high = sizes[0], _size(sweep["-e"]) or sizes[-1]
    members = set(hosts)
    ring = len(hosts) >= 3 and all(
        len(cabling.get(h, {})) == 2 and all(peer in members for peer, _ in cabling.get(h, {}).values()) for h in hosts
    )
    chunks: list[tuple[float, str]] = [(0.1, _header(hosts, low, high))]
    hca = [d for d in env.get("NCCL_IB_HCA", "").split(",") if d]
    all_faults = set().union(*(faults[h] for h in hosts))
    if env.get("NCCL_DEBUG") == "INFO":
        chunks.append((0.05, _network_lines(hosts, hca, faults)))
    on_sockets = [h for h in hosts if "no-rdma" in faults[h]]
    if on_sockets and len(on_sockets) < len(hosts):
        # a RoCE rank connects to a socket rank's listener: NET/IB's socket type (4) is not NET/Socket's (3)
        listener = on_sockets[0]
        peer = next(h for h in hosts if h not in on_sockets)
        rank = hosts.index(listener)
        chunks.append(
            (
                row_s,
                f"{listener}:{4000 + 97 * rank}:{4131 + rank} [0] misc/socket.cc:538 NCCL WARN "
                f"socketFinalizeAccept from 192.168.100.{11 + hosts.index(peer)}<45113>: wrong type 4 != 3\n"
                f"{listener}: Test NCCL failure common.cu:1279 'internal error - please report this issue to the "
                "NCCL developers'\n",
            )
        )
        return NcclAnswer(chunks, 1)
    if ring and env.get("NCCL_NET_PLUGIN") != "none":
        chunks.append(
            (
                row_s,
                f"{hosts[1]}:4097:4120 [0] transport/net_ib.cc:1123 NCCL WARN NET/IB : "
                "ibv_modify_qp failed with 110 Connection timed out\n"
                f"{hosts[1]}: Test NCCL failure common.cu:1279 'unhandled system error'\n",
            )
        )
        return NcclAnswer(chunks, 1)
    rng = random.Random(",".join(hosts) + str(sorted(all_faults)))
    base, step = _floor(all_faults, ring=ring, one_hca=len(hca) == 1)
    busbws = [base + step * i + rng.uniform(-0.05, 0.05) for i in range(len(sizes))]
    hung = [h for h in hosts if "hung" in faults[h]]
    dropped = [h for h in hosts[1:] if "close-mid-output" in faults[h]]
    for index, (size, busbw) in enumerate(zip(sizes, busbws, strict=True)):
        text = _row(size, busbw, len(hosts))
        if index == 1:
            text = f"{hosts[-1]}:{4000 + 97 * (len(hosts) - 1)}:4130 [0] NCCL INFO Channel 00/02 : 0 1\n" + text
        chunks.append((row_s, text))
        if index == 0 and hung:
            return NcclAnswer(chunks, None)  # a node stopped answering: mpirun waits forever
        if index == 0 and dropped:
            chunks.append(
                (
                    row_s,
                    "--------------------------------------------------------------------------\n"
                    f"mpirun noticed that process rank {hosts.index(dropped[0])} with PID 0 on node "
                    f"{dropped[0]} exited on signal 9 (Killed).\n",
                )
            )
            return NcclAnswer(chunks, 137)
    average = sum(busbws) / len(busbws)
    chunks.append(
        (
            0.05,
            f"# Out of bounds values : 0 OK\n# Avg bus bandwidth    : {average:.4f} \n#\n"
            "# Collective test concluded: all_gather_perf\n",
        )
    )
    return NcclAnswer(chunks, 0)


def _network_lines(hosts: list[str], hca: list[str], faults: Mapping[str, set[str]]) -> str:
    """What each rank's NCCL prints when it picks its network (NCCL_DEBUG=INFO,
    INIT and NET): RoCE over the twins of NCCL_IB_HCA, or TCP sockets on a
    node with no usable RoCE device ("no-rdma"). Each rank chooses alone."""
    lines = []
    for rank, host in enumerate(hosts):
        prefix = f"{host}:{4000 + 97 * rank}:{4000 + 97 * rank} [0] NCCL INFO"
        if "no-rdma" in faults[host]:
            lines.append(f"{prefix} NET/IB : No device found.")
            lines.append(f"{prefix} NET/Socket : Using [0]enp1s0f1np1:192.168.100.{11 + rank}<0>")
            lines.append(f"{prefix} Using network Socket")
        else:
            devices = " ".join(f"[{i}]{d}:1/RoCE" for i, d in enumerate(hca))
            lines.append(f"{prefix} NET/IB : Using {devices} [RO]; OOB enP7s7:10.0.0.{11 + rank}<0>")
            lines.append(f"{prefix} Using network IB")
    return "\n".join(lines) + "\n"


def _refusal(hosts: list[str], faults: Mapping[str, set[str]]) -> NcclAnswer | None:
    """mpirun cannot start a daemon on a host it does not know, or on one that is down."""
    unknown = [h for h in hosts if h not in faults]
    if len(hosts) < 2 or unknown:
        return NcclAnswer(
            [
                (
                    0.05,
                    f"ssh: Could not resolve hostname {(unknown or ['?'])[0]}: Name or service not "
                    "known\n--------------------------------------------------------------------------\n"
                    "ORTE was unable to reliably start one or more daemons.\n",
                )
            ],
            1,
        )
    down = [h for h in hosts if "down" in faults[h]]
    if down:
        return NcclAnswer(
            [
                (
                    0.1,
                    f"ssh: connect to host {down[0]} port 22: Connection refused\n"
                    "--------------------------------------------------------------------------\n"
                    "ORTE was unable to reliably start one or more daemons.\n",
                )
            ],
            1,
        )
    return None


def _sizes(sweep: dict[str, str]) -> list[int]:
    """The buffer sizes of the sweep (-b to -e, times -f), at most 32; [] when the arguments are invalid."""
    low, high, factor = _size(sweep["-b"]), _size(sweep["-e"]), _size(sweep["-f"])
    if not low or not high or not factor or factor < 2 or low > high:
        return []
    sizes: list[int] = []
    size = low
    while size <= high and len(sizes) < 32:
        sizes.append(size)
        size *= factor
    return sizes


def _floor(all_faults: set[str], *, ring: bool, one_hca: bool) -> tuple[float, float]:
    """The bus bandwidth of the smallest size and its rise per size, GB/s."""
    if "nccl-stuck" in all_faults:
        return 2.80, 0.005
    if "no-rdma" in all_faults:
        return 5.4, 0.1
    if ring:
        return 10.9, 0.25
    if "twin-down" in all_faults or "negotiated-100g" in all_faults or one_hca:
        return 11.1, 0.2
    return 21.3, 0.42
