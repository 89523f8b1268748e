"""Seed the published benchmark figures (``placement.published.PUBLISHED_POINTS``)
as published rows without a group. Idempotent: rows are matched by their
published key. Called by the data migrations and after every
``migrate``/``flush`` (post_migrate), after placement has seeded the models
the rows name.
"""

from __future__ import annotations

from typing import Any

from placement.published import PUBLISHED_POINTS

# published model names the catalogue does not hold (architecture unknown)
LABELS = {"glm-5.3-flash": "GLM-5.3 Flash"}


def _has(run_class: Any, *names: str) -> bool:
    # the historical model of a data migration lacks the later fields (format and mode before 0014,
    # the checkpoint before 0017)
    return set(names) <= {f.name for f in run_class._meta.get_fields()}


def format_and_mode(p: Any, default_quantization: str, checkpoint: bool = False) -> dict[str, str]:
    """A published figure's weights format (its model's default form when the
    source named none) and CUDA-graph mode ("" where the source did not say),
    and with ``checkpoint`` the repository its source names ("": none)."""
    out = {"quantization": p.quantization or default_quantization, "mode": p.mode or ""}
    if checkpoint:
        out["checkpoint"] = p.checkpoint
    return out


def seed_published(run_class: Any, model_class: Any) -> None:
    """A published row for each figure not stored yet, naming its catalogue model when there is one."""
    by_slug = {m.slug: m for m in model_class.objects.filter(slug__in={p.model_slug for p in PUBLISHED_POINTS})}
    known = set(run_class.objects.filter(published_key__isnull=False).values_list("published_key", flat=True))
    kept, checkpoint = _has(run_class, "quantization", "mode"), _has(run_class, "checkpoint")
    for p in PUBLISHED_POINTS:
        if p.key in known:
            continue
        model = by_slug.get(p.model_slug)
        llama = p.engine == "llama.cpp"  # only llama-bench states its sizes (ppN, tgN)
        extra = format_and_mode(p, model.quantization if model else "", checkpoint) if kept else {}
        run_class.objects.create(
            **extra,
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
            **({"copies": p.replicas} if _has(run_class, "copies") else {}),
            **({"speculative": p.speculative} if _has(run_class, "speculative") else {}),
            concurrency=p.concurrency,
            input_len=p.prompt if llama else None,
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
    if getattr(p, "speculative", ""):
        unused = "neither fits on nor compares" if p.role == "train" else "does not compare"
        notes.append(
            f"decoded with {p.speculative.upper()} speculative decoding: the performance model predicts plain "
            f"decoding and {unused} its decode figure"
        )
    if getattr(p, "collected", ""):
        notes.append(f"collected on {p.collected}, after the performance model was frozen, and predicted once")
    notes.append(
        {
            "train": "used by the performance model's fit",
            "holdout": "held out of the performance model's fit (its accuracy check)",
            "reference": "kept for reference, not used by the performance model",
        }[p.role]
    )
    return "; ".join(notes)


def refresh_published(run_class: Any) -> None:
    """Bring the stored published rows' reference, notes, format and mode up
    to date with ``PUBLISHED_POINTS`` (a figure's role can change between
    versions; rows stored before 0014 had no format or mode), a
    llama-bench row's prompt length to its figure's (rows stored before
    0019 said 2,048 tokens whatever the prompt), and a row of copies behind a
    router to its count of copies (rows stored before 0023 said one copy,
    the layout of one copy on all the nodes), and a row decoded with
    speculative decoding to its method (rows stored before 0026 said it in
    their notes only)."""
    by_key = {p.key: p for p in PUBLISHED_POINTS}
    kept, checkpoint = _has(run_class, "quantization", "mode"), _has(run_class, "checkpoint")
    copies, speculative = _has(run_class, "copies"), _has(run_class, "speculative")
    fields = ["reference", "notes", "input_len", *(["quantization", "mode"] if kept else [])]
    fields += (["checkpoint"] if checkpoint else []) + (["copies"] if copies else [])
    fields += ["speculative"] if speculative else []
    changed = []
    for row in run_class.objects.filter(published_key__in=list(by_key)).select_related("model"):
        p = by_key[row.published_key]
        before = [getattr(row, name) for name in fields]
        row.reference, row.notes = published_reference(p), published_notes(p)
        if p.engine == "llama.cpp":
            row.input_len = p.prompt
        if copies:
            row.copies = p.replicas
        if speculative:
            row.speculative = p.speculative
        if kept:
            for name, value in format_and_mode(p, row.model.quantization if row.model else "", checkpoint).items():
                setattr(row, name, value)
        if [getattr(row, name) for name in fields] != before:
            changed.append(row)
    # Only the rows whose words changed: every data migration since 0003 calls this, and a fresh
    # database's migrate would otherwise write each stored figure once per migration.
    run_class.objects.bulk_update(changed, fields, batch_size=200)


def migrate_published(apps: Any, schema_editor: Any) -> None:
    """A data migration's step for a new set of published figures: store the
    figures not stored yet, in the historical models, and bring every
    published row's notes to the seed's words."""
    run = apps.get_model("benchmarks", "BenchmarkRun")
    seed_published(run, apps.get_model("placement", "LlmModel"))
    refresh_published(run)


def seed_after_migrate(sender: Any, using: str = "default", **kwargs: Any) -> None:
    from placement.models import LlmModel

    from .models import BenchmarkRun

    if BenchmarkRun.objects.using(using).filter(published_key__isnull=False).exists():
        return
    seed_published(BenchmarkRun.objects.db_manager(using).model, LlmModel.objects.db_manager(using).model)
