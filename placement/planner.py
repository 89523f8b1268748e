"""Placement planner: every way to run one model on one node group, and the pick.

Owns the placement rules of docs/hardware.md (tensor parallel needs cluster
links, expert parallel needs a switch and a MoE model, a ring runs one
instance over all its nodes or a single node alone, mixed 64/128 GB groups
shard by the smallest node, an RTX Spark never joins a multi-node plan), the
per-node memory budget, and the recommendation for a goal. Speeds come from
``placement.perfmodel``. Plain dataclasses in and out; no Django.

Memory is in GB (10**9 bytes). ``NodeSpec.usable_gb`` is what the engine may
use on that node after the operating system (see SPARK_128_USABLE_GB).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from placement.model_catalogue import ModelSpec
from placement.perfmodel import Layout, PerfConstants, default_constants, predict, prediction_source, split_streams

GROUP_KINDS = ("single", "direct", "ring", "chain", "switched", "irregular")
BACKEND_HINTS = ("auto", "nccl", "rocenante")
ENGINES = ("vllm", "sglang", "llama.cpp")
GOALS = ("latency", "throughput")

# Usable memory of the two Spark models, for callers without a measurement.
# Published: a 128 GB node reports MemTotal 127,600,748 kB (130.7 GB) and the
# OS takes 3 to 4 GB; we subtract 4. The 64 GB variant is scaled from that.
SPARK_128_USABLE_GB = round(127_600_748 * 1024 / 1e9 - 4.0, 1)  # 126.7
SPARK_64_USABLE_GB = round(127_600_748 * 1024 / 1e9 / 2 - 4.0, 1)  # 61.3

# Estimated, per node: CUDA context and cuBLAS/NCCL workspaces (~1 GB), CUDA
# graphs captured by vLLM/SGLang (~1-2 GB), allocator fragmentation (~1 GB).
RUNTIME_OVERHEAD_GB = 4.0
# Estimated activation workspace: a prefill chunk of 8,192 tokens (the order
# of vLLM's max_num_batched_tokens) with ~16 live bf16 values per hidden unit
# per token during one layer (residual, QKV, attention output, MLP gate/up).
ACTIVATION_CHUNK_TOKENS = 8192
ACTIVATION_VALUES_PER_HIDDEN = 16
# Memory an engine leaves unused by default: vLLM's gpu_memory_utilization
# defaults to 0.9; SGLang's mem_fraction_static is ~0.88 (estimated: it varies
# with the GPU); llama.cpp has no cap, 5% kept as headroom because running out
# of unified memory freezes a Spark instead of failing cleanly.
ENGINE_RESERVE_FRACTION: dict[str, float] = {"vllm": 0.10, "sglang": 0.12, "llama.cpp": 0.05}

_STRATEGY_ORDER = ("single", "tp", "pp", "tp+pp", "ep")


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
    slowest cluster link; `collective_backend` a hint (None/"auto": RoCEnante
    on a switch, NCCL elsewhere)."""

    id: str
    kind: str
    nodes: tuple[NodeSpec, ...]
    link_gbps: float = 200.0
    collective_backend: str | None = None
    # the group's latest measured collective bus bandwidth (nccl-tests, GB/s),
    # when fabric verification has one: it prices TP's messages instead of
    # the link's line rate
    bus_gbytes_per_s: float | None = None

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
class MemoryBudget:
    """Per node, on the node that limits the plan (the smallest one)."""

    weights: float
    kv_cache: float
    overhead: float
    reserve: float
    usable: float
    free: float

    @property
    def needed(self) -> float:
        return self.weights + self.kv_cache + self.overhead + self.reserve


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


@dataclass(frozen=True)
class PlanResult:
    plans: list[Plan]
    recommended: int | None
    notes: list[str]
    recommendation: str = ""
    errors: list[tuple[str, str]] = field(default_factory=list)
    runner_up: int | None = None

    @property
    def recommended_plan(self) -> Plan | None:
        return None if self.recommended is None else self.plans[self.recommended]


# --- memory ---------------------------------------------------------------------


def memory_budget(
    model: ModelSpec,
    *,
    tp: int,
    pp: int,
    usable_gb: float,
    context_tokens: int,
    concurrency_per_instance: int,
    engine: str,
    layer_share: float | None = None,
) -> MemoryBudget:
    """Per-node memory of one instance split tp x pp (expert parallelism
    spreads the weights over its tp nodes the same way). ``layer_share`` is
    the node's stage's share of the layers (uneven stages); default 1/pp."""
    share = layer_share if layer_share is not None else 1.0 / pp
    weights = model.weights_size_gb() * share / tp
    kv = context_tokens * concurrency_per_instance * model.kv_bytes_per_token() / 1e9 * share / model.kv_shards(tp)
    activations = ACTIVATION_CHUNK_TOKENS * model.hidden_size * ACTIVATION_VALUES_PER_HIDDEN * 2 / 1e9
    overhead = RUNTIME_OVERHEAD_GB + activations
    reserve = usable_gb * ENGINE_RESERVE_FRACTION[engine]
    free = usable_gb - weights - kv - overhead - reserve
    return MemoryBudget(weights=weights, kv_cache=kv, overhead=overhead, reserve=reserve, usable=usable_gb, free=free)


# --- enumeration ----------------------------------------------------------------


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _exchange_path(group: GroupSpec, nodes_per_instance: int) -> str:
    if nodes_per_instance <= 1:
        return "none"
    if group.kind == "direct":
        return "direct"
    if group.kind in ("ring", "chain"):
        return "ring"
    return "switched-nccl" if group.collective_backend == "nccl" else "switched-rocenante"


@dataclass(frozen=True)
class _Shape:
    tp: int
    pp: int
    ep: int
    replicas: int
    instances: tuple[tuple[NodeSpec, ...], ...]
    stage_layers: tuple[int, ...] = ()

    @property
    def base(self) -> str:
        if self.ep > 1:
            return "ep"
        if self.tp > 1 and self.pp > 1:
            return "tp+pp"
        if self.tp > 1:
            return "tp"
        if self.pp > 1:
            return "pp"
        return "single"

    @property
    def strategy(self) -> str:
        if self.replicas == 1:
            return self.base
        return "replicas" if self.base == "single" else f"{self.base}+replicas"


def _by_memory(nodes: list[NodeSpec]) -> list[NodeSpec]:
    # largest usable memory first; stable, so equal nodes keep the group's order
    return sorted(nodes, key=lambda n: -n.usable_gb)


def _shapes(group: GroupSpec, model: ModelSpec, engine: str, notes: list[str]) -> list[_Shape]:
    nodes = list(group.nodes)
    connectx = [n for n in nodes if n.has_connectx]
    rtx = [n.name for n in nodes if not n.has_connectx]
    if rtx:
        notes.append(f"No ConnectX-7 (RTX Spark): {', '.join(rtx)} can only run single-node plans.")

    # Instance sizes that use cluster links.
    multi_sizes: list[int] = []
    if group.kind == "switched":
        # every size that divides the group, and the usual tensor-parallel
        # sizes that do not: their copies leave the smallest nodes out (seven
        # Sparks still host TP2 x 3 or TP4)
        multi_sizes = sorted(
            {d for d in _divisors(len(connectx)) if d > 1} | {d for d in (2, 4, 8) if d < len(connectx)}
        )
    elif group.kind in ("direct", "ring", "chain"):
        if rtx:
            notes.append(f"A {group.kind} needs every node on the RoCE links: no multi-node plan.")
        else:
            multi_sizes = [len(nodes)]
    elif group.kind == "irregular" and len(nodes) > 1:
        notes.append(
            "Irregular cabling: only single-node plans and single-node copies are offered; "
            "re-cable as direct, ring or switched for a multi-node plan."
        )

    # Independent one-node copies need no link at all: every topology can
    # host them, rings included. Copies of multi-node instances need their
    # own links: only a switch gives each copy its own.
    if group.kind in ("ring", "chain") and len(nodes) > 1:
        notes.append(
            f"A {group.kind} runs one model instance over all its nodes, or independent one-node "
            "copies (they need no link); it cannot host multi-node copies on sub-rings."
        )

    shapes: list[_Shape] = []
    singles = _by_memory(nodes)
    shapes.append(_Shape(1, 1, 1, 1, ((singles[0],),)))
    if len(nodes) > 1:
        shapes.append(_Shape(1, 1, 1, len(nodes), tuple((n,) for n in singles)))
    # In a mixed group, copies on the largest nodes only: a model a 64 GB
    # Spark cannot hold still runs as a copy on each 128 GB one.
    largest = [n for n in singles if n.usable_gb == singles[0].usable_gb]
    if 1 < len(largest) < len(nodes):
        shapes.append(_Shape(1, 1, 1, len(largest), tuple((n,) for n in largest)))

    # Expert parallelism sends tokens all-to-all: a switch, or the one cable of a pair.
    ep_allowed = model.is_moe and group.kind in ("switched", "direct") and engine != "llama.cpp"
    for size in multi_sizes:
        pool = _by_memory(connectx) if group.kind == "switched" else connectx
        combos = [(tp, size // tp, 1) for tp in _divisors(size)]
        if engine == "llama.cpp":
            combos = [(1, size, 1)]  # llama.cpp RPC splits layers only
        elif ep_allowed:
            combos.append((size, 1, size))
        copies = len(pool) // size if group.kind == "switched" else 1
        for tp, pp, ep in combos:
            shapes.append(_Shape(tp, pp, ep, 1, (tuple(pool[:size]),)))
            if copies > 1:
                instances = tuple(tuple(pool[i * size : (i + 1) * size]) for i in range(copies))
                shapes.append(_Shape(tp, pp, ep, copies, instances))
            instance = tuple(pool[:size])
            if tp == 1 and pp > 1 and len({n.usable_gb for n in instance}) > 1:
                layers = uneven_stages(model, instance, engine)
                if layers is not None:
                    shapes.append(_Shape(1, pp, 1, 1, (instance,), layers))
    return shapes


def uneven_stages(model: ModelSpec, stages: tuple[NodeSpec, ...], engine: str) -> tuple[int, ...] | None:
    """Layers per pipeline stage in proportion to what each node can hold
    after its runtime and engine reserve (mixed 64/128 GB groups): the
    128 GB node takes about twice the 64 GB node's layers. None when even
    stages are as good (equal nodes) or there are more stages than layers."""
    fixed = [RUNTIME_OVERHEAD_GB + n.usable_gb * ENGINE_RESERVE_FRACTION[engine] for n in stages]
    room = [max(n.usable_gb - f, 0.0) for n, f in zip(stages, fixed, strict=True)]
    total, layers = sum(room), model.layers
    if total <= 0 or len(stages) > layers:
        return None
    split = [max(1, int(layers * r / total)) for r in room]
    # hand out what rounding left, to the stages with the most room per layer
    while sum(split) < layers:
        i = max(range(len(split)), key=lambda k: room[k] / split[k])
        split[i] += 1
    while sum(split) > layers:
        i = min((k for k in range(len(split)) if split[k] > 1), key=lambda k: room[k] / split[k])
        split[i] -= 1
    return tuple(split) if len(set(split)) > 1 else None


def _shape_problem(shape: _Shape, model: ModelSpec) -> str | None:
    """Why the model cannot be split this way at all (not a memory question)."""
    if shape.tp > 1:
        if model.heads % shape.tp:
            return f"{model.heads} attention heads cannot be split over {shape.tp} tensor-parallel nodes"
        if model.kv_heads % shape.tp and shape.tp % model.kv_heads:
            return f"{model.kv_heads} KV heads cannot be split over {shape.tp} tensor-parallel nodes"
    if shape.pp > model.layers:
        return f"{model.layers} layers cannot fill {shape.pp} pipeline stages"
    if shape.ep > 1 and model.experts % shape.ep:
        return f"{model.experts} experts cannot be spread evenly over {shape.ep} nodes"
    return None


# --- reasons ----------------------------------------------------------------------

_PATH_WORDS = {
    "none": "no cluster link",
    "direct": "direct cable, NCCL",
    "ring": "ring, NCCL",
    "switched-nccl": "switch, NCCL",
    "switched-rocenante": "switch, RoCEnante",
}


def _describe(shape: _Shape, path: str) -> str:
    k = shape.tp * shape.pp
    words = {
        "single": "One node runs the whole model",
        "tp": f"Tensor parallel over {k} nodes ({_PATH_WORDS[path]}): every node reads 1/{k} of the "
        "weights per token, with two all-reduces per layer",
        "pp": f"Pipeline parallel in {k} stages ({_PATH_WORDS[path]}): fits a larger model, but one "
        "stream visits the stages in turn, so its speed hardly grows",
        "tp+pp": f"Tensor parallel {shape.tp} x pipeline {shape.pp} over {k} nodes ({_PATH_WORDS[path]})",
        "ep": f"Expert parallel over {k} nodes ({_PATH_WORDS[path]}): experts spread, attention "
        "tensor-parallel; per layer one all-reduce and two all-to-alls (tokens to their experts and "
        "back), each carrying every token's k expert slots",
    }[shape.base]
    if shape.stage_layers:
        words += (
            f", in uneven stages of {' + '.join(map(str, shape.stage_layers))} layers so the larger "
            "nodes hold more of the model"
        )
    if shape.replicas > 1:
        words += (
            f"; {shape.replicas} independent copies: aggregate throughput multiplies, one stream's speed is unchanged"
        )
    return words


def _reason(
    shape: _Shape,
    path: str,
    budget: MemoryBudget,
    fits: bool,
    decode: float | None,
    aggregate: float | None,
    concurrency: int,
) -> str:
    head = _describe(shape, path)
    share = (
        f"weights {budget.weights:.1f} GB + KV cache {budget.kv_cache:.1f} GB + runtime "
        f"{budget.overhead:.1f} GB + engine reserve {budget.reserve:.1f} GB"
    )
    if not fits:
        return (
            f"{head}. Does not fit: each node needs {budget.needed:.1f} GB ({share}) but the "
            f"smallest node has {budget.usable:.1f} GB usable, {-budget.free:.1f} GB short."
        )
    speed = ""
    if decode is not None and aggregate is not None:
        speed = f" Predicted: one stream ~{decode:.1f} tok/s"
        if concurrency > 1:
            speed += f"; {concurrency} streams together ~{aggregate:.0f} tok/s"
        speed += "."
    return (
        f"{head}. Fits: {share} per node, {budget.free:.1f} GB free on the smallest node "
        f"({budget.usable:.1f} GB usable).{speed}"
    )


# --- the planner ------------------------------------------------------------------


def _input_errors(
    group: GroupSpec, model: ModelSpec, context_tokens: int, concurrency: int, engine: str, goal: str
) -> list[tuple[str, str]]:
    errors = list(group.validate())
    errors += [(f"model.{name}", msg) for name, msg in model.validate()]
    if not isinstance(context_tokens, int) or isinstance(context_tokens, bool) or context_tokens < 1:
        errors.append(("context_tokens", "must be a whole number of at least 1"))
    elif not any(name == "model.max_context" for name, _ in errors) and context_tokens > model.max_context:
        errors.append(("context_tokens", f"exceeds the model's maximum context ({model.max_context:,})"))
    if not isinstance(concurrency, int) or isinstance(concurrency, bool) or concurrency < 1:
        errors.append(("concurrency", "must be a whole number of at least 1"))
    if engine not in ENGINES:
        errors.append(("engine", f"one of {', '.join(ENGINES)}"))
    if goal not in GOALS:
        errors.append(("goal", f"one of {', '.join(GOALS)}"))
    return errors


def plan_placement(
    group: GroupSpec,
    model: ModelSpec,
    *,
    context_tokens: int,
    concurrency: int = 1,
    engine: str = "vllm",
    goal: str = "latency",
    constants: PerfConstants | None = None,
) -> PlanResult:
    """Every candidate plan for `model` on `group`, and the recommended one.

    Plans that do not fit stay in the list with fits=False and the reason.
    `concurrency` counts all simultaneous streams (split over replicas).
    """
    errors = _input_errors(group, model, context_tokens, concurrency, engine, goal)
    if errors:
        return PlanResult(
            plans=[], recommended=None, notes=["Nothing planned: fix the inputs."], recommendation="", errors=errors
        )
    c = constants or default_constants()
    source = prediction_source(c)
    notes: list[str] = []
    shapes = _shapes(group, model, engine, notes)

    plans: list[Plan] = []
    for shape in shapes:
        path = _exchange_path(group, shape.tp * shape.pp)
        used = [n for inst in shape.instances for n in inst]
        shares = [s for s in split_streams(concurrency, shape.replicas) if s > 0]
        budget = _budget(model, shape, used, context_tokens, max(shares), engine)
        problem = _shape_problem(shape, model)
        decode = aggregate = prefill = collective = None
        if problem is None:
            layout = Layout(
                tp=shape.tp,
                pp=shape.pp,
                ep=shape.ep,
                path=path,
                link_gbps=float(group.link_gbps),
                engine=engine,
                stage_layers=shape.stage_layers,
                bus_gbytes_per_s=group.bus_gbytes_per_s,
            )
            by_share = {
                s: predict(model, layout, context_tokens=context_tokens, concurrency=s, constants=c)
                for s in set(shares)
            }
            decode = by_share[shares[0]].decode_tps
            prefill = by_share[shares[0]].prefill_tps
            collective = by_share[shares[0]].collective_ms
            aggregate = sum(by_share[s].aggregate_tps for s in shares)
            fits = budget.free >= 0
            reason = _reason(shape, path, budget, fits, decode, aggregate, concurrency)
        else:
            fits = False
            reason = f"{_describe(shape, path)}. Not possible: {problem}."
        plans.append(
            Plan(
                strategy=shape.strategy,
                tp=shape.tp,
                pp=shape.pp,
                ep=shape.ep,
                replicas=shape.replicas,
                nodes=tuple(n.name for n in used),
                instances=tuple(tuple(n.name for n in i) for i in shape.instances),
                fits=fits,
                memory_per_node_gb=budget,
                decode_tps=decode,
                aggregate_tps=aggregate,
                prefill_tps=prefill,
                reason=reason,
                prediction_source=source,
                exchange_path=path,
                engine=engine,
                context_tokens=context_tokens,
                concurrency=concurrency,
                stage_layers=shape.stage_layers,
                collective_ms=collective,
            )
        )

    notes[:0] = _group_notes(group, c)
    recommended, runner_up, recommendation = _recommend(plans, goal, c.stream_overhead_ms)
    return PlanResult(
        plans=plans, recommended=recommended, notes=notes, recommendation=recommendation, runner_up=runner_up
    )


def _budget(
    model: ModelSpec, shape: _Shape, used: list[NodeSpec], context_tokens: int, streams: int, engine: str
) -> MemoryBudget:
    """The budget of the node that limits the plan: the smallest node with even
    stages; with uneven stages, the node left with the least free memory."""
    if not shape.stage_layers:
        return memory_budget(
            model,
            tp=shape.tp,
            pp=shape.pp,
            usable_gb=min(n.usable_gb for n in used),
            context_tokens=context_tokens,
            concurrency_per_instance=streams,
            engine=engine,
        )
    budgets = [
        memory_budget(
            model,
            tp=1,
            pp=shape.pp,
            usable_gb=node.usable_gb,
            context_tokens=context_tokens,
            concurrency_per_instance=streams,
            engine=engine,
            layer_share=layers / model.layers,
        )
        for node, layers in zip(shape.instances[0], shape.stage_layers, strict=True)
    ]
    return min(budgets, key=lambda b: b.free)


def _group_notes(group: GroupSpec, c: PerfConstants) -> list[str]:
    smallest = min(n.usable_gb for n in group.nodes)
    largest = max(n.usable_gb for n in group.nodes)
    notes = [
        f"Local memory: {smallest:.1f} GB usable on the smallest node"
        + (f", {largest:.1f} GB on the largest" if largest > smallest else "")
        + ".",
        f"Pooled memory: {sum(n.usable_gb for n in group.nodes):.1f} GB over {len(group.nodes)} node(s); "
        "usable only by splitting a model (TP/PP/EP), never as one local memory.",
        f"Exchange path: {group.kind}, slowest link {group.link_gbps:g} Gb/s.",
    ]
    if group.bus_gbytes_per_s:
        notes.append(
            f"Measured fabric used: TP's messages are priced at the latest fabric verification's "
            f"{group.bus_gbytes_per_s:.1f} GB/s bus bandwidth instead of the links' line rate."
        )
    if largest > smallest:
        notes.append(
            "Mixed memory sizes: symmetric sharding gives every node of a plan the share the smallest node can hold."
        )
    if group.kind == "switched" and group.collective_backend in (None, "auto", "rocenante"):
        notes.append(
            "Predicted with RoCEnante; it falls back to NCCL when its start-up self-test fails, "
            "so record the backend a run really used."
        )
    if group.collective_backend == "rocenante" and group.kind != "switched":
        notes.append("RoCEnante needs a switched group; NCCL is assumed here.")
    notes.append(f"Speeds: {prediction_source(c)}.")
    return notes


# A plan that spreads one copy over more nodes must be at least this much
# faster (one stream for latency, all streams for throughput) to be
# recommended over one with fewer nodes per copy: TP's per-token communication
# and fixed costs make small gains fragile, and fewer nodes per copy leave the
# rest free (or serve as more copies).
MORE_NODES_MARGIN = 0.10


def _metric(p: Plan, goal: str) -> float:
    return (p.decode_tps if goal == "latency" else p.aggregate_tps) or 0.0


def _recommend(plans: list[Plan], goal: str, stream_ms: float = 0.0) -> tuple[int | None, int | None, str]:
    """The recommended plan, the runner-up, and the words telling them apart."""
    fitting = [i for i, p in enumerate(plans) if p.fits and p.decode_tps is not None]
    if not fitting:
        if not plans:
            return None, None, "No plan."
        closest = max(range(len(plans)), key=lambda i: plans[i].memory_per_node_gb.free)
        p = plans[closest]
        return (
            None,
            None,
            (f"Nothing fits on this group. Closest: {p.label}, {-p.memory_per_node_gb.free:.1f} GB short per node."),
        )

    def key(i: int) -> tuple[float, float, int, int, int]:
        p = plans[i]
        first, second = (p.decode_tps, p.aggregate_tps) if goal == "latency" else (p.aggregate_tps, p.decode_tps)
        base = p.strategy.removesuffix("+replicas").replace("replicas", "single")
        return (
            round(first or 0.0, 6),
            round(second or 0.0, 6),
            -len(p.nodes),
            -p.replicas,
            -_STRATEGY_ORDER.index(base),
        )

    ranked = sorted(fitting, key=key, reverse=True)
    top = ranked[0]
    # fewer nodes per copy wins unless the faster plan beats it by the margin
    close = [i for i in ranked if _metric(plans[i], goal) >= _metric(plans[top], goal) * (1 - MORE_NODES_MARGIN)]
    best = min(close, key=lambda i: (plans[i].nodes_per_instance, -_metric(plans[i], goal)))
    # the runner-up is another way of spreading the model (more copies of the
    # same instance are the same way, for one stream)
    shape = (plans[best].tp, plans[best].pp, plans[best].ep, plans[best].stage_layers)
    others = [
        i
        for i in ranked
        if i != best
        and (goal == "throughput" or (plans[i].tp, plans[i].pp, plans[i].ep, plans[i].stage_layers) != shape)
    ]
    runner = others[0] if others else None
    return best, runner, _recommendation_words(plans, best, runner, goal, len(fitting), stream_ms)


def _recommendation_words(
    plans: list[Plan], best: int, runner: int | None, goal: str, fitting: int, stream_ms: float = 0.0
) -> str:
    p = plans[best]
    metric = "one stream" if goal == "latency" else f"{p.concurrency} streams together"
    unit = "tok/s"
    text = (
        f"Recommended: {p.label} ({p.strategy}) — {metric} ~{_metric(p, goal):.0f} {unit} predicted, "
        f"best of {fitting} fitting plan{'s' if fitting != 1 else ''}."
    )
    if runner is None:
        return text
    q = plans[runner]
    diff = (_metric(q, goal) / _metric(p, goal) - 1) * 100 if _metric(p, goal) else 0.0
    text += f" Runner-up: {q.label} ({q.strategy}) at ~{_metric(q, goal):.0f} {unit} ({diff:+.0f}%)"
    if _metric(q, goal) > _metric(p, goal):
        text += (
            f": faster, but it needs {q.nodes_per_instance} nodes per copy against "
            f"{p.nodes_per_instance}, and gains less than {MORE_NODES_MARGIN:.0%}"
        )
        if q.collective_ms:
            text += f" (its communication costs ~{q.collective_ms:.1f} ms per token)"
    elif (
        goal == "throughput"
        and q.replicas < p.replicas
        and q.nodes_per_instance > p.nodes_per_instance
        and stream_ms > 0
    ):
        text += (
            f": one instance batching all {p.concurrency} streams pays the engine's per-stream cost "
            f"(~{stream_ms:.1f} ms a step for each extra stream, not split by TP) for every one of them, "
            f"while {p.replicas} copies each pay it for their own share"
        )
    elif q.nodes_per_instance > p.nodes_per_instance and q.collective_ms:
        text += (
            f": spreading each copy over {q.nodes_per_instance} nodes costs ~{q.collective_ms:.1f} ms of "
            "communication per token, more than its bandwidth gain"
        )
    elif q.replicas != p.replicas:
        text += f": {q.replicas} cop{'ies' if q.replicas != 1 else 'y'} against {p.replicas}"
    return text + "."
