"""The data of a plan: the nodes and group it is made for (``NodeSpec``,
``GroupSpec``), one way of running the model there (``Plan``) and the
planner's answer (``PlanResult``). Plain dataclasses, no Django; the planner
(``placement.planner``) makes them, the recommendation
(``placement.recommendation``) and the launch commands read them.

Memory is in GB (10**9 bytes). ``NodeSpec.usable_gb`` is what the engine may
use on that node after the operating system (see SPARK_128_USABLE_GB).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from placement.perfmodel.evidence import HeldOutEvidence, MeasuredRun, PublishedRun
from placement.plan_memory import MemoryBudget

GROUP_KINDS = ("single", "direct", "ring", "chain", "switched", "irregular")
BACKEND_HINTS = ("auto", "nccl", "rocenante")


@dataclass(frozen=True)
class NodeSpec:
    """One node. `port_ifaces` and `port_rdma` list only the CABLED ports:
    port name -> (twin on PCIe domain 0000, twin on domain 0002), as netdev
    names and RoCE device names. `cluster_ip`/`cluster_iface` is the address
    and interface the engine's bootstrap uses (default: first twin of the
    first cabled port)."""

    name: str
    usable_gb: float
    has_connectx: bool = True
    port_ifaces: dict[str, tuple[str, str]] = field(default_factory=dict)
    port_rdma: dict[str, tuple[str, str]] = field(default_factory=dict)
    cluster_ip: str | None = None
    cluster_iface: str | None = None

    @property
    def bootstrap_iface(self) -> str | None:
        if self.cluster_iface:
            return self.cluster_iface
        for port in sorted(self.port_ifaces):
            return self.port_ifaces[port][0]
        return None


@dataclass(frozen=True)
class GroupSpec:
    """A node group as the topology engine classified it. `link_gbps` is the
    slowest cluster link; `collective_backend` a hint (None/"auto" or "nccl":
    NCCL over RoCE; "rocenante": RoCEnante on a switch, with an engine whose
    image ships it)."""

    id: str
    kind: str
    nodes: tuple[NodeSpec, ...]
    link_gbps: float = 200.0
    collective_backend: str | None = None
    # the group's latest measured collective bus bandwidth (nccl-tests, GB/s),
    # when fabric verification has one: it prices TP's messages instead of
    # the link's line rate
    bus_gbytes_per_s: float | None = None
    # the nodes whose NCCL fell back to TCP sockets in that verification
    # (``fabric.nccl``: "Using network Socket"), and the verification's id
    socket_hosts: tuple[str, ...] = ()
    measured_run: int | None = None

    def validate(self) -> list[tuple[str, str]]:
        errors: list[tuple[str, str]] = []
        if self.kind not in GROUP_KINDS:
            errors.append(("kind", f"unknown group kind {self.kind!r}; one of {', '.join(GROUP_KINDS)}"))
        if not self.nodes:
            errors.append(("nodes", "a group needs at least one node"))
        names = [n.name for n in self.nodes]
        if len(set(names)) != len(names):
            errors.append(("nodes", "node names must be unique within a group"))
        for n in self.nodes:
            if not (isinstance(n.usable_gb, (int, float)) and math.isfinite(n.usable_gb) and n.usable_gb > 0):
                errors.append(("nodes", f"{n.name}: usable_gb must be a number above 0"))
        expected = {"single": (1, 1), "direct": (2, 2), "ring": (3, 10_000), "chain": (3, 10_000)}
        if self.kind in expected and self.nodes:
            low, high = expected[self.kind]
            if not low <= len(self.nodes) <= high:
                errors.append(
                    (
                        "nodes",
                        f"a {self.kind} group has {low if low == high else f'{low} or more'} "
                        f"node(s), not {len(self.nodes)}",
                    )
                )
        if not (isinstance(self.link_gbps, (int, float)) and math.isfinite(self.link_gbps) and self.link_gbps > 0):
            errors.append(("link_gbps", "must be a number above 0"))
        if self.bus_gbytes_per_s is not None and not (
            isinstance(self.bus_gbytes_per_s, (int, float))
            and math.isfinite(self.bus_gbytes_per_s)
            and self.bus_gbytes_per_s > 0
        ):
            errors.append(("bus_gbytes_per_s", "must be a number above 0 (GB/s), or empty"))
        if self.collective_backend is not None and self.collective_backend not in BACKEND_HINTS:
            errors.append(("collective_backend", f"one of {', '.join(BACKEND_HINTS)}, or empty"))
        return errors


@dataclass(frozen=True)
class Plan:
    strategy: str
    tp: int
    pp: int
    ep: int
    replicas: int
    nodes: tuple[str, ...]
    instances: tuple[tuple[str, ...], ...]
    fits: bool
    memory_per_node_gb: MemoryBudget
    decode_tps: float | None
    aggregate_tps: float | None
    prefill_tps: float | None
    reason: str
    prediction_source: str
    exchange_path: str
    engine: str
    context_tokens: int
    concurrency: int
    # uneven pipeline stages (layers per stage, in node order); empty: even
    stage_layers: tuple[int, ...] = ()
    collective_ms: float | None = None  # one stream's communication per token
    # "nccl", "rocenante" (multi-node vLLM/SGLang), "rpc" (llama.cpp) or "none" (one node)
    collective_backend: str = "none"
    mode: str = "graphs"
    # [low, high] of each predicted figure, from the model's errors on
    # comparable published runs (placement.perfmodel.ranges), and from what
    decode_tps_range: tuple[float, float] | None = None
    aggregate_tps_range: tuple[float, float] | None = None
    prefill_tps_range: tuple[float, float] | None = None
    range_basis: str = ""
    # the published fit's errors on held-out runs of the headline figure's kind
    # (all streams' decode at several streams, else one stream's): None when none was held out
    held_out: HeldOutEvidence | None = None
    # the same for its prefill figure (one stream's prompt): prefill misses by engine and family
    # apart from decode (llama.cpp's hybrid MoE models 1.6x to 2.8x too fast in the twelfth fresh set)
    held_out_prefill: HeldOutEvidence | None = None
    # what labs published for this very configuration (model and format, engine, layout, fabric, mode,
    # streams), slowest first, beside the prediction: placement.perfmodel.evidence.published_runs
    published_runs: tuple[PublishedRun, ...] = ()
    # the published runs of this very configuration decoded with speculative decoding (MTP, EAGLE...),
    # slowest first: what drafting gave, beside a prediction of plain decoding, never compared with it
    published_speculative_runs: tuple[PublishedRun, ...] = ()
    # the repository the engine loads (the plan's variant's, or the GGUF
    # repository for llama.cpp): empty when the catalogue names none
    checkpoint: str = ""
    # when the published runs of this configuration fall apart by checkpoint,
    # each checkpoint's figures and which one the plan launches
    # (placement.perfmodel.evidence.checkpoint_split); empty otherwise
    checkpoint_note: str = ""
    # the lab's own measured runs of this very configuration, slowest first
    # (placement.perfmodel.evidence.measured_runs): filled where the lab's runs are read
    lab_runs: tuple[MeasuredRun, ...] = ()
    # what a multi-node plan's prediction does not know about the group's
    # fabric (NCCL seen on TCP sockets); empty when nothing is known against it
    fabric_warning: str = ""

    @property
    def nodes_per_instance(self) -> int:
        return self.tp * self.pp

    @property
    def label(self) -> str:
        """Short words for the plan: "TP2 x 2 copies on 4 nodes", "4 one-node copies"."""
        parts = []
        if self.ep > 1:
            parts.append(f"EP{self.ep}")
        elif self.tp > 1:
            parts.append(f"TP{self.tp}")
        if self.pp > 1:
            parts.append(
                f"PP{self.pp}" + (" uneven " + "/".join(map(str, self.stage_layers)) if self.stage_layers else "")
            )
        if not parts:
            return "1 node" if self.replicas == 1 else f"{self.replicas} one-node copies"
        words = " x ".join(parts)
        if self.replicas > 1:
            words += f" x {self.replicas} copies"
        return f"{words} on {len(self.nodes)} node{'s' if len(self.nodes) != 1 else ''}"


# the first word of a plan note that names plans batching past every published run
EXTRAPOLATED = "Extrapolated:"


@dataclass(frozen=True)
class PlanResult:
    plans: list[Plan]
    recommended: int | None
    notes: list[str]
    recommendation: str = ""
    errors: list[tuple[str, str]] = field(default_factory=list)
    runner_up: int | None = None
    # the plans whose batching reaches past every published run it is fitted on, in words (also among
    # ``notes``, after EXTRAPOLATED; the pages show them beside the recommendation)
    extrapolated: list[str] = field(default_factory=list)

    @property
    def recommended_plan(self) -> Plan | None:
        return None if self.recommended is None else self.plans[self.recommended]


def with_range(value: float, bounds: tuple[float, float] | None, digits: int = 0) -> str:
    """A predicted figure as the pages and reasons show it: "38 tok/s (30 to 44)"."""
    text = f"{value:.{digits}f} tok/s"
    if bounds is not None:
        text += f" ({bounds[0]:.{digits}f} to {bounds[1]:.{digits}f})"
    return text
