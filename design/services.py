"""A design request, answered: the generator's candidates with their parts
priced from the catalogue (as lab admins entered prices; unknown stays
unknown), and for each target model the planner's recommended plan on the
designed group, with its predicted decode. Writes nothing.

The planner is called as ``POST /api/plans`` calls it (the model's variant for
the engine, the checked inputs, the lab's calibrated performance constants),
on the designed group built from the engine's reading of the design, not on a
group of the database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from django.conf import settings

from core.errors import BadInput
from core.validation import as_whole_number
from inventory.hardware_catalogue import SPARK_PORTS
from inventory.labio import lab_export
from inventory.models import Cable, CatalogueEntry, Spark, Switch
from placement import plan_request, selectors
from placement.lab_calibration import lab_calibration
from placement.model_catalogue import choose_variant
from placement.planner import GroupSpec, NodeSpec, plan_placement
from placement.selectors import placeholder_ip
from topology.engine import Group
from topology.state import expected_usable_gb

from .generate import (
    GROWABLE,
    MAX_LINE,
    MAX_SPARKS,
    Design,
    DesignInputError,
    Request,
    SparkLine,
    count_errors,
    designs,
    too_many,
)

MAX_TARGETS = 4
MAX_LINES = 16  # Spark lines in one request
LINE_KEYS = {"hardware", "owned", "planned"}


@dataclass(frozen=True)
class Target:
    model: str
    context_tokens: int = 8192
    concurrency: int = 1
    goal: str = "latency"
    engine: str = "vllm"


@dataclass
class Answer:
    request: Request
    targets: list[Target]
    budget: Decimal | None
    budget_currency: str
    sparks_owned: bool
    from_inventory: bool = False
    designs: list[dict[str, Any]] = field(default_factory=list)
    over_budget: list[dict[str, Any]] = field(default_factory=list)
    best: list[dict[str, Any]] = field(default_factory=list)


def _whole(value: Any, path: str, low: int, high: int, errors: list[tuple[str, str]]) -> int:
    value = as_whole_number(value, strip=True)
    if value is None or value == "":
        value = 0 if low == 0 else value
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        errors.append((path, f"must be a whole number from {low:,} to {high:,}"))
        return low
    return value


def _lab_names() -> frozenset[str]:
    """The device names the lab uses: a fresh design's new Sparks never clash with them."""
    names = set(Spark.objects.values_list("name", flat=True)) | set(Switch.objects.values_list("name", flat=True))
    return frozenset(names)


def _growable_count() -> int:
    """How many of the lab's Sparks a growth design would cable (not retired, with a ConnectX-7)."""
    return Spark.objects.exclude(status=Spark.Status.RETIRED).filter(hardware__slug__in=GROWABLE).count()


def _lab_labels() -> frozenset[str]:
    """The cable labels the lab uses: a fresh design's cables never take one (an import would move that cable)."""
    return frozenset(Cable.objects.exclude(label="").values_list("label", flat=True))


_BUDGET_RE = re.compile(r"[0-9]{1,13}(?:\.[0-9]{1,2})?", re.ASCII)
BUDGET_MAX = Decimal(10) ** 12


def _budget(raw: Any, raw_currency: Any, errors: list[tuple[str, str]]) -> tuple[Decimal | None, str]:
    """A budget of 0 or more and its three-letter currency, or None (errors noted)."""
    budget: Decimal | None = None
    if raw not in (None, ""):
        text = str(raw).strip() if isinstance(raw, str | int | float) and not isinstance(raw, bool) else ""
        # ASCII digits, at most two decimals, below a trillion: "1e400" and "٥" are no budget a lab types
        if _BUDGET_RE.fullmatch(text) and Decimal(text) < BUDGET_MAX:
            budget = Decimal(text)
        else:
            errors.append(("budget", "must be a number of 0 or more, in digits (e.g. 25000 or 25000.50)"))
    currency = str(raw_currency or "").strip().upper()
    if budget is not None and not (len(currency) == 3 and currency.isalpha()):
        errors.append(("currency", "a budget needs its currency, a three-letter code like EUR or USD"))
    return budget, currency


def design_request(
    *,
    sparks: Any = None,
    sparks_128: Any = 0,
    sparks_64: Any = 0,
    from_inventory: Any = False,
    no_switch: Any = False,
    owned_switch: Any = None,
    sparks_owned: Any = False,
    budget: Any = None,
    currency: Any = None,
    models: Any = None,
) -> Answer:
    """Check a request (API body or page form, as they came) and answer it; BadInput names every bad field."""
    errors: list[tuple[str, str]] = []
    n128 = _whole(sparks_128, "sparks_128", 0, MAX_LINE, errors)
    n64 = _whole(sparks_64, "sparks_64", 0, MAX_LINE, errors)
    sparks_owned = bool(sparks_owned)
    from_inventory = from_inventory or False
    if not isinstance(from_inventory, bool):
        errors.append(("from_inventory", "must be true or false"))
        from_inventory = False
    lines = _lines(sparks, errors)
    if lines and (n128 or n64):
        errors.append(("sparks", "give the Sparks either as lines by hardware or as sparks_128/sparks_64, not both"))
    if lines and sparks_owned:
        errors.append(("sparks_owned", "is shorthand for sparks_128/sparks_64; with lines give owned per line"))
    if sparks_owned and from_inventory:
        errors.append(
            (
                "sparks_owned",
                "growing the lab, its owned Sparks are the registered ones; "
                "sparks_128/sparks_64 are then the planned ones",
            )
        )
    if not lines and sparks_owned and (n128 or n64):  # the shorthand: every Spark owned
        lines = tuple(SparkLine(slug, owned=n) for slug, n in (("dgx-spark-128", n128), ("dgx-spark-64", n64)) if n)
    owned = owned_switch or None
    if owned is not None and not isinstance(owned, str):
        errors.append(("owned_switch", "must be a switch's catalogue slug"))
        owned = None
    request = Request(n128 if not lines else 0, n64 if not lines else 0, bool(no_switch), owned, lines=lines)
    money, code = _budget(budget, currency, errors)
    targets = _targets(models or [], errors)
    if not from_inventory:
        request = replace(request, reserved=_lab_names(), reserved_labels=_lab_labels())
    elif (have := _growable_count()) > MAX_SPARKS:
        # a lab already past any design is refused from a count, before its whole document is read
        errors += count_errors(request, growing=True) or [too_many(request, have)]
    else:
        request = replace(request, inventory=lab_export())
    if not errors:
        try:
            found = designs(request)
        except DesignInputError as exc:
            errors.extend(exc.errors)
    if errors:
        raise BadInput(errors)
    answer = Answer(request, targets, money, code, sparks_owned, from_inventory)
    prices = _prices()
    for design in found:
        out = _design_out(design, answer, prices)
        bom = out["bill_of_materials"]
        if bom.get("fits") is False:  # a known total over the budget: not a candidate
            answer.over_budget.append(
                {
                    "key": out["key"],
                    "title": out["title"],
                    "total": bom["total"],
                    "currency": bom["currency"],
                    "over_by": bom["over_by"],
                    "_design": design,
                }
            )
        else:
            answer.designs.append(out)
    answer.best = _best(answer) if answer.designs else []
    return answer


def _lines(raw: Any, errors: list[tuple[str, str]]) -> tuple[SparkLine, ...]:
    """``sparks``: [{hardware, owned, planned}]; the generator checks hardware and counts against the catalogue."""
    if raw in (None, []):
        return ()
    if not isinstance(raw, list):
        errors.append(("sparks", "must be a list of {hardware, owned, planned}"))
        return ()
    if len(raw) > MAX_LINES:
        errors.append(("sparks", f"at most {MAX_LINES} lines"))
        return ()
    lines = []
    for i, item in enumerate(raw):
        path = f"sparks[{i}]"
        if not isinstance(item, dict):
            errors.append((path, "must be a mapping with hardware, owned and planned"))
            continue
        unknown = sorted(set(item) - LINE_KEYS)
        if unknown:
            errors.append((f"{path}.{unknown[0]}", "unknown key; a line has hardware, owned and planned"))
        hardware = item.get("hardware")
        if not isinstance(hardware, str) or not hardware.strip():
            errors.append((f"{path}.hardware", "must be a Spark's hardware catalogue slug, e.g. dgx-spark-128"))
            continue
        counts = [
            _whole(item.get(k) if item.get(k) is not None else 0, f"{path}.{k}", 0, MAX_LINE, errors)
            for k in ("owned", "planned")
        ]
        if not sum(counts) and not [e for e in errors if e[0].startswith(path)]:
            errors.append((f"{path}.planned", "a line needs at least one Spark, owned or planned"))
        lines.append(SparkLine(hardware.strip(), *counts))
    return tuple(lines)


def default_goal(concurrency: Any) -> str:
    """A target without a goal: one stream is planned for its speed, several
    streams for their decode together."""
    try:
        return "throughput" if int(concurrency) > 1 else "latency"
    except (TypeError, ValueError):
        return "latency"  # the bad number itself is refused by plan_input


def _targets(raw: Any, errors: list[tuple[str, str]]) -> list[Target]:
    if not isinstance(raw, list):
        errors.append(("models", "must be a list of {model, context_tokens, concurrency}"))
        return []
    if len(raw) > MAX_TARGETS:
        errors.append(("models", f"at most {MAX_TARGETS} target models"))
        return []
    targets = []
    for i, item in enumerate(raw):
        path = f"models[{i}]"
        if hasattr(type(item), "model_fields"):  # the API's TargetIn, validated at the edge
            item = {name: getattr(item, name) for name in type(item).model_fields}
        if not isinstance(item, dict):
            errors.append((path, "must be a mapping with model, context_tokens and concurrency"))
            continue
        slug = item.get("model")
        try:
            row = selectors.model_get(slug, f"{path}.model")
        except BadInput as exc:
            errors.extend(exc.errors)
            continue
        engine = item.get("engine", "vllm")
        try:
            inputs = plan_request.plan_input(
                context_tokens=item.get("context_tokens", 8192),
                concurrency=item.get("concurrency", 1),
                goal=item.get("goal") or default_goal(item.get("concurrency", 1)),
                engine=engine,
                model=row.spec(),
            )
        except BadInput as exc:
            errors.extend((f"{path}.{p}", m) for p, m in exc.errors)
            continue
        targets.append(Target(row.slug, inputs.context_tokens, inputs.concurrency, inputs.goal, inputs.engine))
    return targets


# ---------------------------------------------------------------- prices


def _prices() -> dict[str, tuple[Decimal | None, str]]:
    return {
        slug: (price, currency)
        for slug, price, currency in CatalogueEntry.objects.values_list("slug", "price", "currency")
    }


def _parts_out(design: Design, answer: Answer, prices: dict[str, tuple[Decimal | None, str]]) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    totals: dict[str, Decimal] = {}
    unknown: list[str] = []
    for part in design.parts:
        price, currency = prices.get(part.slug, (None, ""))
        buy = part.count - part.owned
        line = price * buy if price is not None else None
        if buy > 0:
            if price is None:
                unknown.append(part.name)
            else:
                totals[currency] = totals.get(currency, Decimal(0)) + (line or Decimal(0))
        rows.append(
            {
                "kind": part.kind,
                "type": part.slug,
                "name": part.name,
                "count": part.count,
                "to_buy": max(buy, 0),
                "coded_for": part.coded_for or None,
                "owned": part.owned,
                "unit_price": None if price is None else str(price),
                "currency": currency or None,
                "line_total": None if line is None else str(line),
            }
        )
    known = not unknown and len(totals) <= 1
    total = next(iter(totals.values()), Decimal(0)) if known else None
    total_currency = next(iter(totals), None) if known else None
    if unknown:
        why = f"no price for {', '.join(unknown)} (a lab admin enters prices in the hardware catalogue)"
    elif len(totals) > 1:
        why = f"not summed: prices in {', '.join(sorted(totals))}"
    else:
        why = ""
    budget: dict[str, Any] = {"budget": None if answer.budget is None else str(answer.budget)}
    if answer.budget is not None:
        if total is None:
            budget["fits"], budget["why"] = None, "cannot be checked: the total is unknown (" + why + ")"
        elif total_currency not in (None, answer.budget_currency) and total:
            budget["fits"], budget["why"] = None, f"cannot be checked: the prices are in {total_currency}"
        else:
            budget["fits"] = total <= answer.budget
            budget["why"] = "within the budget" if budget["fits"] else "over the budget"
            if not budget["fits"]:
                budget["over_by"] = str(total - answer.budget)
    return {
        "parts": rows,
        "total": None if total is None else str(total),
        "currency": total_currency,
        "total_known": total is not None,
        "total_note": why,
        "partial_totals": {c: str(t) for c, t in sorted(totals.items())},
        **budget,
    }


# ---------------------------------------------------------------- plans on the designed group


def group_spec(design: Design) -> GroupSpec:
    """The planner's view of a designed group: expected usable memory (no
    telemetry yet), the cabled ports' twin interfaces, placeholder addresses."""
    group = design.group
    memory = {s["name"]: s["hardware"] for s in design.document["sparks"]}
    from .generate import _SPARK  # the catalogue's figures, one place

    cabled: dict[str, set[str]] = {}
    for link in group.links:
        for end in (link.a, link.b):
            device, _, port = end.partition(":")
            if device in memory:
                cabled.setdefault(device, set()).add(port)
    nodes = []
    for name in group.nodes:
        _, nominal, connectx = _SPARK[memory[name]]
        ports = sorted(cabled.get(name, ()))
        ifaces = {p: (SPARK_PORTS[p][0][0], SPARK_PORTS[p][1][0]) for p in ports}
        rdma = {p: (SPARK_PORTS[p][0][1], SPARK_PORTS[p][1][1]) for p in ports}
        first = ifaces[ports[0]][0] if ports else None
        usable = expected_usable_gb(float(nominal), float(settings.FLEET_OS_RESERVE_GB))
        nodes.append(NodeSpec(name, usable, connectx, ifaces, rdma, placeholder_ip(name, first)))
    return GroupSpec(f"design:{design.key}", group.kind, tuple(nodes), float(group.slowest_link_gbps or 200))


def _plan_out(design: Design, target: Target) -> dict[str, Any]:
    row = selectors.model_get(target.model)
    choice = choose_variant(row.spec(), target.engine, None)
    out: dict[str, Any] = {
        "model": row.slug,
        "model_name": row.name,
        "context_tokens": target.context_tokens,
        "concurrency": target.concurrency,
        "goal": target.goal,
        "engine": target.engine,
        "variant": choice.spec.quantization,
    }
    if choice.error:
        return {**out, "plan": None, "why": choice.error}
    result = plan_placement(
        group_spec(design),
        choice.spec,
        context_tokens=target.context_tokens,
        concurrency=target.concurrency,
        engine=target.engine,
        goal=target.goal,
        constants=lab_calibration().constants,
    )
    plan = result.recommended_plan
    if plan is None:
        why = next((p.reason for p in result.plans if p.reason), "") or " ".join(result.notes) or "no plan fits"
        return {**out, "plan": None, "why": why}
    return {
        **out,
        "plan": {
            "label": plan.label,
            "strategy": plan.strategy,
            "nodes": len(plan.nodes),
            "tp": plan.tp,
            "pp": plan.pp,
            "replicas": plan.replicas,
            "decode_tps": plan.decode_tps,
            "aggregate_tps": plan.aggregate_tps,
            "prefill_tps": plan.prefill_tps,
            "decode_tps_range": _range(plan.decode_tps_range),
            "aggregate_tps_range": _range(plan.aggregate_tps_range),
            "prefill_tps_range": _range(plan.prefill_tps_range),
            "range_basis": plan.range_basis,
            "held_out": plan.held_out.as_dict() if plan.held_out else None,
            "held_out_prefill": plan.held_out_prefill.as_dict() if plan.held_out_prefill else None,
            "collective_backend": plan.collective_backend,
            "prediction_source": plan.prediction_source,
        },
        "why": result.recommendation,
    }


def _range(bounds: tuple[float, float] | None) -> list[float] | None:
    return None if bounds is None else [round(bounds[0], 2), round(bounds[1], 2)]


def engine_out(group: Group) -> dict[str, Any]:
    return {
        "kind": group.kind,
        "nodes": list(group.nodes),
        "switches": list(group.switches),
        "link_gbps": sorted({link.gbps for link in group.links}),
        "slowest_link_gbps": group.slowest_link_gbps,
        "collective_gbs": round(group.collective_gbs, 1),
        "memory": {
            "pooled_gb": group.memory.pooled_gb,
            "symmetric_gb": group.memory.symmetric_gb,
            "local_gb": group.memory.local_gb,
        },
        "findings": [{"code": f.code, "severity": f.severity, "message": f.message} for f in group.findings],
    }


def _design_out(design: Design, answer: Answer, prices: dict[str, tuple[Decimal | None, str]]) -> dict[str, Any]:
    return {
        "key": design.key,
        "title": design.title,
        "kind": design.kind,
        "switch": design.switch,
        "notes": design.notes,
        "topology": engine_out(design.group),
        "recabling": {"unplug": design.unplug, "kept": design.kept_cables, "prune": bool(design.unplug)},
        "bill_of_materials": _parts_out(design, answer, prices),
        "models": [_plan_out(design, t) for t in answer.targets],
        "document": design.document,
        "_design": design,
    }


def _best(answer: Answer) -> list[dict[str, Any]]:
    """The best design for each stated goal (ties go to the earlier, simpler design)."""
    found: list[dict[str, Any]] = []

    def pick(goal: str, score: Any, what: str) -> None:
        scored = [(score(d), i, d) for i, d in enumerate(answer.designs)]
        scored = [(s, i, d) for s, i, d in scored if s is not None]
        if scored:
            best = max(scored, key=lambda x: (x[0], -x[1]))
            found.append(
                {"goal": goal, "design": best[2]["key"], "title": best[2]["title"], "why": what.format(best[0])}
            )

    for t, target in enumerate(answer.targets):

        def one(d: dict[str, Any], t: int = t) -> float | None:
            plan = d["models"][t]["plan"]
            return plan["decode_tps"] if plan and plan["decode_tps"] else None

        def agg(d: dict[str, Any], t: int = t) -> float | None:
            plan = d["models"][t]["plan"]
            return plan["aggregate_tps"] if plan and plan["aggregate_tps"] else None

        # each target's own goal: its plans were chosen for it
        if target.goal == "latency":
            pick(f"fastest one stream of {target.model}", one, "{:.1f} tok/s predicted")
        else:
            streams = f"{target.concurrency} stream{'s' if target.concurrency != 1 else ''}"
            pick(f"most decode of {target.model} at {streams}", agg, "{:.1f} tok/s predicted in all")
    pick("widest exchange bandwidth", lambda d: d["topology"]["collective_gbs"], "{:.0f} GB/s expected class")
    priced = [d for d in answer.designs if d["bill_of_materials"]["total_known"]]
    if priced and len({d["bill_of_materials"]["currency"] for d in priced}) == 1 and len(priced) == len(answer.designs):
        pick("lowest price", lambda d: -Decimal(d["bill_of_materials"]["total"]), "{}")
        if found and found[-1]["goal"] == "lowest price":
            d = next(x for x in answer.designs if x["key"] == found[-1]["design"])
            found[-1]["why"] = f"{d['bill_of_materials']['total']} {d['bill_of_materials']['currency']}"
    else:
        found.append(
            {
                "goal": "lowest price",
                "design": None,
                "title": None,
                "why": "unknown: not every part of every design has a price in the catalogue",
            }
        )
    return found


def _budget_note(answer: Answer) -> str:
    """What the budget did to the candidates, in one sentence ("" without a budget)."""
    if answer.budget is None:
        return ""
    over = len(answer.over_budget)
    unchecked = sum(1 for d in answer.designs if d["bill_of_materials"].get("fits") is None)
    budget = f"{answer.budget} {answer.budget_currency}"
    if over and not answer.designs:
        return (
            f"Every design is over the budget of {budget}: the {over} are listed with what each costs "
            "and by how much it is over."
        )
    parts = []
    if over:
        parts.append(
            f"{over} design{'s' if over != 1 else ''} over the budget of {budget} "
            f"{'are' if over != 1 else 'is'} left out"
        )
    if unchecked:
        parts.append(
            f"{unchecked} design{'s' if unchecked != 1 else ''} cannot be checked against it "
            "(a part without a price: its total is unknown)"
        )
    return ("; ".join(parts) + ".") if parts else f"Every design is within the budget of {budget}."


def answer_out(answer: Answer) -> dict[str, Any]:
    """The API's answer (and what the page draws)."""
    return {
        "request": {
            "sparks_128": answer.request.sparks_128,
            "sparks_64": answer.request.sparks_64,
            "sparks": [
                {"hardware": line.hardware, "owned": line.owned, "planned": line.planned}
                for line in answer.request.lines
            ],
            "from_inventory": answer.from_inventory,
            "no_switch": answer.request.no_switch,
            "owned_switch": answer.request.owned_switch,
            "sparks_owned": answer.sparks_owned,
            "budget": None if answer.budget is None else str(answer.budget),
            "currency": answer.budget_currency or None,
            "models": [t.__dict__ for t in answer.targets],
        },
        "designs": [{k: v for k, v in d.items() if not k.startswith("_")} for d in answer.designs],
        "over_budget": [{k: v for k, v in d.items() if not k.startswith("_")} for d in answer.over_budget],
        "all_over_budget": bool(answer.over_budget) and not answer.designs,
        "budget_note": _budget_note(answer),
        "best": answer.best,
        "predictions": "decode figures are predicted by placement.perfmodel on the designed group "
        "(expected usable memory, expected link speed); nothing is measured before it is built",
    }
