"""Serving API (``/api/serving``): serve a plan on a booked group, list what
is served, one serving, stop it. Thin: parse, call one service or selector,
answer. Roles as for bookings: viewers read; members serve on their own
booking; lab admins on any booked group."""

from __future__ import annotations

# The edge types (core.validation) are built by functions, which mypy cannot read as types.
# mypy: disable-error-code="valid-type"
from typing import Any

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema, Status

from bookings.selectors import group_find
from core.actor import Actor
from core.api import BOOK
from core.pages import Rows, paginated
from core.validation import INT32, INT64, PATCH_ONLY_KNOWN, CleanStr, IdOrName, Int

from . import selectors, services
from .models import Serving

router = Router(tags=["serving"])

RowId = Int(1, INT64)


class ServingIn(Schema):
    model_config = PATCH_ONLY_KNOWN  # a misspelt field is named, not served around

    group: IdOrName = Field(description="group id or name (booked now)")
    model: CleanStr(120, min_length=1) | None = Field(None, description="catalogue slug (or give saved_plan)")
    plan: Int(0, 255) | None = Field(None, description="index among the plans for these inputs (default: recommended)")
    saved_plan: RowId | None = Field(None, description="a plan kept on the plan page (its id)")
    launcher: CleanStr(20) | None = Field(None, description="vllm-container (the default)")
    variant: CleanStr(12) | None = Field(None, description="the model's quantization")
    context_tokens: Int(1, INT32) = 8192
    concurrency: Int(1, 4096) = 1
    goal: CleanStr(20) = "latency"


class ServingFilter(Schema):
    group: CleanStr(63) = Field("", description="group id or name")
    status: list[CleanStr(10)] = Field([], max_length=5, description="starting, serving, failed, stopping, stopped")


class StepOut(Schema):
    node: str
    label: str
    status: str
    output: str
    image: str | None = Field(None, description="the image an image step makes ready on its node; null otherwise")
    layers: list[int] | None = Field(
        None,
        description="an image step's download so far: [layers ready, layers], as docker pull reports them; "
        "null before it names a layer, and for other steps",
    )
    weights: str | None = Field(None, description="the Hugging Face repository a weights step downloads")
    weights_bytes: list[int] | None = Field(
        None,
        description="a weights step's download so far: [bytes in the node's cache, about how many the plan's "
        "weights are] (expected, from the model's size: the repository may hold more); null before it said",
    )


class BookingRef(Schema):
    id: int
    owner: str
    end: str


class ServingOut(Schema):
    id: int
    status: str
    model: str
    variant: str
    group: int | None
    group_name: str
    nodes: list[str]
    launcher: str
    plan: dict[str, Any]
    owner: str
    booking: BookingRef | None
    booking_end: str | None
    url: str
    endpoints: list[dict[str, str]]
    engine_networks: dict[str, str] = Field(
        description="which network each rank's NCCL chose (IB: RoCE; Socket: TCP sockets), as the engines' own "
        "logs said once they answered; empty for one node or when not read"
    )
    steps: list[StepOut]
    failed_step: str
    error: str
    created_at: str
    serving_at: str | None
    stopped_at: str | None


def _iso(value: Any) -> str | None:
    return None if value is None else value.isoformat()


def serving_out(s: Serving) -> dict[str, Any]:
    booking = s.booking
    return {
        "id": s.pk,
        "status": s.status,
        "model": s.model_id and s.model.slug,
        "variant": s.quantization,
        "group": s.group_id,
        "group_name": s.group_name,
        "nodes": list(s.plan.get("nodes", [])),
        "launcher": s.launcher,
        "plan": {k: v for k, v in s.plan.items() if k != "url"},
        "owner": s.owner_name,
        "booking": None
        if booking is None
        else {"id": booking.pk, "owner": booking.owner.username, "end": booking.end.isoformat()},
        "booking_end": _iso(booking.end) if booking else None,
        "url": s.url,
        "endpoints": s.engines,
        # which network each rank's NCCL chose, as the engines' own logs said (empty: one node, or not read)
        "engine_networks": s.engine_networks,
        "steps": s.step_rows,
        "failed_step": s.failed_step,
        "error": s.error,
        "created_at": s.created_at.isoformat(),
        "serving_at": _iso(s.serving_at),
        "stopped_at": _iso(s.stopped_at),
    }


@router.post("/serving", response={202: ServingOut}, auth=BOOK)
def serving_create(request: HttpRequest, payload: ServingIn) -> Any:
    """Serve a plan on a group booked for you now (lab admins: any booked group); the worker starts it."""
    serving = services.serving_start(actor=Actor.from_request(request, "api"), **payload.model_dump())
    return Status(202, serving_out(selectors.serving_get(serving.pk)))


@router.get("/serving", response=list[ServingOut])
@paginated()
def serving_list(request: HttpRequest, filters: Query[ServingFilter]) -> Any:
    group = group_find(filters.group) if filters.group else None
    return Rows.each(selectors.servings_list(group=group, status=filters.status), serving_out)


@router.get("/serving/{serving_id}", response=ServingOut)
def serving_detail(request: HttpRequest, serving_id: RowId) -> Any:
    return serving_out(selectors.serving_get(serving_id))


@router.post("/serving/{serving_id}/stop", response={202: ServingOut}, auth=BOOK)
def serving_stop(request: HttpRequest, serving_id: RowId) -> Any:
    """Stop the engines on every node and free them (the owner or a lab admin)."""
    serving = services.serving_stop(actor=Actor.from_request(request, "api"), serving=selectors.serving_get(serving_id))
    return Status(202, serving_out(selectors.serving_get(serving.pk)))
