"""Placement API: the model catalogue, plans for a group, benchmark records
and runs. Thin: parse, call one service or selector, return. Numbers in
bodies are strict (a string where a number belongs is refused, naming it).
"""
from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Query, Router, Schema, Status
from pydantic import Strict

from core.actor import Actor
from core.api import ADMIN, BOOK
from inventory.models import NodeGroup

from . import benchmarks, planning, runs, selectors, services
from .calibration import lab_calibration
from .errors import PlacementError
from .model_catalogue import ModelSpec, choose_variant
from .models import BenchmarkRun, LlmModel
from .planner import ENGINES
from .quants import ModelVariant, engine_reference

router = Router(tags=["placement"])

Int = Annotated[int, Strict()]
Num = Annotated[float, Strict()]  # strict float still takes an int, never a string


# ------------------------------------------------------------------ models


class ModelIn(Schema):
    slug: str
    name: str
    params_b: Num
    active_params_b: Num | None = None
    layers: Int
    hidden_size: Int
    heads: Int
    kv_heads: Int
    head_dim: Int
    experts: Int = 0
    experts_per_token: Int = 0
    quantization: str
    weights_gb: Num | None = None
    max_context: Int
    kv_layers: Int | None = None
    kv_cache_dim: Int | None = None
    hf_repo: str = ""
    notes: str = ""


class ModelOut(Schema):
    slug: str
    name: str
    params_b: float
    active_params_b: float
    layers: int
    hidden_size: int
    heads: int
    kv_heads: int
    head_dim: int
    experts: int
    experts_per_token: int
    quantization: str
    weights_gb: float | None
    max_context: int
    kv_layers: int | None
    kv_cache_dim: int | None
    hf_repo: str
    notes: str
    estimated_fields: list[str]
    origin: str
    weights_size_gb: float
    kv_bytes_per_token: float
    variants: list[VariantOut]


class EngineRefOut(Schema):
    loadable: bool
    ref: str | None
    repo: str | None
    file: str | None
    reason: str | None


class VariantOut(Schema):
    quantization: str
    format: str
    bits_per_weight: float
    default: bool
    weights_gb: float | None
    weights_size_gb: float
    hf_repo: str
    gguf_repo: str
    gguf_file: str
    notes: str
    engines: dict[str, EngineRefOut]


class VariantIn(Schema):
    quantization: str
    weights_gb: Num | None = None
    hf_repo: str = ""
    gguf_repo: str = ""
    gguf_file: str = ""
    notes: str = ""


class ConfigIn(Schema):
    slug: str
    quantization: str
    config: str | dict[str, Any]
    name: str | None = None
    params_b: Num | None = None
    active_params_b: Num | None = None
    weights_gb: Num | None = None
    hf_repo: str = ""


def variant_out(spec: ModelSpec, variant: ModelVariant) -> dict[str, Any]:
    refs = {engine: engine_reference(variant, engine) for engine in ENGINES}
    return {
        "quantization": variant.quantization, "format": variant.format.container,
        "bits_per_weight": variant.format.bits_per_weight, "default": variant.quantization == spec.quantization,
        "weights_gb": variant.weights_gb, "weights_size_gb": round(variant.weights_size_gb(spec.params_b), 3),
        "hf_repo": variant.hf_repo, "gguf_repo": variant.gguf_repo, "gguf_file": variant.gguf_file,
        "notes": variant.notes,
        "engines": {e: {"loadable": r.loadable, "ref": r.ref, "repo": r.repo, "file": r.file, "reason": r.reason}
                    for e, r in refs.items()},
    }


def model_out(row: LlmModel) -> dict[str, Any]:
    spec = row.spec()
    data = {f: getattr(row, f) for f in ModelOut.model_fields if hasattr(row, f) and f != "variants"}
    data.update(weights_size_gb=round(spec.weights_size_gb(), 3), kv_bytes_per_token=spec.kv_bytes_per_token(),
                variants=[variant_out(spec, v) for v in spec.all_variants()])
    return data


@router.get("/models", response=list[ModelOut])
def models_list(request: HttpRequest) -> Any:
    return [model_out(m) for m in selectors.models_list()]


@router.post("/models", response={201: ModelOut}, auth=ADMIN)
def models_create(request: HttpRequest, payload: ModelIn) -> Any:
    fields = payload.dict()
    if fields["active_params_b"] is None:
        fields["active_params_b"] = fields["params_b"]  # a dense model uses them all
    row = services.model_create(actor=Actor.from_request(request, "api"), fields=fields)
    return Status(201, model_out(row))


@router.post("/models/config", response={201: ModelOut}, auth=ADMIN)
def models_from_config(request: HttpRequest, payload: ConfigIn) -> Any:
    """Add a model from a Hugging Face config.json, read here: nothing is downloaded."""
    data = payload.dict()
    row = services.model_create_from_config(actor=Actor.from_request(request, "api"), **data)
    return Status(201, model_out(row))


@router.delete("/models/{slug}", response={204: None}, auth=ADMIN)
def models_delete(request: HttpRequest, slug: str) -> Any:
    row = selectors.model_get(slug, "slug")
    services.model_delete(actor=Actor.from_request(request, "api"), model=row)
    return Status(204, None)


@router.post("/models/{slug}/variants", response={201: ModelOut}, auth=ADMIN)
def variants_create(request: HttpRequest, slug: str, payload: VariantIn) -> Any:
    """Add a quantized variant (a GGUF file, another safetensors repository) to a model."""
    row = selectors.model_get(slug, "slug")
    services.variant_create(actor=Actor.from_request(request, "api"), model=row, fields=payload.dict())
    return Status(201, model_out(selectors.model_get(slug, "slug")))


@router.delete("/models/{slug}/variants/{quantization}", response={204: None}, auth=ADMIN)
def variants_delete(request: HttpRequest, slug: str, quantization: str) -> Any:
    row = selectors.model_get(slug, "slug")
    services.variant_delete(actor=Actor.from_request(request, "api"), model=row, quantization=quantization)
    return Status(204, None)


# ------------------------------------------------------------------ plans


class PlanIn(Schema):
    model: str
    group: Int | None = None
    nodes: list[str] | None = None
    context_tokens: Int = 8192
    concurrency: Int = 1
    goal: str = "latency"
    engine: str = "vllm"
    variant: str | None = None


def plan_out(item: planning.PlannedPlan) -> dict[str, Any]:
    p, m = item.plan, item.plan.memory_per_node_gb
    return {
        "strategy": p.strategy, "label": p.label, "tp": p.tp, "pp": p.pp, "ep": p.ep, "replicas": p.replicas,
        "stage_layers": list(p.stage_layers), "collective_ms": p.collective_ms,
        "nodes": list(p.nodes), "instances": [list(i) for i in p.instances], "fits": p.fits,
        "memory_per_node_gb": {"weights": round(m.weights, 3), "kv_cache": round(m.kv_cache, 3),
                               "overhead": round(m.overhead, 3), "reserve": round(m.reserve, 3),
                               "usable": round(m.usable, 3), "free": round(m.free, 3)},
        "decode_tps": p.decode_tps, "aggregate_tps": p.aggregate_tps, "prefill_tps": p.prefill_tps,
        "reason": p.reason, "exchange_path": p.exchange_path, "engine": p.engine,
        "launch": {name: item.launch_text(name) for name in item.launch},
        "launch_problems": item.launch_problems,
    }


def planning_for(payload: dict[str, Any]) -> planning.Planning:
    group_id, nodes = payload.get("group"), payload.get("nodes")
    if (group_id is None) == (nodes is None):
        raise PlacementError("give either group (an id) or nodes (Spark names), not both or neither", "group")
    model = selectors.model_get(payload.get("model"))
    choice = choose_variant(model.spec(), str(payload.get("engine", "vllm")), payload.get("variant"))
    if choice.error:
        raise PlacementError(choice.error, "variant")
    spec = choice.spec
    inputs = planning.plan_input(context_tokens=payload.get("context_tokens", 8192),
                                 concurrency=payload.get("concurrency", 1), goal=payload.get("goal", "latency"),
                                 engine=payload.get("engine", "vllm"), model=spec)
    planned = (selectors.groupspec_for(selectors.live_group_or_error(group_id)) if group_id is not None
               else selectors.groupspec_for_nodes(nodes))
    result = planning.plan_group(group=planned, model=spec, inputs=inputs,
                                 constants=lab_calibration().constants)
    if choice.note:
        result.result.notes.insert(0, choice.note)
    return result


@router.post("/plans")
def plans_create(request: HttpRequest, payload: PlanIn) -> Any:
    """Every candidate plan for a model on a group (by id) or on Sparks named by hand."""
    result = planning_for(payload.dict())
    g = result.group
    return {
        "plans": [plan_out(p) for p in result.plans], "recommended": result.result.recommended,
        "runner_up": result.result.runner_up,
        "recommendation": result.result.recommendation, "notes": result.result.notes,
        "prediction_source": result.source, "model": result.model.slug,
        "variant": result.model.quantization,
        "group": {"id": g.group.pk if g.group else None, "name": g.label, "kind": g.spec.kind,
                  "nodes": [n.name for n in g.spec.nodes], "link_gbps": g.spec.link_gbps,
                  "link_source": "observed" if g.state and g.state.slowest_observed else "expected",
                  "usable_gb": {n.name: n.usable_gb for n in g.spec.nodes},
                  "health": g.state.health if g.state else "unknown",
                  "addresses": "telemetry" if g.addresses_measured else "placeholder"},
        "warnings": [{"node": s.name, "health": s.health, "alerts": list(s.alerts), "why": s.why}
                     for s in result.unhealthy],
        "without": _without(result),
    }


def _without(result: planning.Planning) -> dict[str, Any] | None:
    """The plans without the group's degraded or down Sparks (None when all are healthy)."""
    if not result.unhealthy:
        return None
    alt = result.alternative
    return {"nodes": result.without, "problem": result.alternative_problem,
            "plans": [plan_out(p) for p in alt.plans] if alt else [],
            "recommended": alt.result.recommended if alt else None,
            "recommendation": alt.result.recommendation if alt else ""}


# ------------------------------------------------------------------ benchmarks


class BenchmarkOut(Schema):
    id: int
    source: str
    reference: str
    reading: str
    group: int | None
    group_name: str
    topology_kind: str
    group_nodes: list[str]
    nodes: list[str]
    node_count: int
    link_gbps: float | None
    model: str
    engine: str
    engine_version: str
    backend: str
    tp: int
    pp: int
    concurrency: int
    input_len: int | None
    output_len: int | None
    prefill_tps: float | None
    decode_tps: float | None
    ttft_ms: float | None
    tpot_ms: float | None
    derived: list[str]
    notes: str
    measured_at: datetime | None
    status: str
    error: str
    created_by: str


def bench_out(run: BenchmarkRun) -> dict[str, Any]:
    data = {f: getattr(run, f) for f in BenchmarkOut.model_fields if f not in ("group", "model", "created_by")}
    data.update(group=run.group_id, model=run.model_name, created_by=run.created_by_name)
    return data


class BenchmarkIn(Schema):
    model: str
    group: Int | None = None
    nodes: list[str] | None = None
    source: Literal["measured", "published"] = "measured"
    reference: str = ""
    topology_kind: str | None = None
    node_count: Int | None = None
    engine: str = "vllm"
    engine_version: str = ""
    backend: str = "unknown"
    tp: Int | None = None
    pp: Int | None = None
    concurrency: Int = 1
    input_len: Int | None = None
    output_len: Int | None = None
    prefill_tps: Num | None = None
    decode_tps: Num
    ttft_ms: Num | None = None
    tpot_ms: Num | None = None
    measured_at: datetime | None = None
    notes: str = ""


class UploadIn(Schema):
    model: str
    group: Int
    content: str | dict[str, Any] | list[Any]
    format: str = "auto"
    nodes: list[str] | None = None
    backend: str = "unknown"
    engine_version: str = ""
    concurrency: Int | None = None
    tp: Int | None = None
    pp: Int | None = None
    notes: str = ""


class RunIn(Schema):
    group: Int
    model: str
    concurrency: Int = 1
    input_len: Int = 128
    output_len: Int = 128
    num_prompts: Int = 10


class BenchFilter(Schema):
    group: int | None = None
    model: str | None = None


@router.get("/benchmarks", response=list[BenchmarkOut])
def benchmarks_list(request: HttpRequest, filters: Query[BenchFilter]) -> Any:
    group = None
    if filters.group is not None:
        group = NodeGroup.objects.filter(pk=filters.group).first()  # a retired group keeps its history
        if group is None:
            raise PlacementError(f"no node group with id {filters.group}", "group")
    model = selectors.model_get(filters.model) if filters.model else None
    return [bench_out(r) for r in selectors.benchmarks_list(group=group, model=model, include_published=False)]


@router.post("/benchmarks", response={201: BenchmarkOut}, auth=BOOK)
def benchmarks_create(request: HttpRequest, payload: BenchmarkIn) -> Any:
    data = {k: v for k, v in payload.dict().items() if v is not None}
    return Status(201, bench_out(benchmarks.benchmark_create(actor=Actor.from_request(request, "api"), data=data)))


@router.post("/benchmarks/upload", response={201: BenchmarkOut}, auth=BOOK)
def benchmarks_upload(request: HttpRequest, payload: UploadIn) -> Any:
    """A record from the JSON `vllm bench serve --save-result` writes, its console summary,
    or `llama-bench -o json` output (as text, or as the parsed JSON)."""
    data = payload.dict()
    content = data.pop("content")
    if not isinstance(content, str):
        content = json.dumps(content)
    fmt = data.pop("format")
    run = benchmarks.benchmark_upload(actor=Actor.from_request(request, "api"), text=content, fmt=fmt, data=data)
    return Status(201, bench_out(run))


@router.post("/benchmarks/runs", response={202: BenchmarkOut}, auth=BOOK)
def benchmarks_run(request: HttpRequest, payload: RunIn) -> Any:
    """Start `vllm bench serve` on the group's head node (a group you hold now)."""
    data = payload.dict()
    run = runs.run_start(actor=Actor.from_request(request, "api"), group_id=data.pop("group"), **data)
    return Status(202, bench_out(run))
