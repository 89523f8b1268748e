"""Seed the model catalogue (``model_catalogue.SEED_MODELS``). Idempotent:
rows are matched by slug, and rows an admin changed are left alone. Called by
the data migrations and after every ``migrate``/``flush`` (post_migrate), as
the hardware catalogue is, so a flushed database never plans without models.
The published benchmark figures are seeded by the benchmarks app the same way.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from .model_catalogue import SEED_MODELS
from .services import MODEL_FIELDS as SPEC_REQUIRED
from .services import OPTIONAL_FIELDS as SPEC_OPTIONAL

# Every figure of a model but its slug (the services' lists, derived from ModelSpec).
MODEL_FIELDS = tuple(f for f in (*SPEC_REQUIRED, *SPEC_OPTIONAL) if f != "slug")
VARIANT_FIELDS = ("weights_gb", "hf_repo", "gguf_repo", "gguf_file", "notes")


def seed_catalogue(model_class: Any, variant_class: Any = None, slugs: Collection[str] | None = None) -> dict[str, Any]:
    """The seed models by slug (created where missing), or only those of
    ``slugs`` (a migration that adds seed models, and not the ones an admin
    deleted). ``variant_class`` is None for the migrations before variants
    existed."""
    by_slug = {}
    # a historical model (an earlier migration's) lacks the later columns
    columns = {f.name for f in model_class._meta.get_fields()}
    for spec in SEED_MODELS:
        if slugs is not None and spec.slug not in slugs:
            continue
        fields = {f: getattr(spec, f) for f in MODEL_FIELDS if f in columns}
        fields["estimated_fields"] = list(spec.estimated_fields)
        by_slug[spec.slug], _ = model_class.objects.get_or_create(slug=spec.slug, defaults={**fields, "origin": "seed"})
        if variant_class is not None:
            seed_variants(by_slug[spec.slug], spec, variant_class)
    return by_slug


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


def seed_after_migrate(sender: Any, using: str = "default", **kwargs: Any) -> None:
    from .models import LlmModel, LlmVariant

    if LlmModel.objects.using(using).filter(origin="seed").exists():
        return
    seed_catalogue(LlmModel.objects.db_manager(using).model, LlmVariant.objects.db_manager(using).model)
