"""Which plan a serving runs: the plan at an index of the plans made for the
given inputs (the plan page's list; default: the recommended one), or a saved
plan planned again on its group with the inputs it was saved with. Reads only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inventory.models import NodeGroup
from placement import plan_request
from placement import selectors as placement_selectors
from placement.errors import PlacementError
from placement.lab_calibration import lab_calibration, lab_runs
from placement.model_catalogue import ModelSpec, choose_variant
from placement.models import LlmModel, SavedPlan
from placement.planner import Plan
from placement.selectors import PlannedGroup

from .errors import ServingError


@dataclass(frozen=True)
class Chosen:
    model: LlmModel
    spec: ModelSpec
    planned: PlannedGroup
    plan: Plan
    index: int
    saved: SavedPlan | None


def _errors(exc: PlacementError) -> ServingError:
    return ServingError(list(exc.errors))


def _same(a: Plan, saved: SavedPlan) -> bool:
    return (a.strategy, a.tp, a.pp, a.ep, a.replicas, [list(i) for i in a.instances]) == (
        saved.strategy,
        saved.tp,
        saved.pp,
        saved.ep,
        saved.replicas,
        saved.instances,
    )


def plan_choose(
    *,
    group: NodeGroup,
    model: Any,
    plan: Any = None,
    saved_plan: Any = None,
    variant: Any = None,
    context_tokens: Any = 8192,
    concurrency: Any = 1,
    goal: Any = "latency",
) -> Chosen:
    """The plan to serve, or a ServingError naming the field (``plan``, ``saved_plan``, ``model``...)."""
    saved = None
    if saved_plan is not None:
        saved = SavedPlan.objects.select_related("model").filter(pk=saved_plan).first()
        if saved is None:
            raise ServingError(f"no saved plan {saved_plan!r}", "saved_plan")
        if saved.group_id != group.pk:
            raise ServingError(f"saved plan {saved.pk} was made for {saved.group_name}, not {group.name}", "saved_plan")
        if saved.engine != "vllm":
            raise ServingError(f"saved plan {saved.pk} is for {saved.engine}; serving starts vLLM plans", "saved_plan")
        row = saved.model
        variant, context_tokens, concurrency, goal = (
            saved.quantization,
            saved.context_tokens,
            saved.concurrency,
            saved.goal,
        )
    else:
        try:
            row = placement_selectors.model_get(model)
        except PlacementError as exc:
            raise _errors(exc) from exc
    choice = choose_variant(row.spec(), "vllm", variant or None)
    if choice.error:
        raise ServingError(choice.error, "variant")
    try:
        inputs = plan_request.plan_input(
            context_tokens=context_tokens, concurrency=concurrency, goal=goal, engine="vllm", model=choice.spec
        )
        planned = placement_selectors.groupspec_for(group)
        runs = lab_runs()
        planning = plan_request.plan_group(
            group=planned,
            model=choice.spec,
            inputs=inputs,
            launch_for=(),
            constants=lab_calibration(runs).constants,
            lab=runs,
        )
    except PlacementError as exc:
        raise _errors(exc) from exc
    plans = [p.plan for p in planning.plans]
    if saved is not None:
        index = next((i for i, p in enumerate(plans) if _same(p, saved)), None)
        if index is None:
            raise ServingError(
                f"saved plan {saved.pk} ({saved.label}) is no longer among the plans for {group.name}: plan again",
                "saved_plan",
            )
    elif plan is None:
        index = planning.result.recommended
        if index is None:
            raise ServingError(f"no plan fits {choice.spec.name} on {group.name}", "plan")
    else:
        index = int(plan)
        if not 0 <= index < len(plans):
            raise ServingError(f"there are {len(plans)} plans for these inputs: give 0 to {len(plans) - 1}", "plan")
    chosen = plans[index]
    if not chosen.fits:
        raise ServingError(f"{chosen.label} does not fit in memory on {group.name}", "plan")
    return Chosen(row, choice.spec, planned, chosen, index, saved)


def plan_snapshot(chosen: Chosen) -> dict[str, Any]:
    """What the serving keeps of its plan (the page shows it beside the measured figures)."""
    p = chosen.plan

    def rng(bounds: tuple[float, float] | None) -> list[float] | None:
        return None if bounds is None else [round(bounds[0], 2), round(bounds[1], 2)]

    return {
        "index": chosen.index,
        "saved_plan": chosen.saved.pk if chosen.saved else None,
        "label": p.label,
        "strategy": p.strategy,
        "tp": p.tp,
        "pp": p.pp,
        "ep": p.ep,
        "replicas": p.replicas,
        "nodes": list(p.nodes),
        "instances": [list(i) for i in p.instances],
        "concurrency": p.concurrency,
        "context_tokens": p.context_tokens,
        "decode_tps": p.decode_tps,
        "aggregate_tps": p.aggregate_tps,
        "decode_tps_range": rng(p.decode_tps_range),
        "aggregate_tps_range": rng(p.aggregate_tps_range),
        "collective_backend": p.collective_backend,
        "mode": p.mode,
        "checkpoint": p.checkpoint,
        # what the prediction did not know of the fabric when serving started (NCCL seen on TCP sockets)
        "fabric_warning": p.fabric_warning,
    }
