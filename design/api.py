"""Design API: ``POST /api/designs`` answers a design request with its
candidate designs (any signed-in user: it writes nothing)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema
from pydantic import StrictBool

from core.api import READ
from core.validation import PATCH_ONLY_KNOWN

from . import services

router = Router(tags=["design"])


class TargetIn(Schema):
    model_config = PATCH_ONLY_KNOWN  # a misspelt "contxt_tokens" was ignored: the default context was designed

    model: Any = None
    context_tokens: Any = 8192
    concurrency: Any = 1
    goal: Any = None  # latency at one stream, throughput above
    engine: Any = "vllm"


class DesignIn(Schema):
    model_config = PATCH_ONLY_KNOWN

    sparks: Any = None  # [{hardware, owned, planned}]: Sparks by hardware catalogue slug
    sparks_128: Any = 0
    sparks_64: Any = 0
    from_inventory: Any = False  # start from the lab's registered Sparks, switches and cables
    no_switch: StrictBool = False
    owned_switch: str | None = None
    sparks_owned: StrictBool = False
    budget: Any = None
    currency: str | None = None
    models: list[TargetIn] = []


@router.post("/designs", auth=READ)
def designs_create(request: HttpRequest, payload: DesignIn) -> Any:
    """Candidate designs for a number of Sparks: cabling, parts, the engine's reading, predicted decode.
    Designs whose known total to buy is over the budget are listed under ``over_budget``, not offered."""
    answer = services.design_request(
        sparks=payload.sparks,
        sparks_128=payload.sparks_128,
        sparks_64=payload.sparks_64,
        from_inventory=payload.from_inventory,
        no_switch=payload.no_switch,
        owned_switch=payload.owned_switch,
        sparks_owned=payload.sparks_owned,
        budget=payload.budget,
        currency=payload.currency,
        models=payload.models,
    )
    return services.answer_out(answer)
