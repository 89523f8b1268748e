"""Writes to the model catalogue: add (fields or a Hugging Face config.json)
and delete. Every function checks its input with ``ModelSpec.validate`` and
raises ``PlacementError`` naming each bad field, leaving the database as it
was. Benchmark writes live in the benchmarks app (``benchmarks.services``).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import MISSING
from dataclasses import fields as dataclass_fields
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import ProtectedError

from core import errors
from core.actor import Actor
from inventory.services import change_record

from .errors import PlacementError
from .hfconfig import parse_hf_config
from .model_catalogue import ModelSpec
from .models import LlmModel, LlmVariant, SavedPlan
from .quants import ModelVariant, canonical_quantization, is_hub_repo

# Derived from the one definition of a model's figures (ModelSpec): the fields
# every model gives, then those with a default.
_SPEC = [f for f in dataclass_fields(ModelSpec) if f.name not in ("estimated_fields", "variants")]
MODEL_FIELDS = tuple(f.name for f in _SPEC if f.default is MISSING)
OPTIONAL_FIELDS = tuple(f.name for f in _SPEC if f.default is not MISSING)
REQUIRED = set(MODEL_FIELDS) - {"weights_gb", "experts", "experts_per_token"}


class Conflict(PlacementError, errors.Conflict):
    """The request clashes with what is stored (409; pages show it like any placement error)."""

    status = 409
    prefix = ""


def spec_from_fields(fields: dict[str, Any]) -> ModelSpec:
    values = {
        **{"experts": 0, "experts_per_token": 0, "weights_gb": None},
        **{f.name: f.default for f in _SPEC if f.default is not MISSING},
        **fields,
    }
    return ModelSpec(
        **{k: values[k] for k in (*MODEL_FIELDS, *OPTIONAL_FIELDS)},
        estimated_fields=tuple(values.get("estimated_fields", ())),
    )


def model_create(*, actor: Actor, fields: dict[str, Any], origin: str = "admin") -> LlmModel:
    """Add a model to the catalogue from its fields (the form and POST /api/models)."""
    unknown = set(fields) - set(MODEL_FIELDS) - set(OPTIONAL_FIELDS) - {"estimated_fields"}
    errors = [(name, "not a catalogue field") for name in sorted(unknown)]
    errors += [(name, "required") for name in sorted(REQUIRED) if fields.get(name) in (None, "")]
    for name in ("hf_repo", "notes"):
        if not isinstance(fields.get(name, ""), str):
            errors.append((name, "must be text"))
    if errors:
        raise PlacementError(errors)
    if isinstance(fields.get("quantization"), str):
        fields = {**fields, "quantization": canonical_quantization(fields["quantization"])}
    spec = spec_from_fields(fields)
    errors = spec.validate()
    if len(spec.name) > 120:
        errors.append(("name", "at most 120 characters"))
    if spec.hf_repo and not is_hub_repo(spec.hf_repo):
        # what the launchers and serving download: a variant's references are held to the same
        errors.append(("hf_repo", "a Hugging Face repository: owner/name (letters, digits, . _ -)"))
    if not errors and LlmModel.objects.filter(slug=spec.slug).exists():
        raise Conflict(f"a model with slug {spec.slug!r} already exists", "slug")
    if errors:
        raise PlacementError(errors)
    row = LlmModel(
        **{k: getattr(spec, k) for k in (*MODEL_FIELDS, *OPTIONAL_FIELDS)},
        estimated_fields=list(spec.estimated_fields),
        origin=origin,
        created_by=actor.username,
    )
    try:
        with transaction.atomic():
            row.save()
            _logged(actor, "create", row, None, _model_facts(row))
    except IntegrityError as exc:  # a concurrent add of the same slug
        raise Conflict(f"a model with slug {spec.slug!r} already exists", "slug") from exc
    return row


def _model_facts(row: LlmModel) -> dict[str, Any]:
    """What the change log keeps of a model: enough to tell what was added or removed."""
    return {
        "slug": row.slug,
        "name": row.name,
        "quantization": row.quantization,
        "params_b": row.params_b,
        "origin": row.origin,
        "variants": sorted(row.variants.values_list("quantization", flat=True)) if row.pk else [],
    }


def _logged(actor: Actor, action: str, row: LlmModel, before: Any, after: Any) -> None:
    change_record(actor=actor, action=action, obj=row, before=before, after=after, object_type="model")


def model_create_from_config(
    *,
    actor: Actor,
    config: Any,
    slug: Any,
    quantization: Any,
    params_b: float | None = None,
    active_params_b: float | None = None,
    name: str | None = None,
    weights_gb: float | None = None,
    hf_repo: str = "",
) -> LlmModel:
    """Add a model from a Hugging Face config.json (text or parsed object), read
    locally: nothing is downloaded. Parameter counts are estimated when not given."""
    if isinstance(config, dict):
        config = json.dumps(config)
    if isinstance(config, bytes):
        config = config.decode("utf-8", errors="replace")
    if not isinstance(slug, str) or not slug:
        raise PlacementError("required: a short name for the catalogue, e.g. qwen3-8b", "slug")
    result = parse_hf_config(
        config if isinstance(config, str) else None,  # type: ignore[arg-type] # the parser says what it is not
        slug=slug,
        quantization=str(quantization),
        params_b=params_b,
        active_params_b=active_params_b,
        name=name or None,
        weights_gb=weights_gb,
    )
    if isinstance(result, list):
        # hfconfig names config.json keys; say so, so "num_hidden_layers" is found in the file
        raise PlacementError(
            [
                (path if path in MODEL_FIELDS or path == "config" else f"config.{path}", message)
                for path, message in result
            ]
        )
    # every field the config described: the layer kinds too (sliding window, linear layers and their
    # state, Nemotron-H's mixers, shared experts), which were dropped, so a hybrid was priced as a transformer
    fields = {k: getattr(result, k) for k in (*MODEL_FIELDS, *OPTIONAL_FIELDS) if k != "hf_repo"}
    fields.update(hf_repo=hf_repo or "", estimated_fields=list(result.estimated_fields))
    return model_create(actor=actor, fields=fields, origin="config.json")


def model_delete(*, actor: Actor, model: LlmModel) -> None:
    """Remove a model nothing names; one that benchmark records or saved plans
    name stays (their foreign keys protect it, whichever app holds them)."""
    try:
        with transaction.atomic():
            facts = _model_facts(model)
            _logged(actor, "delete", model, facts, None)
            model.delete()
    except ProtectedError as exc:
        counts = Counter(str(obj._meta.verbose_name) for obj in exc.protected_objects)
        held = ", ".join(f"{n} {name}(s)" for name, n in sorted(counts.items()))
        raise Conflict(f"{model.slug} has {held}; it stays so they keep their model", "slug") from None


VARIANT_FIELDS = ("quantization", "weights_gb", "hf_repo", "gguf_repo", "gguf_file", "notes")


def variant_create(
    *,
    actor: Actor,
    model: LlmModel,
    quantization: str,
    weights_gb: float | None = None,
    hf_repo: str = "",
    gguf_repo: str = "",
    gguf_file: str = "",
    notes: str = "",
) -> LlmVariant:
    """Add a quantized variant to a model (the form and POST /api/models/{slug}/variants)."""
    texts = {"quantization": quantization, "hf_repo": hf_repo, "gguf_repo": gguf_repo, "gguf_file": gguf_file}
    texts["notes"] = notes
    errors = [(name, "must be text") for name, value in texts.items() if not isinstance(value, str)]
    if not errors and not quantization.strip():
        errors.append(("quantization", "required"))
    if errors:
        raise PlacementError(errors)
    values: dict[str, Any] = {"weights_gb": weights_gb, **{k: v.strip() for k, v in texts.items()}}
    values["quantization"] = canonical_quantization(values["quantization"])
    spec = ModelVariant(**values)
    errors = spec.validate()
    if not errors and spec.quantization == model.quantization:
        raise Conflict(f"{spec.quantization} is {model.slug}'s own (default) form", "quantization")
    if not errors and model.variants.filter(quantization=spec.quantization).exists():
        raise Conflict(f"{model.slug} already has a {spec.quantization} variant", "quantization")
    if errors:
        raise PlacementError(errors)
    row = LlmVariant(model=model, created_by=actor.username, **values)
    try:
        with transaction.atomic():
            before = _model_facts(model)
            row.save()
            _logged(actor, "update", model, before, _model_facts(model))
    except IntegrityError as exc:  # a concurrent add of the same format
        raise Conflict(f"{model.slug} already has a {spec.quantization} variant", "quantization") from exc
    return row


def variant_delete(*, actor: Actor, model: LlmModel, quantization: str) -> None:
    with transaction.atomic():
        before = _model_facts(model)
        deleted, _ = model.variants.filter(quantization=canonical_quantization(quantization)).delete()
        if not deleted:
            raise errors.NotFound(f"{model.slug} has no {quantization!r} variant", "quantization")
        _logged(actor, "update", model, before, _model_facts(model))


def saved_plan_create(*, actor: Actor, model: LlmModel, planning: Any, index: int) -> SavedPlan:
    """Keep the plan at ``index`` of a planning (placement.plan_request.Planning)
    for a booking to point at. Only a plan that fits can be kept."""
    if not 0 <= index < len(planning.plans):
        raise PlacementError("no such plan: the inputs changed; plan again", "plan")
    p = planning.plans[index].plan
    if not p.fits:
        raise PlacementError(f"{p.label} does not fit on {planning.group.label}", "plan")
    group = planning.group.group
    return SavedPlan.objects.create(
        model=model,
        quantization=planning.model.quantization,
        group=group,
        group_name=planning.group.label,
        engine=p.engine,
        goal=planning.inputs.goal,
        context_tokens=p.context_tokens,
        concurrency=p.concurrency,
        strategy=p.strategy,
        label=p.label,
        tp=p.tp,
        pp=p.pp,
        ep=p.ep,
        replicas=p.replicas,
        stage_layers=list(p.stage_layers),
        nodes=list(p.nodes),
        instances=[list(i) for i in p.instances],
        decode_tps=p.decode_tps,
        aggregate_tps=p.aggregate_tps,
        prefill_tps=p.prefill_tps,
        predicted_ranges={
            **{
                name: [round(r[0], 2), round(r[1], 2)]
                for name, r in (
                    ("decode", p.decode_tps_range),
                    ("aggregate", p.aggregate_tps_range),
                    ("prefill", p.prefill_tps_range),
                )
                if r is not None
            },
            "basis": p.range_basis,
        },
        collective_backend=p.collective_backend,
        prediction_source=p.prediction_source,
        created_by=actor.known_user,
    )
