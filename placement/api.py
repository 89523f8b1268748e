"""Placement API: the model catalogue and plans for a group. Thin: parse,
call one service or selector, return. Numbers in bodies are strict (a
string where a number belongs is refused, naming it).
"""

from __future__ import annotations

# The edge types (core.validation) are built by functions, which mypy cannot read as types.
# mypy: disable-error-code="valid-type"
import typing
from dataclasses import MISSING
from dataclasses import fields as dataclass_fields
from typing import Annotated, Any

from django.http import HttpRequest
from ninja import Field, Router, Schema, Status
from pydantic import Strict, create_model

from core.actor import Actor
from core.api import ADMIN
from core.validation import INT32, PATCH_ONLY_KNOWN, CleanStr, JsonData, MultiLineStr
from telemetry.selectors import software_drift_of

from . import plan_request, selectors, services
from .errors import PlacementError
from .lab_calibration import lab_calibration, lab_runs
from .model_catalogue import MAX_CONTEXT_TOKENS, SPEC_NUMBER_RANGES, SPEC_TEXT_LENGTHS, ModelSpec, choose_variant
from .models import LlmModel
from .planner import ENGINES
from .quants import ModelVariant, engine_reference

router = Router(tags=["placement"])


def Int(low: int = 0, high: int = INT32) -> Any:  # noqa: N802
    return Annotated[int, Strict(), Field(ge=low, le=high)]


def Num(low: float = 0, high: float = 1e9) -> Any:  # noqa: N802 - strict float still takes an int, never a string
    return Annotated[float, Strict(), Field(ge=low, le=high, allow_inf_nan=False)]


Slug = CleanStr(100, min_length=1)
Quantization = CleanStr(12, min_length=1)
Repo = CleanStr(200)
Notes = MultiLineStr(10_000)
SparkName = CleanStr(63, min_length=1)
Names = list[SparkName]
GroupId = Int(1, 2**63 - 1)
Tps = Num(0, 10_000_000)  # tokens/s: far above any node
Ms = Num(0, 86_400_000)  # a day in milliseconds
Count = Int(1, 1_000_000)
Tokens = Int(1, 100_000_000)
Width = Int(1, 4096)  # tp, pp, nodes


# ------------------------------------------------------------------ models
# ModelIn and ModelOut are derived from the one definition of a model's
# figures, placement.model_catalogue.ModelSpec, and its limits table.

_SPEC_HINTS = typing.get_type_hints(ModelSpec)
_SPEC_FIELDS = [f for f in dataclass_fields(ModelSpec) if f.name not in ("variants", "estimated_fields")]
# What a new model may leave out through the API, and what it then gets.
_MODEL_IN_DEFAULTS: dict[str, Any] = {"active_params_b": None, "experts": 0, "experts_per_token": 0, "weights_gb": None}


def _edge_type(name: str) -> Any:
    hint = _SPEC_HINTS[name]
    optional = type(None) in typing.get_args(hint)
    base = next((a for a in typing.get_args(hint) if a is not type(None)), hint) if optional else hint
    if base is str:
        edge = (
            Notes
            if name == "notes"
            else CleanStr(SPEC_TEXT_LENGTHS[name], min_length=0 if name in ("hf_repo", "notes", "linear_kind") else 1)
        )
    elif base is int:
        edge = Int(*(int(x) for x in SPEC_NUMBER_RANGES[name]))
    else:
        edge = Num(*SPEC_NUMBER_RANGES[name])
    return edge | None if optional or _MODEL_IN_DEFAULTS.get(name, 0) is None else edge


def _default(name: str, field: Any) -> Any:
    if name in _MODEL_IN_DEFAULTS:
        return _MODEL_IN_DEFAULTS[name]
    return ... if field.default is MISSING else field.default


class KnownFieldsOnly(Schema):
    """A body naming a field the operation does not take is refused (422 naming it):
    a misspelt ``contxt_tokens`` planned the default context without a word."""

    model_config = PATCH_ONLY_KNOWN


ModelIn: Any = create_model(  # type: ignore[call-overload]
    "ModelIn", __base__=KnownFieldsOnly, **{f.name: (_edge_type(f.name), _default(f.name, f)) for f in _SPEC_FIELDS}
)


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


ModelOut: Any = create_model(  # type: ignore[call-overload]
    "ModelOut",
    __base__=Schema,
    **{f.name: (_SPEC_HINTS[f.name], ...) for f in _SPEC_FIELDS},
    estimated_fields=(list[str], ...),
    origin=(str, ...),
    weights_size_gb=(float, ...),
    kv_bytes_per_token=(float, ...),
    variants=(list[VariantOut], ...),
)


class VariantIn(KnownFieldsOnly):
    quantization: Quantization
    weights_gb: Num(*SPEC_NUMBER_RANGES["weights_gb"]) | None = None
    hf_repo: Repo = ""
    gguf_repo: Repo = ""
    gguf_file: CleanStr(255) = ""
    notes: Notes = ""


class ConfigIn(KnownFieldsOnly):
    slug: Slug
    quantization: Quantization
    config: CleanStr(1_000_000) | JsonData
    name: CleanStr(120, min_length=1) | None = None
    params_b: Num(*SPEC_NUMBER_RANGES["params_b"]) | None = None
    active_params_b: Num(*SPEC_NUMBER_RANGES["active_params_b"]) | None = None
    weights_gb: Num(*SPEC_NUMBER_RANGES["weights_gb"]) | None = None
    hf_repo: Repo = ""


def variant_out(spec: ModelSpec, variant: ModelVariant) -> dict[str, Any]:
    refs = {engine: engine_reference(variant, engine) for engine in ENGINES}
    return {
        "quantization": variant.quantization,
        "format": variant.format.container,
        "bits_per_weight": variant.format.bits_per_weight,
        "default": variant.quantization == spec.quantization,
        "weights_gb": variant.weights_gb,
        "weights_size_gb": round(variant.weights_size_gb(spec.params_b), 3),
        "hf_repo": variant.hf_repo,
        "gguf_repo": variant.gguf_repo,
        "gguf_file": variant.gguf_file,
        "notes": variant.notes,
        "engines": {
            e: {"loadable": r.loadable, "ref": r.ref, "repo": r.repo, "file": r.file, "reason": r.reason}
            for e, r in refs.items()
        },
    }


def model_out(row: LlmModel) -> dict[str, Any]:
    spec = row.spec()
    data = {f: getattr(row, f) for f in ModelOut.model_fields if hasattr(row, f) and f != "variants"}
    data.update(
        weights_size_gb=round(spec.weights_size_gb(), 3),
        kv_bytes_per_token=spec.kv_bytes_per_token(),
        variants=[variant_out(spec, v) for v in spec.all_variants()],
    )
    return data


@router.get("/models", response=list[ModelOut])
def models_list(request: HttpRequest) -> Any:
    return [model_out(m) for m in selectors.models_list()]


@router.post("/models", response={201: ModelOut}, auth=ADMIN)
def models_create(request: HttpRequest, payload: ModelIn) -> Any:
    fields = payload.model_dump()
    if fields["active_params_b"] is None:
        fields["active_params_b"] = fields["params_b"]  # a dense model uses them all
    row = services.model_create(actor=Actor.from_request(request, "api"), fields=fields)
    return Status(201, model_out(row))


@router.post("/models/config", response={201: ModelOut}, auth=ADMIN)
def models_from_config(request: HttpRequest, payload: ConfigIn) -> Any:
    """Add a model from a Hugging Face config.json, read here: nothing is downloaded."""
    row = services.model_create_from_config(
        actor=Actor.from_request(request, "api"),
        config=payload.config,
        slug=payload.slug,
        quantization=payload.quantization,
        name=payload.name,
        params_b=payload.params_b,
        active_params_b=payload.active_params_b,
        weights_gb=payload.weights_gb,
        hf_repo=payload.hf_repo,
    )
    return Status(201, model_out(row))


@router.delete("/models/{slug}", response={204: None}, auth=ADMIN)
def models_delete(request: HttpRequest, slug: Slug) -> Any:
    row = selectors.model_at(slug)
    services.model_delete(actor=Actor.from_request(request, "api"), model=row)
    return Status(204, None)


@router.post("/models/{slug}/variants", response={201: ModelOut}, auth=ADMIN)
def variants_create(request: HttpRequest, slug: Slug, payload: VariantIn) -> Any:
    """Add a quantized variant (a GGUF file, another safetensors repository) to a model."""
    row = selectors.model_at(slug)
    services.variant_create(
        actor=Actor.from_request(request, "api"),
        model=row,
        quantization=payload.quantization,
        weights_gb=payload.weights_gb,
        hf_repo=payload.hf_repo,
        gguf_repo=payload.gguf_repo,
        gguf_file=payload.gguf_file,
        notes=payload.notes,
    )
    return Status(201, model_out(selectors.model_get(slug, "slug")))


@router.delete("/models/{slug}/variants/{quantization}", response={204: None}, auth=ADMIN)
def variants_delete(request: HttpRequest, slug: Slug, quantization: Quantization) -> Any:
    row = selectors.model_at(slug)
    services.variant_delete(actor=Actor.from_request(request, "api"), model=row, quantization=quantization)
    return Status(204, None)


# ------------------------------------------------------------------ plans


class PlanIn(KnownFieldsOnly):
    model: Slug
    group: GroupId | None = None
    nodes: Names | None = Field(None, max_length=256)
    # the planner's own limits, so that /api/openapi.json states what is taken
    context_tokens: Int(1, MAX_CONTEXT_TOKENS) = 8192
    concurrency: Int(1, plan_request.MAX_CONCURRENCY) = 1
    goal: CleanStr(20) = "latency"
    engine: CleanStr(20) = "vllm"
    variant: Quantization | None = None
    mode: CleanStr(20) = "graphs"
    collective_backend: CleanStr(20) = "auto"


def _range(bounds: tuple[float, float] | None) -> list[float] | None:
    return None if bounds is None else [round(bounds[0], 2), round(bounds[1], 2)]


def plan_out(item: plan_request.PlannedPlan) -> dict[str, Any]:
    p, m = item.plan, item.plan.memory_per_node_gb
    return {
        "strategy": p.strategy,
        "label": p.label,
        "tp": p.tp,
        "pp": p.pp,
        "ep": p.ep,
        "replicas": p.replicas,
        "stage_layers": list(p.stage_layers),
        "collective_ms": p.collective_ms,
        "nodes": list(p.nodes),
        "instances": [list(i) for i in p.instances],
        "fits": p.fits,
        "memory_per_node_gb": {
            "weights": round(m.weights, 3),
            "kv_cache": round(m.kv_cache, 3),
            "overhead": round(m.overhead, 3),
            "reserve": round(m.reserve, 3),
            "usable": round(m.usable, 3),
            "free": round(m.free, 3),
        },
        "decode_tps": p.decode_tps,
        "aggregate_tps": p.aggregate_tps,
        "prefill_tps": p.prefill_tps,
        "decode_tps_range": _range(p.decode_tps_range),
        "aggregate_tps_range": _range(p.aggregate_tps_range),
        "prefill_tps_range": _range(p.prefill_tps_range),
        "range_basis": p.range_basis,
        "held_out": p.held_out.as_dict() if p.held_out else None,
        "held_out_prefill": p.held_out_prefill.as_dict() if p.held_out_prefill else None,
        "published_runs": [r.as_dict() for r in p.published_runs],
        "published_speculative_runs": [r.as_dict() for r in p.published_speculative_runs],
        "checkpoint": p.checkpoint,
        "checkpoint_note": p.checkpoint_note,
        "lab_runs": [r.as_dict() for r in p.lab_runs],
        "reason": p.reason,
        "exchange_path": p.exchange_path,
        "collective_backend": p.collective_backend,
        "fabric_warning": p.fabric_warning,
        "mode": p.mode,
        "engine": p.engine,
        "launch": {name: item.launch_text(name) for name in item.launch},
        "launch_problems": item.launch_problems,
    }


def planning_for(payload: PlanIn) -> plan_request.Planning:
    group_id, nodes = payload.group, payload.nodes
    if (group_id is None) == (nodes is None):
        raise PlacementError("give either group (an id) or nodes (Spark names), not both or neither", "group")
    model = selectors.model_get(payload.model)
    choice = choose_variant(model.spec(), payload.engine, payload.variant)
    if choice.error:
        raise PlacementError(choice.error, "variant")
    spec = choice.spec
    inputs = plan_request.plan_input(
        context_tokens=payload.context_tokens,
        concurrency=payload.concurrency,
        goal=payload.goal,
        engine=payload.engine,
        model=spec,
        mode=payload.mode,
        backend=payload.collective_backend,
    )
    planned = (
        selectors.groupspec_for(selectors.live_group_or_error(group_id))
        if group_id is not None
        else selectors.groupspec_for_nodes(nodes)
    )
    runs = lab_runs()
    result = plan_request.plan_group(
        group=planned, model=spec, inputs=inputs, constants=lab_calibration(runs).constants, lab=runs
    )
    if choice.note:
        result.result.notes.insert(0, choice.note)
    return result


@router.post("/plans")
def plans_create(request: HttpRequest, payload: PlanIn) -> Any:
    """Every candidate plan for a model on a group (by id) or on Sparks named by hand."""
    result = planning_for(payload)
    g = result.asked or result.group  # the group asked for; the plans may be on the part of it that works
    return {
        "plans": [plan_out(p) for p in result.plans],
        "recommended": result.result.recommended,
        "runner_up": result.result.runner_up,
        "recommendation": result.result.recommendation,
        "notes": result.result.notes,
        "prediction_source": result.source,
        "model": result.model.slug,
        "variant": result.model.quantization,
        "group": {
            "id": g.group.pk if g.group else None,
            "name": g.label,
            "kind": g.spec.kind,
            "nodes": [n.name for n in g.spec.nodes],
            "link_gbps": g.state.slowest_gbps if result.asked and g.state else g.spec.link_gbps,
            "link_source": "observed" if g.state and g.state.slowest_observed else "expected",
            "usable_gb": {n.name: n.usable_gb for n in g.spec.nodes},
            "left_out": [s.name for s in result.left_out],
            "health": g.state.health if g.state else "unknown",
            "addresses": "telemetry" if g.addresses_measured else "placeholder",
            # the latest fabric verification the plans read (None: never measured)
            "fabric": _fabric(g.spec),
        },
        "warnings": [
            {"node": s.name, "health": s.health, "alerts": list(s.alerts), "why": s.why}
            for s in [*result.left_out, *result.unhealthy]
        ],
        # Said before a run starts: Sparks that run other software than the rest (telemetry's finding).
        "software_drift": [
            {"node": name, "message": message} for name, message in software_drift_of(n.name for n in g.spec.nodes)
        ],
        "left_out": _left_out(result),
        "launch_missing": result.launch_missing,
        "without": _without(result),
    }


def _fabric(spec: Any) -> dict[str, Any] | None:
    """The measured fabric the plans are priced with, and the nodes whose NCCL fell back to TCP sockets there."""
    if spec.measured_run is None:
        return None
    return {
        "run": spec.measured_run,
        "bus_gbytes_per_s": spec.bus_gbytes_per_s,
        "socket_hosts": list(spec.socket_hosts),
    }


def _left_out(result: plan_request.Planning) -> dict[str, Any] | None:
    """The down Sparks the plans leave out, and what the whole group would give once they work (None: none down)."""
    if result.asked is None:
        return None
    full = result.full
    best = full.recommended if full is not None else None
    part = result.group
    return {
        "nodes": [s.name for s in result.left_out],
        "why": result.left_out_words,
        "planned_on": {
            "nodes": [n.name for n in part.spec.nodes],
            "kind": part.spec.kind,
            "link_gbps": part.spec.link_gbps,
            "usable_gb": {n.name: n.usable_gb for n in part.spec.nodes},
        },
        "when_healthy": {
            "nodes": [n.name for n in result.asked.spec.nodes],
            "recommendation": full.result.recommendation if full else "",
            "plan": plan_out(best) if best else None,
        },
    }


def _without(result: plan_request.Planning) -> dict[str, Any] | None:
    """The plans without the group's degraded or down Sparks (None when all are healthy)."""
    if not result.unhealthy:
        return None
    alt = result.alternative
    return {
        "nodes": result.without,
        "problem": result.alternative_problem,
        "plans": [plan_out(p) for p in alt.plans] if alt else [],
        "recommended": alt.result.recommended if alt else None,
        "recommendation": alt.result.recommendation if alt else "",
    }
