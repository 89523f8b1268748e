"""Benchmarks API: records (list, record, upload) and runs started on a
booked group. Thin: parse, call one service or selector, return. Numbers in
bodies are strict (a string where a number belongs is refused, naming it).
"""

from __future__ import annotations

# The edge types (core.validation) are built by functions, which mypy cannot read as types.
# mypy: disable-error-code="valid-type"
import json
from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema, Status

from core.actor import Actor
from core.api import BOOK
from core.validation import CleanStr, JsonData, Limit, MultiLineStr, Offset, SaneDatetime, zone_missing
from inventory.models import NodeGroup
from placement import selectors as placement_selectors
from placement.api import Count, GroupId, Ms, Names, Notes, Num, Slug, Tokens, Tps, Width
from placement.errors import PlacementError

from . import runs, selectors, services
from .errors import BenchmarkError
from .models import BenchmarkRun

router = Router(tags=["benchmarks"])

SPECULATIVE = (
    services.SPECULATIVE_WORDS + ". The performance model predicts plain decoding: such a run's decode is shown "
    "beside a plan, never compared or fitted on"
)
AcceptanceLength = Num(1, 64)
Percent = Num(0, 100)


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
    quantization: str
    mode: str
    checkpoint: str
    speculative: str
    acceptance_length: float | None
    acceptance_rate: float | None
    tp: int
    pp: int
    copies: int
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
    model: CleanStr(120, min_length=1)
    group: GroupId | None = None
    nodes: Names | None = Field(None, max_length=256)
    source: Literal["measured", "published"] = "measured"
    reference: MultiLineStr(2000) = ""
    topology_kind: CleanStr(10) | None = None
    node_count: Width | None = None
    engine: CleanStr(14) = "vllm"
    engine_version: CleanStr(120) = ""
    backend: CleanStr(10) = "unknown"
    quantization: CleanStr(12) = Field("", description="the weights' format that ran (any case); blank: not stated")
    mode: CleanStr(6) = Field("", description="graphs or eager (--enforce-eager); blank: not known")
    checkpoint: CleanStr(200) = Field("", description="the Hugging Face repository (org/name) or path that ran")
    speculative: CleanStr(8) = Field("", description=SPECULATIVE)
    acceptance_length: AcceptanceLength | None = Field(
        None, description="tokens each verification step kept, the verified one included (vLLM's acceptance length)"
    )
    acceptance_rate: Percent | None = Field(None, description="draft tokens accepted, in percent")
    tp: Width | None = None
    pp: Width | None = None
    copies: Width | None = Field(None, description="independent copies measured together through a router (1)")
    concurrency: Count = 1
    input_len: Tokens | None = None
    output_len: Tokens | None = None
    prefill_tps: Tps | None = None
    decode_tps: Tps
    ttft_ms: Ms | None = None
    tpot_ms: Ms | None = None
    measured_at: SaneDatetime | None = None
    notes: Notes = ""


class UploadIn(Schema):
    model: CleanStr(120, min_length=1)
    group: GroupId
    content: MultiLineStr(4_000_000) | JsonData
    format: CleanStr(20) = Field("auto", description=f"one of {', '.join(services.FORMATS)}; auto: recognised")
    nodes: Names | None = Field(None, max_length=256)
    backend: CleanStr(10) = "unknown"
    engine_version: CleanStr(120) = ""
    quantization: CleanStr(12) = Field("", description="the weights' format that ran (any case); blank: not stated")
    mode: CleanStr(6) = Field("", description="graphs or eager (--enforce-eager); blank: not known")
    checkpoint: CleanStr(200) = Field("", description="the Hugging Face repository (org/name) or path that ran")
    speculative: CleanStr(8) = Field(
        "",
        description=SPECULATIVE
        + "; a vLLM or SGLang file whose server drafted tokens is recorded as unnamed when blank",
    )
    concurrency: Count | None = None
    tp: Width | None = None
    pp: Width | None = None
    copies: Width | None = Field(None, description="independent copies measured together through a router (1)")
    notes: Notes = ""


class RunIn(Schema):
    group: GroupId
    model: Slug
    concurrency: Count = 1
    input_len: Tokens = 128
    output_len: Tokens = 128
    num_prompts: Count = 10


class BenchFilter(Schema):
    group: int | None = Field(None, ge=1, le=2**63 - 1)
    model: CleanStr(120) | None = None
    limit: Limit | None = Field(
        None,
        description="At most this many records (1 to 1,000) from `offset`; left out, every record. The answer stays "
        "a list: `X-Total-Count` says how many records match, `Link` gives the next and previous pages",
    )
    offset: Offset = 0


def _page_links(request: HttpRequest, offset: int, limit: int, total: int) -> str:
    """The RFC 8288 ``Link`` header of a page: its next and previous pages, when there are."""
    links = []
    last = (max(total, 1) - 1) // limit * limit  # where the last page starts: past the end, prev leads there
    for rel, start in (("next", offset + limit), ("prev", max(0, min(offset - limit, last)))):
        if (rel == "next" and start >= total) or (rel == "prev" and offset == 0):
            continue
        query = request.GET.copy()
        query["offset"], query["limit"] = str(start), str(limit)
        links.append(f'<{request.build_absolute_uri(request.path)}?{query.urlencode()}>; rel="{rel}"')
    return ", ".join(links)


@router.get("/benchmarks", response=list[BenchmarkOut])
def benchmarks_list(request: HttpRequest, filters: Query[BenchFilter], response: HttpResponse) -> Any:
    """Every record, the published ones included, or those of a group (measured on it) and of a model; a page of
    them with ``limit`` and ``offset``."""
    group = None
    if filters.group is not None:
        group = NodeGroup.objects.filter(pk=filters.group).first()  # a retired group keeps its history
        if group is None:
            raise PlacementError(f"no node group with id {filters.group}", "group")
    model = placement_selectors.model_get(filters.model) if filters.model else None
    rows = selectors.benchmarks_list(group=group, model=model, include_published=False)
    total = rows.count()
    response["X-Total-Count"] = str(total)
    if filters.limit is None:
        return [bench_out(r) for r in rows[filters.offset :]]
    links = _page_links(request, filters.offset, filters.limit, total)
    if links:
        response["Link"] = links
    return [bench_out(r) for r in rows[filters.offset : filters.offset + filters.limit]]


@router.post("/benchmarks", response={201: BenchmarkOut}, auth=BOOK)
def benchmarks_create(request: HttpRequest, payload: BenchmarkIn) -> Any:
    if payload.measured_at is not None and (missing := zone_missing(payload.measured_at)):
        raise BenchmarkError(missing, "measured_at")
    data = payload.model_dump(exclude_none=True)
    return Status(201, bench_out(services.benchmark_create(actor=Actor.from_request(request, "api"), data=data)))


@router.post("/benchmarks/upload", response={201: BenchmarkOut}, auth=BOOK)
def benchmarks_upload(request: HttpRequest, payload: UploadIn) -> Any:
    """A record from the JSON `vllm bench serve --save-result` writes, its console summary,
    `llama-bench -o json` output, or the JSONL `python -m sglang.bench_serving --output-file`
    appends to (its last line) or its console summary (as text, or as the parsed JSON)."""
    content = payload.content if isinstance(payload.content, str) else json.dumps(payload.content)
    data = payload.model_dump(exclude={"content", "format"})
    run = services.benchmark_upload(
        actor=Actor.from_request(request, "api"), text=content, fmt=payload.format, data=data
    )
    return Status(201, bench_out(run))


@router.post("/benchmarks/runs", response={202: BenchmarkOut}, auth=BOOK)
def benchmarks_run(request: HttpRequest, payload: RunIn) -> Any:
    """Start `vllm bench serve` on the group's head node (a group you hold now)."""
    run = runs.run_start(
        actor=Actor.from_request(request, "api"),
        group_id=payload.group,
        model=payload.model,
        concurrency=payload.concurrency,
        input_len=payload.input_len,
        output_len=payload.output_len,
        num_prompts=payload.num_prompts,
    )
    return Status(202, bench_out(run))
