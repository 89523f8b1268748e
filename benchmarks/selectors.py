"""Reads of benchmark records: a group's or a model's records, and the
fleet-wide leaderboard (fastest first, grouped by model)."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import F, Q, QuerySet, Window
from django.db.models.functions import RowNumber

from inventory.models import NodeGroup
from placement.models import LlmModel

from .models import BenchmarkRun


def benchmarks_list(
    *, group: NodeGroup | None = None, model: LlmModel | None = None, include_published: bool = True
) -> QuerySet[BenchmarkRun]:
    qs = BenchmarkRun.objects.select_related("model", "group")
    if group is not None:
        qs = (
            qs.filter(Q(group=group) | Q(source=BenchmarkRun.Source.PUBLISHED))
            if include_published
            else qs.filter(group=group)
        )
    if model is not None:
        qs = qs.filter(model=model)
    return qs.order_by("model_name", "node_count", "-decode_tps", "id")


def leaderboard(
    *, per_model: int = 8, concurrency: int | None = None
) -> list[tuple[str, LlmModel | None, list[BenchmarkRun]]]:
    """Finished runs with a decode figure, fastest first, grouped by model:
    those at ``concurrency`` streams only (decode over all streams is
    comparable between runs at the same concurrency alone), or at any when None."""
    rows = BenchmarkRun.objects.filter(status=BenchmarkRun.Status.DONE, decode_tps__isnull=False)
    if concurrency is not None:
        rows = rows.filter(concurrency=concurrency)
    # each model's fastest ``per_model`` picked by the database, over the few
    # columns the ranking needs: the page reads at most that many runs a model,
    # however many pile up
    order = [F("decode_tps").desc(), F("id").asc()]
    fastest = (
        rows.annotate(place=Window(RowNumber(), partition_by=[F("model_name")], order_by=order))
        .filter(place__lte=per_model)
        .values("id")
    )
    rows = BenchmarkRun.objects.filter(id__in=fastest).select_related("model", "group").order_by("model_name", *order)
    board: dict[str, list[BenchmarkRun]] = defaultdict(list)
    models: dict[str, LlmModel | None] = {}
    for run in rows:
        board[run.model_name].append(run)
        models[run.model_name] = run.model
    ranked = sorted(board.items(), key=lambda kv: -(kv[1][0].decode_tps or 0))
    return [(name, models[name], runs) for name, runs in ranked]


def leaderboard_levels() -> list[int]:
    """The concurrencies finished runs were measured or published at, fewest streams first."""
    rows = BenchmarkRun.objects.filter(status=BenchmarkRun.Status.DONE, decode_tps__isnull=False)
    return sorted(set(rows.order_by().values_list("concurrency", flat=True).distinct()) | {1})  # one row a level
