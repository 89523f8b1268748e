"""The fabric verification command: nccl-tests' ``all_gather_perf`` through
``mpirun`` across a group, as NVIDIA's NCCL playbook and cluster set-up
script run it, with the topology's variables.

- Bootstrap (NCCL, UCX and Open MPI's TCP) on the management interface for
  every topology, as NVIDIA's cluster set-up script does: it reaches every
  node, ring or not. Hosts are the nodes' management addresses (or their
  names when the inventory has no usable address: the head node resolves them).
- Both RoCE twins of every cabled port in NCCL_IB_HCA; NCCL_IB_SUBNET_AWARE_ROUTING=1;
  rings and chains add NCCL_NET_PLUGIN=none and NCCL_IB_MERGE_NICS=0.
- The sweep 512 MB to 4 GB (-b 512M -e 4G -f 2): the 16 GB buffer of the
  playbook allocates about 32 GB of unified memory per node and can freeze a
  node with a desktop session open.
- mpirun's ssh keeps host key checking on (BatchMode: no prompt, no password);
  the playbook's StrictHostKeyChecking=no is not copied.
- ``timeout`` on the head node ends mpirun (and its remote ranks) when a node
  hangs, so a run always ends.

Every value goes through shlex.quote; configured paths may start with $HOME.
Pure: no Django.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

SWEEP = ("-b", "512M", "-e", "4G", "-f", "2")
SWEEP_SIZES = (512 << 20, 1 << 30, 2 << 30, 4 << 30)  # the rows a complete run prints
RING_KINDS = ("ring", "chain")


@dataclass(frozen=True)
class VerifyNode:
    """One node of the run: the host mpirun reaches it by, and the RoCE
    devices of its cabled ports (both twins each)."""

    name: str
    host: str
    rdma: tuple[str, ...]


@dataclass(frozen=True)
class VerifySettings:
    """Where things live on the nodes (the same on every node)."""

    mgmt_iface: str = "enP7s7"
    all_gather: str = "$HOME/nccl-tests/build/all_gather_perf"
    nccl_home: str = "$HOME/nccl/build"
    mpi_home: str = "/usr/lib/aarch64-linux-gnu/openmpi"
    cuda_home: str = "/usr/local/cuda"
    timeout_s: int = 600


def _path(value: str) -> str:
    if value.startswith("$HOME/"):
        return '"$HOME"/' + shlex.quote(value[len("$HOME/") :])
    return shlex.quote(value)


def verify_problems(nodes: list[VerifyNode], settings: VerifySettings) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    if len(nodes) < 2:
        problems.append(("group", "a fabric verification needs at least two Sparks"))
    for node in nodes:
        if not node.host or any(not ch.isprintable() or ch.isspace() for ch in node.host):
            problems.append((f"node {node.name}", "has no usable management address or name"))
        if len(node.rdma) < 2 or len(node.rdma) % 2:
            problems.append((f"node {node.name}", "needs both RoCE twins of each cabled port"))
    texts = (settings.mgmt_iface, settings.all_gather, settings.nccl_home, settings.mpi_home, settings.cuda_home)
    if any(not t or any(not ch.isprintable() for ch in t) for t in texts):
        problems.append(("settings", "paths and the management interface must be printable and not empty"))
    if not 1 <= settings.timeout_s <= 24 * 3600:
        problems.append(("settings", "timeout_s must be between 1 s and a day"))
    return problems


def environment(nodes: list[VerifyNode], kind: str, settings: VerifySettings) -> list[tuple[str, str]]:
    """The variables mpirun exports to every rank."""
    iface = settings.mgmt_iface
    # one value for every rank: the union of the cabled twins (NVIDIA's script lists all four)
    hca = ",".join(dict.fromkeys(d for n in nodes for d in n.rdma))
    env = [
        ("NCCL_SOCKET_IFNAME", iface),
        ("UCX_NET_DEVICES", iface),
        ("OMPI_MCA_btl_tcp_if_include", iface),
        ("NCCL_IB_HCA", hca),
        ("NCCL_IB_SUBNET_AWARE_ROUTING", "1"),
    ]
    if kind in RING_KINDS:
        env += [("NCCL_NET_PLUGIN", "none"), ("NCCL_IB_MERGE_NICS", "0")]
    # INFO for the INIT and NET subsystems only: the NCCL version (a
    # non-release build shows), and the network and devices each rank chose
    env += [("NCCL_DEBUG", "INFO"), ("NCCL_DEBUG_SUBSYS", "INIT,NET")]
    return env


def verify_command(nodes: list[VerifyNode], kind: str, settings: VerifySettings | None = None) -> str:
    """The one command the head node (nodes[0]) runs. Raises ValueError on problems."""
    settings = settings or VerifySettings()
    problems = verify_problems(nodes, settings)
    if problems:
        raise ValueError("; ".join(f"{w}: {m}" for w, m in problems))
    q = shlex.quote
    hosts = ",".join(f"{n.host}:1" for n in nodes)
    exports = " ".join(f"-x {q(f'{var}={value}')}" for var, value in environment(nodes, kind, settings))
    return (
        "export LC_ALL=C; "
        f"export CUDA_HOME={_path(settings.cuda_home)} MPI_HOME={_path(settings.mpi_home)} "
        f"NCCL_HOME={_path(settings.nccl_home)}; "
        'export LD_LIBRARY_PATH="$NCCL_HOME/lib:$CUDA_HOME/lib64:$MPI_HOME/lib:${LD_LIBRARY_PATH:-}"; '
        f"timeout -k 10 {int(settings.timeout_s)} mpirun -np {len(nodes)} -H {q(hosts)} "
        "--mca plm_rsh_agent 'ssh -o BatchMode=yes -o ConnectTimeout=10' "
        f"-x LD_LIBRARY_PATH {exports} {_path(settings.all_gather)} {' '.join(SWEEP)} 2>&1"
    )
