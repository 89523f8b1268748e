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

from dataclasses import dataclass, replace

from placement.model_catalogue import ModelSpec
from placement.perfmodel import (
    BORROWED,
    MODES,
    FigureClass,
    Layout,
    PerfConstants,
    batching_engine,
    copies_aggregate_tps,
    default_constants,
    headline_class,
    parallel_class,
    per_stream_ms,
    predict,
    predicted_range,
    prediction_source,
    single_source_alternative,
    spanning,
    split_streams,
)
from placement.perfmodel.evidence import (
    Configuration,
    PublishedRun,
    batching_trained_streams,
    checkpoint_split,
    held_out_evidence,
    published_runs,
    published_speculative_runs,
)
from placement.plan_memory import (
    ACTIVATION_CHUNK_TOKENS,
    ACTIVATION_VALUES_PER_HIDDEN,
    ENGINE_RESERVE_FRACTION,
    RUNTIME_OVERHEAD_GB,
    SPARK_64_USABLE_GB,
    SPARK_128_USABLE_GB,
    MemoryBudget,
    memory_budget,
)
from placement.plan_types import (
    BACKEND_HINTS,
    EXTRAPOLATED,
    GROUP_KINDS,
    GroupSpec,
    NodeSpec,
    Plan,
    PlanResult,
    with_range,
)
from placement.quants import engine_reference
from placement.recommendation import MORE_NODES_MARGIN, recommend

# The collective backends an engine's image ships: every published switched
# Spark run used NCCL over RoCE; RoCEnante (FlashInfer's all-to-all backend for
# switched Sparks) only where the vLLM image ships it and the plan asks for it.
ENGINE_BACKENDS: dict[str, tuple[str, ...]] = {
    "vllm": ("nccl", "rocenante"),
    "sglang": ("nccl",),
    "llama.cpp": ("rpc",),
}
# How a router in front of independent copies shares the streams: each
# request to a copy at random (LiteLLM's default simple-shuffle, which the
# published copy series used); an even split would be faster.
COPIES_ROUTER = "random"
ENGINES = ("vllm", "sglang", "llama.cpp")
GOALS = ("latency", "throughput")
# re-exported: the memory rules live in placement.plan_memory
__all__ = [
    "BACKEND_HINTS",
    "GROUP_KINDS",
    "MORE_NODES_MARGIN",
    "NVIDIA_SETUP_MAX_RING",
    "RING_IMAGE",
    "RING_NCCL",
    "recommend",
    "ring_launch_note",
    "with_range",
    "ACTIVATION_CHUNK_TOKENS",
    "ACTIVATION_VALUES_PER_HIDDEN",
    "ENGINE_RESERVE_FRACTION",
    "RUNTIME_OVERHEAD_GB",
    "SPARK_64_USABLE_GB",
    "SPARK_128_USABLE_GB",
    "GroupSpec",
    "MemoryBudget",
    "NodeSpec",
    "Plan",
    "PlanResult",
    "memory_budget",
    "plan_placement",
]


# --- enumeration ----------------------------------------------------------------


# A ring's NCCL: NVIDIA's cluster set-up script (dgx-spark-playbooks,
# multi-sparks-through-switch/assets/spark_cluster_setup) builds this branch
# for a three-node ring and refuses rings of four or more; the community
# image eugr/spark-vllm-docker builds its NCCL with the ring support in.
RING_NCCL = (
    "an NCCL build that runs on a ring (NVIDIA's cluster set-up script builds zyang-dev/nccl "
    "branch dgxspark-3node-ring for three nodes)"
)
RING_IMAGE = (
    "an engine image built with it, e.g. eugr/spark-vllm-docker's (FLEET_VLLM_IMAGE): "
    "the NGC image as shipped may fail at NCCL set-up on a ring"
)
NVIDIA_SETUP_MAX_RING = 3


def ring_launch_note(size: int) -> str:
    """What a ring's multi-node launch needs: the NCCL build and the image."""
    note = f"A ring launch needs {RING_NCCL}, and {RING_IMAGE}."
    if size > NVIDIA_SETUP_MAX_RING:
        note += (
            f" NVIDIA's cluster set-up script refuses rings of {NVIDIA_SETUP_MAX_RING + 1} or more "
            "(NVIDIA's own tests ran rings of 4 and 8): address the ring with this lab's netplan files."
        )
    return note


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def collective_backend(group: GroupSpec, engine: str, nodes_per_instance: int) -> str:
    """The backend a multi-node instance's collectives really use: NCCL over
    RoCE by default, RoCEnante only on a switch, when asked for, with an
    engine whose image ships it; llama.cpp's RPC over TCP."""
    if nodes_per_instance <= 1:
        return "none"
    if engine == "llama.cpp":
        return "rpc"
    if group.collective_backend == "rocenante" and group.kind == "switched" and "rocenante" in ENGINE_BACKENDS[engine]:
        return "rocenante"
    return "nccl"


def fabric_warning(group: GroupSpec, backend: str) -> str:
    """What a multi-node plan's prediction cannot count on: the group's latest
    fabric verification saw NCCL fall back to TCP sockets (empty otherwise;
    llama.cpp's RPC is TCP by design and one-node plans send nothing)."""
    if backend not in ("nccl", "rocenante") or not group.socket_hosts:
        return ""
    bus = f" {group.bus_gbytes_per_s:.1f} GB/s" if group.bus_gbytes_per_s else " bus bandwidth"
    return (
        f"The {_sockets_seen(group)}: this figure prices tensor parallelism's messages at its measured{bus} "
        "but each all-reduce's latency as RoCE's, which sockets do not reach (no published Spark run measures "
        "it), so it is optimistic. Fix RoCE (the verification's fabric-socket finding) and verify the group again."
    )


def _sockets_seen(group: GroupSpec) -> str:
    run = f" #{group.measured_run}" if group.measured_run else ""
    return f"latest fabric verification{run} saw NCCL on {', '.join(group.socket_hosts)} fall back to TCP sockets"


def _exchange_path(group: GroupSpec, nodes_per_instance: int, backend: str = "nccl") -> str:
    if nodes_per_instance <= 1:
        return "none"
    if group.kind == "direct":
        return "direct"
    if group.kind in ("ring", "chain"):
        return "ring"
    return "switched-rocenante" if backend == "rocenante" else "switched-nccl"


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
    connectx = [n for n in group.nodes if n.has_connectx]
    multi_sizes = _multi_sizes(group, engine, connectx, notes)
    return _single_shapes(list(group.nodes)) + _multi_shapes(group, model, engine, connectx, multi_sizes)


def _multi_sizes(group: GroupSpec, engine: str, connectx: list[NodeSpec], notes: list[str]) -> list[int]:
    """Instance sizes that use cluster links, as the group's cabling allows them
    (with a note for each limit it sets)."""
    nodes = list(group.nodes)
    rtx = [n.name for n in nodes if not n.has_connectx]
    if rtx:
        notes.append(f"No ConnectX-7 (RTX Spark): {', '.join(rtx)} can only run single-node plans.")
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
    if group.kind == "ring" and multi_sizes and engine != "llama.cpp":
        notes.append(ring_launch_note(len(nodes)))
    return multi_sizes


def _single_shapes(nodes: list[NodeSpec]) -> list[_Shape]:
    """One node, and independent one-node copies on every node (or on the largest only)."""
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
    return shapes


def _multi_shapes(
    group: GroupSpec, model: ModelSpec, engine: str, connectx: list[NodeSpec], multi_sizes: list[int]
) -> list[_Shape]:
    """Instances over several nodes: each split of each size, its copies on a switch, uneven stages."""
    shapes: list[_Shape] = []
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
    ranges: dict[str, tuple[float, float]] | None = None,
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
    ranges = ranges or {}
    if decode is not None and aggregate is not None:
        speed = f" Predicted: one stream {with_range(decode, ranges.get('decode'), 1)}"
        if concurrency > 1:
            speed += f"; {concurrency} streams together {with_range(aggregate, ranges.get('aggregate'))}"
        speed += "."
    return (
        f"{head}. Fits: {share} per node, {budget.free:.1f} GB free on the smallest node "
        f"({budget.usable:.1f} GB usable).{speed}"
    )


# --- the planner ------------------------------------------------------------------


def _input_errors(
    group: GroupSpec, model: ModelSpec, context_tokens: int, concurrency: int, engine: str, goal: str, mode: str
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
    if mode not in MODES:
        errors.append(("mode", f"one of {', '.join(MODES)}"))
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
    mode: str = "graphs",
) -> PlanResult:
    """Every candidate plan for `model` on `group`, and the recommended one.

    Plans that do not fit stay in the list with fits=False and the reason.
    `concurrency` counts all simultaneous streams (shared by the copies
    through a router, ``COPIES_ROUTER``). `mode`: the engine's CUDA-graph
    mode ("graphs", or "eager" for --enforce-eager).
    """
    errors = _input_errors(group, model, context_tokens, concurrency, engine, goal, mode)
    if errors:
        return PlanResult(
            plans=[], recommended=None, notes=["Nothing planned: fix the inputs."], recommendation="", errors=errors
        )
    c = constants or default_constants()
    source = prediction_source(c)
    notes: list[str] = []
    shapes = _shapes(group, model, engine, notes)
    checkpoint = launched_checkpoint(model, engine)

    plans: list[Plan] = []
    for shape in shapes:
        backend = collective_backend(group, engine, shape.tp * shape.pp)
        path = _exchange_path(group, shape.tp * shape.pp, backend)
        used = [n for inst in shape.instances for n in inst]
        shares = [s for s in split_streams(concurrency, shape.replicas) if s > 0]
        budget = _budget(model, shape, used, context_tokens, max(shares), engine)
        problem = _shape_problem(shape, model)
        decode = aggregate = prefill = collective = None
        held_out = held_out_prefill = None
        published: tuple[PublishedRun, ...] = ()
        drafted: tuple[PublishedRun, ...] = ()
        split = ""
        ranges: dict[str, tuple[float, float]] = {}
        basis = ""
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
                mode=mode,
            )
            at = (model, layout, context_tokens, shares[0], concurrency, shape.replicas)
            decode, prefill, collective, aggregate = _figures(*at, c)
            borrowed = None
            one_copy = parallel_class(shape.tp, shape.pp, shape.ep, 1)  # one instance's layout
            alternative = single_source_alternative(c, engine, one_copy)
            if alternative is not None:
                other_decode, other_prefill, _, other_aggregate = _figures(*at, alternative[0])
                borrowed = ((other_decode, other_aggregate, other_prefill), alternative[1])
            headline = headline_class(
                engine, shape.tp, shape.pp, shape.ep, shape.replicas, model.family, mode, concurrency
            )
            # a prompt is prefilled by one copy: its class is one copy's layout, not the copies'
            prefill_class = replace(headline, metric="prefill", parallel=one_copy)
            ranges, basis = _ranges(headline, prefill_class, (decode, aggregate, prefill), borrowed)
            held_out = held_out_evidence(headline, concurrency, model.is_moe)
            held_out_prefill = held_out_evidence(prefill_class, 1, model.is_moe)
            shape_key = (shape.tp, shape.pp, shape.ep, shape.replicas)
            config = Configuration(model.slug, model.quantization, engine, shape_key, path, mode, concurrency)
            published = published_runs(config)
            drafted = published_speculative_runs(config)
            split = checkpoint_split(published, checkpoint)
            fits = budget.free >= 0
            reason = _reason(shape, path, budget, fits, decode, aggregate, concurrency, ranges)
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
                collective_backend=backend,
                mode=mode,
                decode_tps_range=ranges.get("decode"),
                aggregate_tps_range=ranges.get("aggregate"),
                prefill_tps_range=ranges.get("prefill"),
                range_basis=basis,
                held_out=held_out,
                held_out_prefill=held_out_prefill,
                published_runs=published,
                published_speculative_runs=drafted,
                checkpoint=checkpoint,
                checkpoint_note=split,
                fabric_warning=fabric_warning(group, backend),
            )
        )

    notes[:0] = _group_notes(group, c, engine, mode)
    extrapolated = _extrapolated(plans, engine)
    notes += [f"{EXTRAPOLATED} {words}" for words in extrapolated]
    recommended, runner_up, recommendation = recommend(plans, goal, per_stream_ms(model, engine, c))
    if recommended is not None and (held := plans[recommended].held_out) is not None and held.badge:
        recommendation += (
            f" Held out of the fit, {held.figures} published runs of its kind were predicted "
            f"{held.badge.removeprefix('held-out: ')} at the median: weigh its figure with that."
        )
    if recommended is not None and plans[recommended].fabric_warning:
        recommendation += (
            " NCCL fell back to TCP sockets in the group's latest fabric verification: this multi-node figure "
            "is optimistic until RoCE works."
        )
    return PlanResult(
        plans=plans,
        recommended=recommended,
        notes=notes,
        recommendation=recommendation,
        runner_up=runner_up,
        extrapolated=extrapolated,
    )


def _figures(
    model: ModelSpec, layout: Layout, context: int, first: int, concurrency: int, copies: int, k: PerfConstants
) -> tuple[float, float, float, float]:
    """One instance's decode (at the first copy's share of the streams),
    prefill and collective time, and all copies' aggregate."""
    one = predict(model, layout, context_tokens=context, concurrency=first, constants=k)
    aggregate = copies_aggregate_tps(
        model, layout, context_tokens=context, concurrency=concurrency, copies=copies, router=COPIES_ROUTER, constants=k
    )
    return one.decode_tps, one.prefill_tps, one.collective_ms, aggregate


def _ranges(
    headline: FigureClass,
    prefill_class: FigureClass,
    figures: tuple[float, float, float],
    borrowed: tuple[tuple[float, float, float], str] | None = None,
) -> tuple[dict[str, tuple[float, float]], str]:
    """Each predicted figure's range (decode, aggregate, prefill), from the
    model's errors on comparable published runs (same engine, parallelism,
    family and mode as the plan's ``headline`` figure when there are enough;
    the prefill's those of ``prefill_class``, one copy's layout), and what
    the headline's was drawn from, in words. ``borrowed``: the same
    figures with vLLM's tensor-parallel costs and the one published
    experiment that set the engine's own; the ranges then span both."""
    several = headline.metric == "aggregate"
    decode, aggregate, prefill = figures
    out: dict[str, tuple[float, float]] = {}
    basis = ""

    def shown(d: float, a: float, p: float) -> tuple[float, float, float]:
        """decode, aggregate, prefill: one stream's decode stands for the aggregate of one."""
        return d, a if several else d, p

    values = shown(decode, aggregate, prefill)
    others = shown(*borrowed[0]) if borrowed is not None else None
    for i, metric in enumerate(("decode", "aggregate", "prefill")):
        value = values[i]
        cls = prefill_class if metric == "prefill" else replace(headline, metric=metric)
        r = predicted_range(value, cls)
        if borrowed is not None and others is not None:
            r = spanning(r, value, others[i], headline.engine, borrowed[1])
        out[metric] = (r.low, r.high)
        if metric == headline.metric:
            basis = f"from the model's errors on published {r.basis} it was not fitted on ({r.residuals} figures)"
            basis += f"; {r.note}" if r.note else ""
    return out, basis


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


def launched_checkpoint(model: ModelSpec, engine: str) -> str:
    """The repository ``engine`` loads the plan's variant from (a GGUF
    repository for llama.cpp), or empty when the catalogue names none."""
    return engine_reference(model.default_variant(), engine).repo or ""


def _group_notes(group: GroupSpec, c: PerfConstants, engine: str, mode: str) -> list[str]:
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
    notes += _backend_notes(group, engine)
    if mode == "eager":
        notes.append(
            "Eager mode (--enforce-eager): every kernel is launched from the CPU; its cost is fitted on two "
            "published eager series that disagree, so its ranges are wide."
        )
    borrowed = BORROWED.get(engine, ())
    if borrowed:
        them = "it" if len(borrowed) == 1 else "them"
        notes.append(f"{engine}: {', '.join(borrowed)} borrowed from vLLM (no published {engine} run sets {them}).")
    notes.append(f"Speeds: {prediction_source(c)}.")
    return notes


def _extrapolated(plans: list[Plan], engine: str) -> list[str]:
    """Which fitting plans batch more streams in one instance than any
    published run the model's batching is fitted on, in words: their
    all-streams figures are extrapolated, and say so."""
    beyond: dict[tuple[str, int], list[str]] = {}
    for p in plans:
        source = batching_engine(Layout(tp=p.tp, engine=engine))
        trained = batching_trained_streams(source)
        if p.fits and split_streams(p.concurrency, p.replicas)[0] > trained:
            beyond.setdefault((source, trained), []).append(p.label)
    words = []
    for (source, trained), labels in sorted(beyond.items()):
        one = len(labels) == 1
        words.append(
            f"{', '.join(labels)} batch{'es' if one else ''} more streams in one instance than the "
            f"{trained} of the most-loaded published {source} run the model's batching is fitted on; "
            f"{'its' if one else 'their'} all-streams figure{'' if one else 's'} and range{'' if one else 's'} "
            "reach past every run it has seen."
        )
    return words


def _backend_notes(group: GroupSpec, engine: str) -> list[str]:
    if len(group.nodes) < 2:
        return []
    if engine == "llama.cpp":
        return ["Collectives: llama.cpp's RPC over TCP on the cluster link (pipeline stages only)."]
    sockets = ""
    if group.socket_hosts:
        sockets = (
            f" But the {_sockets_seen(group)}: multi-node figures here assume RoCE's latency and are optimistic "
            "until RoCE works."
        )
    asked = group.collective_backend == "rocenante"
    if asked and group.kind == "switched" and "rocenante" in ENGINE_BACKENDS[engine]:
        return [
            "Collectives: RoCEnante (FlashInfer's all-to-all backend), as asked: it needs a vLLM image that "
            "ships it, and it falls back to NCCL when its start-up self-test fails, so record the backend a "
            "run really used (multi-node plans with NCCL predict slower)." + sockets
        ]
    text = f"Collectives: NCCL over RoCE, what {engine}'s image uses (every published switched Spark run used it)."
    if asked:
        why = "a switched group" if group.kind != "switched" else f"an engine whose image ships it ({engine} does not)"
        text += f" RoCEnante was asked for but needs {why}."
    elif group.kind == "switched" and "rocenante" in ENGINE_BACKENDS[engine]:
        text += " RoCEnante is predicted only when asked for (collective_backend 'rocenante')."
    return [text + sockets]
