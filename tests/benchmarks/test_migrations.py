"""Benchmark records moved from placement to their own app without touching
the rows: a database at the schema before the move, holding a measured run
on a group and the published figures, migrates forward with every row, every
field and the content type (so admin permissions) intact; and back again."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

MOVED = ("placement", "0007_layer_kinds_and_ranges")  # the last migration before the move
FIELDS = ("source", "group_id", "group_name", "topology_kind", "nodes", "node_count", "model_id", "model_name")
FIELDS += ("engine", "backend", "tp", "concurrency", "decode_tps", "tpot_ms", "status", "created_by_id", "notes")


def migrate(before: bool):
    """Migrate every app to its latest migration, or to just before the move
    (placement at MOVED, benchmarks unapplied, and every app whose migrations
    need a later placement or benchmarks unapplied too, as serving's do); the
    models at that state."""
    graph = MigrationExecutor(connection).loader.graph
    leaves = graph.leaf_nodes()
    if not before:
        MigrationExecutor(connection).migrate(leaves)
        return MigrationExecutor(connection).loader.project_state(leaves).apps
    up_to_move = set(graph.forwards_plan(MOVED))

    def needs_later(node: tuple[str, str]) -> bool:
        return any(n[0] in ("placement", "benchmarks") and n not in up_to_move for n in graph.forwards_plan(node))

    rest = [node for node in leaves if node[0] not in ("placement", "benchmarks")]
    others = [node for node in rest if not needs_later(node)]
    later = [(node[0], None) for node in rest if needs_later(node)]
    MigrationExecutor(connection).migrate([*others, MOVED, ("benchmarks", None), *later])
    return MigrationExecutor(connection).loader.project_state([*others, MOVED]).apps


@pytest.mark.django_db(transaction=True)
def test_records_stored_before_the_move_are_all_read_after_it(admin_user):
    old = migrate(before=True)
    Run = old.get_model("placement", "BenchmarkRun")
    group = old.get_model("inventory", "NodeGroup").objects.create(name="pair-a", kind="direct")
    model = old.get_model("placement", "LlmModel").objects.get(slug="gpt-oss-120b")
    mine = Run.objects.create(
        source="measured",
        group_id=group.pk,
        group_name="pair-a",
        topology_kind="direct",
        nodes=["spark-a", "spark-b"],
        node_count=2,
        model_id=model.pk,
        model_name=model.slug,
        engine="vllm",
        backend="nccl",
        tp=2,
        concurrency=4,
        decode_tps=123.5,
        tpot_ms=31.25,
        status="done",
        created_by_id=admin_user.pk,
        notes="stored before the move",
    )
    stored = {row["id"]: row for row in Run.objects.values("id", *FIELDS)}
    published = Run.objects.filter(source="published").count()
    content_type = old.get_model("contenttypes", "ContentType").objects.get(app_label="placement", model="benchmarkrun")

    migrate(before=False)

    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.models import ContentType

    from benchmarks.models import BenchmarkRun

    assert {row["id"]: row for row in BenchmarkRun.objects.values("id", *FIELDS)} == stored
    assert BenchmarkRun.objects.get(pk=mine.pk).stream_decode_tps == 32.0  # 1000 / 31.25 ms
    assert BenchmarkRun.objects.filter(source="published").count() == published > 0
    moved = ContentType.objects.get_for_model(BenchmarkRun)
    assert (moved.pk, moved.app_label) == (content_type.pk, "benchmarks")
    assert not ContentType.objects.filter(app_label="placement", model="benchmarkrun").exists()
    assert Permission.objects.get(codename="view_benchmarkrun").content_type_id == content_type.pk

    back = migrate(before=True)  # and back: placement holds the rows again
    assert back.get_model("placement", "BenchmarkRun").objects.filter(pk=mine.pk, decode_tps=123.5).exists()
    migrate(before=False)


@pytest.mark.django_db(transaction=True)
def test_published_rows_of_a_database_at_0005_get_the_seeds_words_and_measured_runs_keep_theirs(admin_user):
    """benchmarks 0006: a database migrated before vLLM recipes PR 918's run was
    re-labelled MTP holds its stored notes; migrating on brings every published
    row's reference and notes to the seed's words (that run's notes say its
    decode is neither fitted on nor compared) and leaves a measured run's alone."""
    from benchmarks.seed import published_notes, published_reference
    from placement.published import PUBLISHED_POINTS

    executor = MigrationExecutor(connection)
    executor.migrate([("benchmarks", "0005_run_copies")])
    old = MigrationExecutor(connection).loader.project_state([("benchmarks", "0005_run_copies")]).apps
    Run = old.get_model("benchmarks", "BenchmarkRun")
    Run.objects.filter(published_key="qwen3.6-a3b-1-vllm").update(notes="used by the performance model's fit")
    Run.objects.filter(published_key="gpt-oss-20b-1-llamacpp").update(reference="stale", notes="stale")
    mine = Run.objects.create(
        source="measured", topology_kind="single", node_count=1, model_name="gpt-oss-120b", engine="vllm",
        status="done", created_by_id=admin_user.pk, notes="stale, mine",
    )  # fmt: skip

    migrate(before=False)

    from benchmarks.models import BenchmarkRun

    point = {p.key: p for p in PUBLISHED_POINTS}
    rows = BenchmarkRun.objects.filter(source="published")
    assert rows.count() == len(point)
    for row in rows:
        p = point[row.published_key]
        assert (row.reference, row.notes) == (published_reference(p), published_notes(p)), row.published_key
    assert "neither fits on nor compares its decode figure" in rows.get(published_key="qwen3.6-a3b-1-vllm").notes
    assert BenchmarkRun.objects.get(pk=mine.pk).notes == "stale, mine"


def rows_added_since(migration: str, added: set[str], stored_then=None):
    """A database at ``migration`` (of benchmarks) without the published rows
    ``added``, as before they were known (``stored_then``: what else differed,
    given the historical model), migrated to the end: the published rows
    afterwards, each checked to be in the seed's words, once."""
    from benchmarks.seed import published_notes, published_reference
    from placement.published import PUBLISHED_POINTS

    MigrationExecutor(connection).migrate([("benchmarks", migration)])
    old = MigrationExecutor(connection).loader.project_state([("benchmarks", migration)]).apps
    Run = old.get_model("benchmarks", "BenchmarkRun")
    Run.objects.filter(published_key__in=added).delete()
    if stored_then is not None:
        stored_then(Run)
    before = Run.objects.filter(source="published").count()

    migrate(before=False)

    from benchmarks.models import BenchmarkRun

    point = {p.key: p for p in PUBLISHED_POINTS}
    rows = BenchmarkRun.objects.filter(source="published")
    assert rows.count() == before + len(added) == len(point)
    for row in rows.filter(published_key__in=added):
        p = point[row.published_key]
        assert (row.reference, row.notes) == (published_reference(p), published_notes(p)), row.published_key
    return rows


@pytest.mark.django_db(transaction=True)
def test_a_database_at_0008_gets_the_published_rows_added_since():
    """benchmarks 0009: a database migrated to 0008 before llama.cpp's
    training batch tables and the second fresh set existed stores them as
    published rows, in the seed's words, once; the rows it held stay one each."""
    from placement.published import PUBLISHED_POINTS

    added = {p.key for p in PUBLISHED_POINTS if p.collected == "2026-12-04b" or p.origin.endswith("batched-train")}
    assert len(added) == 36  # 26 points of the second set, 10 of the batch tables
    rows = rows_added_since("0008_published_fresh", added)
    second = rows.get(published_key="qwen3-235b-a22b-2-llamacpp-rpc-q2k-koyo-pair1")
    assert (second.node_count, second.engine, second.pp) == (2, "llama.cpp", 2)
    assert "collected on 2026-12-04b, after the performance model was frozen" in second.notes


@pytest.mark.django_db(transaction=True)
def test_a_database_at_0009_gets_the_third_fresh_set():
    """benchmarks 0010: a database migrated to 0009 before the third fresh set
    existed stores its figures as published rows, in the seed's words, once;
    the rows it held stay one each."""
    from placement.published import PUBLISHED_POINTS

    added = {p.key for p in PUBLISHED_POINTS if p.collected == "2026-12-04c"}
    assert len(added) == 9
    rows = rows_added_since("0009_published_second_fresh", added)
    awq = rows.get(published_key="qwen3-coder-30b-a3b-1-vllm-awq-dataforgex-seqs8")
    assert (awq.node_count, awq.engine, awq.decode_tps) == (1, "vllm", 52.0)
    assert "collected on 2026-12-04c, after the performance model was frozen" in awq.notes


@pytest.mark.django_db(transaction=True)
def test_a_database_at_0010_gets_the_fourth_fresh_set():
    """benchmarks 0011: a database migrated to 0010 before the fourth fresh
    set existed stores its figures as published rows, in the seed's words,
    once; the rows it held stay one each."""
    from placement.published import PUBLISHED_POINTS

    added = {p.key for p in PUBLISHED_POINTS if p.collected == "2026-12-04d"}
    assert len(added) == 17
    rows = rows_added_since("0010_published_third_fresh", added)
    batch = rows.get(published_key="qwen3.6-27b-1-llamacpp-nvfp4-localai-c128")
    assert (batch.node_count, batch.engine, batch.concurrency, batch.decode_tps) == (1, "llama.cpp", 128, 155.1)
    assert "collected on 2026-12-04d, after the performance model was frozen" in batch.notes


@pytest.mark.django_db(transaction=True)
def test_a_database_at_0011_gets_the_fifth_fresh_set():
    """benchmarks 0012: the same for the fifth fresh set and a database at 0011."""
    from placement.published import PUBLISHED_POINTS

    added = {p.key for p in PUBLISHED_POINTS if p.collected == "2026-12-04e"}
    assert len(added) == 4
    rows = rows_added_since("0011_published_fourth_fresh", added)
    bench = rows.get(published_key="qwen3.6-35b-a3b-1-llamacpp-q8-gdevsnack")
    assert (bench.engine, bench.decode_tps, bench.prefill_tps) == ("llama.cpp", 58.7, 1941.3)
    assert "collected on 2026-12-04e, after the performance model was frozen" in bench.notes


@pytest.mark.django_db(transaction=True)
def test_a_database_at_0012_gets_the_sixth_fresh_set():
    """benchmarks 0013: the same for the sixth fresh set and a database at 0012,
    its two-node runs with their layout."""
    from placement.published import PUBLISHED_POINTS

    added = {p.key for p in PUBLISHED_POINTS if p.collected == "2026-12-05"}
    assert len(added) == 28
    rows = rows_added_since("0012_published_fifth_fresh", added)
    pipeline = rows.get(published_key="qwen3-coder-30b-a3b-2-pp2-vllm-nvfp4-heitor-c8")
    assert (pipeline.node_count, pipeline.engine, pipeline.tp, pipeline.pp) == (2, "vllm", 1, 2)
    assert (pipeline.concurrency, pipeline.decode_tps) == (8, 304.0)
    assert "collected on 2026-12-05, after the performance model was frozen" in pipeline.notes


@pytest.mark.django_db(transaction=True)
def test_a_database_at_0014_gets_the_seventh_fresh_set_with_format_and_mode():
    """benchmarks 0015: the same for the seventh fresh set and a database at
    0014, each row with its layout, weights format and CUDA-graph mode."""
    from placement.published import PUBLISHED_POINTS

    added = {p.key for p in PUBLISHED_POINTS if p.collected == "2026-12-05b"}
    assert len(added) == 34
    rows = rows_added_since("0014_run_format_and_mode", added)
    expert = rows.get(published_key="qwen3-coder-30b-a3b-2-ep2-vllm-int4-flash7777")
    assert (expert.node_count, expert.engine, expert.tp, expert.pp, expert.decode_tps) == (2, "vllm", 2, 1, 85.5)
    assert (expert.quantization, expert.mode) == ("int4", "graphs")
    batch = rows.get(published_key="qwen3-30b-a3b-1-vllm-int4-palatine-c50")
    assert (batch.concurrency, batch.decode_tps, batch.quantization, batch.mode) == (50, 718.6, "int4", "")
    assert "collected on 2026-12-05b, after the performance model was frozen" in batch.notes


@pytest.mark.django_db(transaction=True)
def test_a_database_at_0015_gets_the_eighth_fresh_set_with_format_and_mode():
    """benchmarks 0016: the same for the eighth fresh set and a database at
    0015: vLLM batches with their format and mode, and llama.cpp's
    llama-bench row with both its figures."""
    from placement.published import PUBLISHED_POINTS

    added = {p.key for p in PUBLISHED_POINTS if p.collected == "2026-12-05c"}
    assert len(added) == 21
    rows = rows_added_since("0015_published_seventh_fresh", added)
    batch = rows.get(published_key="nemotron-3-super-120b-a12b-1-vllm-nvfp4-pulsar-c32")
    assert (batch.node_count, batch.engine, batch.concurrency, batch.decode_tps) == (1, "vllm", 32, 112.61)
    assert (batch.quantization, batch.mode) == ("nvfp4", "graphs")
    bench = rows.get(published_key="gpt-oss-120b-1-llamacpp-forum")
    assert (bench.engine, bench.decode_tps, bench.prefill_tps) == ("llama.cpp", 59.05, 1937.39)
    assert "collected on 2026-12-05c, after the performance model was frozen" in bench.notes


@pytest.mark.django_db(transaction=True)
def test_a_database_at_0017_gets_the_ninth_fresh_set_with_its_checkpoints():
    """benchmarks 0018: the same for the ninth fresh set and a database at
    0017: its two-node prefill with its layout, and each row with the
    checkpoint its source names (none for a GGUF whose repository is not)."""
    from placement.published import PUBLISHED_POINTS

    added = {p.key for p in PUBLISHED_POINTS if p.collected == "2026-12-05d"}
    assert len(added) == 17
    rows = rows_added_since("0017_run_checkpoint", added)
    prefill = rows.get(published_key="nemotron-3-super-120b-a12b-2-tp2-vllm-nvfp4-epappas")
    assert (prefill.node_count, prefill.tp, prefill.decode_tps, prefill.prefill_tps) == (2, 2, None, 3835.0)
    assert prefill.checkpoint == "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"
    batch = rows.get(published_key="qwen3.8-27b-1-llamacpp-q4km-0xbakeer-c16")
    assert (batch.engine, batch.concurrency, batch.decode_tps, batch.quantization) == ("llama.cpp", 16, 59.88, "Q4_K_M")
    assert batch.checkpoint == ""
    unsloth = rows.get(published_key="qwen3.8-27b-1-vllm-nvfp4-0xbakeer-c8")
    assert (unsloth.checkpoint, unsloth.mode) == ("unsloth/Qwen3.8-27B-NVFP4", "graphs")
    assert "collected on 2026-12-05d, after the performance model was frozen" in batch.notes


@pytest.mark.django_db(transaction=True)
def test_a_database_at_0018_gets_the_tenth_fresh_set():
    """benchmarks 0019: the same for the tenth fresh set and a database at
    0018: a llama-bench table's prefills, one row per prompt length; and the
    llama-bench rows stored before, which said 2,048 tokens whatever their
    prompt, get their figure's (a 32,768-token prefill, a 128-token one)."""
    from placement.published import PUBLISHED_POINTS

    added = {p.key for p in PUBLISHED_POINTS if p.collected == "2026-12-05e"}
    assert len(added) == 8
    earlier = ("qwen3.6-35b-a3b-1-llamacpp-q8-gdevsnack-pp32768", "qwen3-235b-a22b-1-llamacpp-q2k-koyo")

    def as_then(run) -> None:
        assert run.objects.filter(published_key__in=earlier).update(input_len=2048) == 2

    rows = rows_added_since("0018_published_ninth_fresh", added, as_then)
    assert [rows.get(published_key=key).input_len for key in earlier] == [32768, 128]
    longest = rows.get(published_key="gpt-oss-20b-1-llamacpp-chrislyz-pp32678")
    assert (longest.engine, longest.decode_tps, longest.prefill_tps, longest.input_len) == (
        "llama.cpp",
        None,
        3494.22,
        32678,
    )
    assert "collected on 2026-12-05e, after the performance model was frozen" in longest.notes


@pytest.mark.django_db(transaction=True)
def test_a_database_before_placement_0015_gets_the_qwen25_models_and_the_eleventh_fresh_set():
    """placement 0015 and benchmarks 0020: a database seeded before them gets
    the three Qwen2.5 seed models (and no other seed model an admin deleted),
    then the eleventh set's rows, each naming its catalogue model (the 7B's
    under Qwen2.5-Coder-7B, the same architecture) and its GGUF repository."""
    from placement.models import LlmModel
    from placement.published import PUBLISHED_POINTS

    added = {p.key for p in PUBLISHED_POINTS if p.collected == "2026-12-05f"}
    assert len(added) == 36
    executor = MigrationExecutor(connection)
    executor.migrate([("benchmarks", "0019_published_tenth_fresh")])
    state = MigrationExecutor(connection).loader.project_state([("benchmarks", "0019_published_tenth_fresh")]).apps
    state.get_model("benchmarks", "BenchmarkRun").objects.filter(published_key__in=added).delete()
    MigrationExecutor(connection).migrate([("placement", "0014_seed_names_without_format")])
    old = MigrationExecutor(connection).loader.project_state([("placement", "0014_seed_names_without_format")]).apps
    models = old.get_model("placement", "LlmModel")
    assert not models.objects.filter(slug__startswith="qwen2.5-").exclude(slug="qwen2.5-coder-7b").exists()
    # an admin deleted a seed model no run names: it stays deleted
    named = state.get_model("benchmarks", "BenchmarkRun").objects.exclude(model=None).values_list("model_id")
    deleted = models.objects.filter(origin="seed").exclude(id__in=named).order_by("slug").first()
    assert deleted is not None
    slug = deleted.slug
    deleted.delete()
    before = models.objects.count()

    migrate(before=False)

    assert LlmModel.objects.count() == before + 3
    assert not LlmModel.objects.filter(slug=slug).exists()
    new = LlmModel.objects.get(slug="qwen2.5-32b")
    assert (new.origin, new.layers, new.kv_heads, new.params_b) == ("seed", 64, 8, 32.5)
    rows = rows_of(added)
    assert rows.count() == 36
    largest = rows.get(published_key="qwen2.5-32b-1-llamacpp-q80-pendakwah")
    assert (largest.model.slug, largest.decode_tps, largest.prefill_tps, largest.input_len) == (
        "qwen2.5-32b",
        6.31,
        492.24,
        512,
    )
    assert largest.checkpoint == "Qwen/Qwen2.5-32B-Instruct-GGUF"
    seven = rows.get(published_key="qwen2.5-7b-1-llamacpp-q4km-pendakwah-pp128")
    assert (seven.model.slug, seven.quantization, seven.prefill_tps, seven.input_len) == (
        "qwen2.5-coder-7b",
        "Q4_K_M",
        2793.77,
        128,
    )
    assert "collected on 2026-12-05f, after the performance model was frozen" in seven.notes


def rows_of(keys: set[str]):
    from benchmarks.models import BenchmarkRun

    return BenchmarkRun.objects.filter(source="published", published_key__in=keys)


@pytest.mark.django_db(transaction=True)
def test_a_database_at_0020_gets_the_twelfth_fresh_set():
    """benchmarks 0021: a database at 0020 gets the twelfth fresh set's rows,
    each naming its seed model: a llama.cpp run of four streams of one lab,
    an eager vLLM run read from the source's sample config, and the
    checkpoint where the source names one."""
    from placement.published import PUBLISHED_POINTS

    added = {p.key for p in PUBLISHED_POINTS if p.collected == "2026-12-05g"}
    assert len(added) == 14
    rows = rows_added_since("0020_published_eleventh_fresh", added)
    batch = rows.get(published_key="qwen3.6-35b-a3b-1-llamacpp-q80-jschmied-c4")
    assert (batch.model.slug, batch.engine, batch.concurrency, batch.decode_tps, batch.quantization) == (
        "qwen3.6-35b-a3b",
        "llama.cpp",
        4,
        96.0,
        "Q8_0",
    )
    assert batch.input_len == 1291  # a llama.cpp row keeps its prompt
    nano = rows.get(published_key="nemotron-3-nano-30b-a3b-1-vllm-nvfp4-martin")
    assert (nano.engine, nano.mode, nano.decode_tps, nano.prefill_tps) == ("vllm", "eager", 58.0, 8063.0)
    assert nano.checkpoint == "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"
    assert rows.get(published_key="qwen3.5-35b-a3b-1-llamacpp-q4km-martin").checkpoint == ""
    assert "collected on 2026-12-05g, after the performance model was frozen" in nano.notes


@pytest.mark.django_db(transaction=True)
def test_a_database_at_0021_gets_the_thirteenth_fresh_set():
    """benchmarks 0022: a database at 0021 gets the thirteenth fresh set's
    rows: two one-node copies on a direct pair at 100 Gb/s, a batch sweep,
    and Qwen3-Next read as Qwen3-Coder-Next with its own checkpoint."""
    from placement.published import PUBLISHED_POINTS

    added = {p.key for p in PUBLISHED_POINTS if p.collected == "2026-12-05h"}
    assert len(added) == 20
    rows = rows_added_since("0021_published_twelfth_fresh", added)
    copies = rows.get(published_key="llama-3.1-8b-2x1-vllm-bf16-elizabetht")
    assert (copies.node_count, copies.topology_kind, copies.link_gbps, copies.decode_tps) == (2, "direct", 100.0, 13.7)
    assert "2 independent one-node copies, the streams shared by a router" in copies.notes
    batch = rows.get(published_key="gpt-oss-120b-1-vllm-mxfp4-rossingram-c16")
    assert (batch.model.slug, batch.concurrency, batch.decode_tps, batch.checkpoint) == (
        "gpt-oss-120b",
        16,
        183.4,
        "openai/gpt-oss-120b",
    )
    awq = rows.get(published_key="qwen3-coder-next-1-vllm-int4-avarok-32768-256")
    assert (awq.model.slug, awq.quantization, awq.decode_tps) == ("qwen3-coder-next", "int4", 29.8)
    assert awq.checkpoint == "cyankiwi/Qwen3-Next-80B-A3B-Instruct-AWQ-4bit"
    assert "collected on 2026-12-05h, after the performance model was frozen" in awq.notes


@pytest.mark.django_db(transaction=True)
def test_a_database_at_0023_gets_the_fourteenth_fresh_set():
    """benchmarks 0024: a database at 0023 gets the fourteenth fresh set's
    one row, naming its seed model and the checkpoint its recipe serves."""
    from placement.published import PUBLISHED_POINTS

    added = {p.key for p in PUBLISHED_POINTS if p.collected == "2026-12-05i"}
    assert added == {"qwen3-8b-1-vllm-bf16-bytebunker"}
    rows = rows_added_since("0023_published_copies", added)
    row = rows.get(published_key="qwen3-8b-1-vllm-bf16-bytebunker")
    assert (row.model.slug, row.engine, row.node_count, row.concurrency, row.decode_tps, row.quantization) == (
        "qwen3-8b",
        "vllm",
        1,
        1,
        13.87,
        "bf16",
    )
    assert row.checkpoint == "Qwen/Qwen3-8B" and row.copies == 1
    assert "collected on 2026-12-05i, after the performance model was frozen" in row.notes


@pytest.mark.django_db(transaction=True)
def test_a_database_at_0024_gets_the_fifteenth_fresh_set():
    """benchmarks 0025: a database at 0024 gets the fifteenth fresh set's
    ladder, one row a level of streams, each naming its seed model, the NVFP4
    variant and the checkpoint the source's command serves."""
    from placement.published import PUBLISHED_POINTS

    added = {p.key for p in PUBLISHED_POINTS if p.collected == "2026-12-05j"}
    assert len(added) == 8
    rows = rows_added_since("0024_published_fourteenth_fresh", added)
    ladder = rows.filter(published_key__in=added).order_by("concurrency")
    assert [(r.concurrency, r.decode_tps) for r in ladder] == [
        (1, 11.04),
        (2, 21.34),
        (4, 41.2),
        (8, 78.18),
        (16, 137.11),
        (32, 219.5),
        (64, 312.26),
        (128, 390.42),
    ]
    assert {(r.model.slug, r.engine, r.quantization, r.checkpoint) for r in ladder} == {
        ("qwen3.8-27b", "vllm", "nvfp4", "unsloth/Qwen3.8-27B-NVFP4")
    }
    assert all("collected on 2026-12-05j, after the performance model was frozen" in r.notes for r in ladder)


@pytest.mark.django_db(transaction=True)
def test_a_database_at_0022_gets_its_published_copies_counted():
    """benchmarks 0023: the published rows of copies behind a router, stored
    before as one copy (their count in their notes only), say their copies;
    the other published rows stay one copy."""
    from placement.published import PUBLISHED_POINTS

    copies = {p.key: p.replicas for p in PUBLISHED_POINTS if p.replicas > 1}
    MigrationExecutor(connection).migrate([("benchmarks", "0022_published_thirteenth_fresh")])
    old = MigrationExecutor(connection).loader.project_state([("benchmarks", "0022_published_thirteenth_fresh")]).apps
    run = old.get_model("benchmarks", "BenchmarkRun")
    assert run.objects.filter(published_key__in=list(copies)).update(copies=1) == 15  # as stored then
    assert not run.objects.filter(source="published", copies__gt=1).exists()

    migrate(before=False)

    from benchmarks.models import BenchmarkRun

    rows = BenchmarkRun.objects.filter(source="published")
    assert dict(rows.filter(copies__gt=1).values_list("published_key", "copies")) == copies
    assert rows.filter(copies=1).count() == rows.count() - 15
