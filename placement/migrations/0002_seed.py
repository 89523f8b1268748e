"""Seed the model catalogue (placement.catalogue.SEED_MODELS) and the published
benchmark figures (placement.perfmodel.PUBLISHED_POINTS) as published rows.

Both come from the pure modules, so the catalogue in the database starts equal
to what the planner's tests use. Idempotent: rows are matched by slug and by
published key; rows an admin changed are left alone on a re-run.
"""
from django.db import migrations

MODEL_FIELDS = ("name", "params_b", "active_params_b", "layers", "hidden_size", "heads", "kv_heads", "head_dim",
                "experts", "experts_per_token", "quantization", "weights_gb", "max_context", "kv_layers",
                "kv_cache_dim", "hf_repo", "notes")
# published topology -> the collective backend a row records
BACKENDS = {"none": "none", "nccl": "nccl", "rocenante": "rocenante"}
# published model names the catalogue does not hold (architecture unknown)
LABELS = {"glm-5.3-flash": "GLM-5.3 Flash"}


def seed(apps, schema_editor):
    from placement.catalogue import SEED_MODELS
    from placement.perfmodel import PUBLISHED_POINTS

    LlmModel = apps.get_model("placement", "LlmModel")
    BenchmarkRun = apps.get_model("placement", "BenchmarkRun")
    by_slug = {}
    for spec in SEED_MODELS:
        fields = {f: getattr(spec, f) for f in MODEL_FIELDS}
        fields["estimated_fields"] = list(spec.estimated_fields)
        row, _ = LlmModel.objects.get_or_create(slug=spec.slug, defaults={**fields, "origin": "seed"})
        by_slug[spec.slug] = row
    for p in PUBLISHED_POINTS:
        if BenchmarkRun.objects.filter(published_key=p.key).exists():
            continue
        notes = [p.note] if p.note else []
        if p.derived:
            notes.append("derived from a published ratio, not quoted directly")
        if p.role == "holdout":
            notes.append("held out of the performance model's fit")
        model = by_slug.get(p.model_slug)
        BenchmarkRun.objects.create(
            source="published", reference=p.source, reading=p.reading or "", published_key=p.key,
            topology_kind=p.topology, node_count=p.nodes, link_gbps=None if p.nodes == 1 else 200.0,
            model=model, model_name=model.slug if model else LABELS.get(p.model_slug, p.model_slug),
            engine=p.engine, backend=BACKENDS[p.backend], tp=p.tp, pp=p.pp, concurrency=p.concurrency,
            # only llama-bench states its sizes (pp2048, tg32); the others do not say
            input_len=2048 if p.engine == "llama.cpp" else None, output_len=32 if p.engine == "llama.cpp" else None,
            prefill_tps=p.prefill_tps, decode_tps=p.decode_tps,
            derived=["decode_tps"] if p.derived else [], notes="; ".join(notes), status="done",
            created_by_name="seed",
        )


def unseed(apps, schema_editor):
    apps.get_model("placement", "BenchmarkRun").objects.filter(published_key__isnull=False).delete()
    apps.get_model("placement", "LlmModel").objects.filter(origin="seed", benchmarks__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("placement", "0001_initial")]
    operations = [migrations.RunPython(seed, unseed)]
