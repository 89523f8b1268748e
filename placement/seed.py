"""Seed the model catalogue (``catalogue.SEED_MODELS``) and the published
benchmark figures (``perfmodel.PUBLISHED_POINTS``, as published rows without a
group). Idempotent: rows are matched by slug and published key, and rows an
admin changed are left alone. Called by the data migration and after every
``migrate``/``flush`` (post_migrate), as the hardware catalogue is, so a
flushed database never plans without models.
"""

from __future__ import annotations

from typing import Any

from .model_catalogue import SEED_MODELS
from .perfmodel import PUBLISHED_POINTS
from .services import MODEL_FIELDS as SPEC_REQUIRED
from .services import OPTIONAL_FIELDS as SPEC_OPTIONAL

# Every figure of a model but its slug (the services' lists, derived from ModelSpec).
MODEL_FIELDS = tuple(f for f in (*SPEC_REQUIRED, *SPEC_OPTIONAL) if f != "slug")
# published model names the catalogue does not hold (architecture unknown)
LABELS = {"glm-5.3-flash": "GLM-5.3 Flash"}


VARIANT_FIELDS = ("weights_gb", "hf_repo", "gguf_repo", "gguf_file", "notes")


def seed_placement(model_class: Any, run_class: Any, variant_class: Any = None) -> None:
    """``variant_class`` is None for the migrations before variants existed."""
    by_slug = {}
    # a historical model (an earlier migration's) lacks the later columns
    columns = {f.name for f in model_class._meta.get_fields()}
    for spec in SEED_MODELS:
        fields = {f: getattr(spec, f) for f in MODEL_FIELDS if f in columns}
        fields["estimated_fields"] = list(spec.estimated_fields)
        by_slug[spec.slug], _ = model_class.objects.get_or_create(slug=spec.slug, defaults={**fields, "origin": "seed"})
        if variant_class is not None:
            seed_variants(by_slug[spec.slug], spec, variant_class)
    known = set(run_class.objects.filter(published_key__isnull=False).values_list("published_key", flat=True))
    for p in PUBLISHED_POINTS:
        if p.key in known:
            continue
        model = by_slug.get(p.model_slug)
        llama = p.engine == "llama.cpp"  # only llama-bench states its sizes (pp2048, tg32)
        run_class.objects.create(
            source="published",
            reference=published_reference(p),
            reading=p.reading or "",
            published_key=p.key,
            topology_kind=p.topology,
            node_count=p.nodes,
            link_gbps=None if p.nodes == 1 else p.link_gbps,
            model=model,
            model_name=model.slug if model else LABELS.get(p.model_slug, p.model_slug),
            engine=p.engine,
            backend=p.backend,
            tp=p.tp,
            pp=p.pp,
            concurrency=p.concurrency,
            input_len=2048 if llama else None,
            output_len=32 if llama else None,
            prefill_tps=p.prefill_tps,
            decode_tps=p.decode_tps,
            derived=["decode_tps"] if p.derived else [],
            notes=published_notes(p),
            status="done",
            created_by_name="seed",
        )


def published_reference(p: Any) -> str:
    return f"{p.source} ({p.url})" if p.url else p.source


def published_notes(p: Any) -> str:
    """What the performance model does with a published figure, and its assumptions."""
    notes = [p.note] if p.note else []
    if p.quantization:
        notes.append(f"variant {p.quantization}")
    if getattr(p, "replicas", 1) > 1:
        notes.append(
            f"{p.replicas} independent one-node copies, the streams shared by a router; the figure is their sum"
        )
    if p.derived:
        notes.append("derived from a published ratio, not quoted directly")
    notes.append(
        {
            "train": "used by the performance model's fit",
            "holdout": "held out of the performance model's fit (its accuracy check)",
            "reference": "kept for reference, not used by the performance model",
        }[p.role]
    )
    return "; ".join(notes)


LAYER_KIND_FIELDS = (
    "linear_layers",
    "linear_kind",
    "state_bytes",
    "sliding_window",
    "mixer_layers",
    "ffn_layers",
    "shared_experts",
)


def refresh_layer_kinds(model_class: Any) -> None:
    """Give the seed rows stored before layer kinds existed their layer kinds
    (only rows still at the defaults: an admin's values stay)."""
    by_slug = {spec.slug: spec for spec in SEED_MODELS}
    for row in model_class.objects.filter(origin="seed", slug__in=list(by_slug)):
        if row.linear_layers or row.sliding_window or row.mixer_layers or row.ffn_layers or row.shared_experts:
            continue
        spec = by_slug[row.slug]
        for name in LAYER_KIND_FIELDS:
            setattr(row, name, getattr(spec, name))
        row.save(update_fields=list(LAYER_KIND_FIELDS))


def refresh_published(run_class: Any) -> None:
    """Bring the stored published rows' reference and notes up to date with
    ``PUBLISHED_POINTS`` (a figure's role can change between versions)."""
    by_key = {p.key: p for p in PUBLISHED_POINTS}
    for row in run_class.objects.filter(published_key__in=list(by_key)):
        p = by_key[row.published_key]
        row.reference, row.notes = published_reference(p), published_notes(p)
        row.save(update_fields=["reference", "notes"])


def seed_variants(row: Any, spec: Any, variant_class: Any) -> None:
    """The seed variants a seed model row does not hold yet (its own default
    form stays on the row; one kept by an admin under another format is left)."""
    if row.origin != "seed":
        return
    held = set(variant_class.objects.filter(model=row).values_list("quantization", flat=True))
    for v in spec.variants:
        if v.quantization != row.quantization and v.quantization not in held:
            variant_class.objects.create(
                model=row, quantization=v.quantization, created_by="seed", **{f: getattr(v, f) for f in VARIANT_FIELDS}
            )


def seed_after_migrate(sender: Any, using: str = "default", **kwargs: Any) -> None:
    from .models import BenchmarkRun, LlmModel, LlmVariant

    if LlmModel.objects.using(using).filter(origin="seed").exists():
        return
    seed_placement(
        LlmModel.objects.db_manager(using).model,
        BenchmarkRun.objects.db_manager(using).model,
        LlmVariant.objects.db_manager(using).model,
    )
