"""How the plan pages show a predicted figure and its range, and a plan's
collective backend: one wording, the planner's (``plan_types.with_range``)."""

from __future__ import annotations

from collections.abc import Mapping

from django import template

from placement.model_spec import is_number
from placement.plan_types import with_range

register = template.Library()

BACKEND_WORDS = {
    "nccl": "NCCL over RoCE",
    "rocenante": "RoCEnante",
    "rpc": "llama.cpp RPC over TCP",
    "none": "one node",
}


@register.simple_tag
def tps(value: float | None, bounds: tuple[float, float] | list[float] | None = None, digits: int = 0) -> str:
    """ "38 tok/s (30 to 44)", or a dash when there is no prediction (what a
    stored plan holds that is not a number is none, and bounds that are not
    two numbers no range)."""
    if not is_number(value):
        return "–"
    pair = None
    if isinstance(bounds, list | tuple) and len(bounds) == 2 and all(is_number(b) for b in bounds):
        pair = (float(bounds[0]), float(bounds[1]))
    return with_range(float(value), pair, digits)  # type: ignore[arg-type]


@register.filter
def backend_words(backend: str) -> str:
    return BACKEND_WORDS.get(backend, backend)


@register.filter
def launcher_need(launcher: str) -> str:
    """What a launcher needs on every node that a software reading tells ("" if none is read)."""
    from placement.launch import LAUNCHER_NEEDS

    return LAUNCHER_NEEDS.get(launcher, "")


@register.filter
def needs_for(needs: Mapping[str, list[str]] | None, launcher: str) -> list[str]:
    """The readings' notes (telemetry.software_store.launch_readiness) against what ``launcher`` needs."""
    return list((needs or {}).get(launcher_need(launcher), ()))
