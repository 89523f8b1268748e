"""One planning request, from raw input to plans with launch commands.

Shared by the plan page and ``POST /api/plans``: checks the inputs field by
field (the planner would only say "fix the inputs"), runs the pure planner on
a ``PlannedGroup`` (the group as observed) and turns every fitting plan into
launch commands for the launchers of the chosen engine. Down Sparks run
nothing: the plans (and the one recommendation) are on the part of the group
that works now, and the planning carries what the whole group would give once
they work again. With a degraded Spark the plans keep it, say so, and carry
the plans without it for comparison. Writes nothing.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from core.validation import as_whole_number

from .errors import PlacementError
from .lab_calibration import lab_runs
from .launch import LAUNCH_ENGINES, PLANNER_ENGINE, LaunchError, launch_commands
from .model_catalogue import MAX_CONTEXT_TOKENS, ModelSpec
from .perfmodel import (
    CONSTANTS_BY_READING,
    DEFAULT_READING,
    MODES,
    READINGS,
    FitReport,
    LabRun,
    PerfConstants,
    fit_report,
    prediction_source,
)
from .perfmodel.evidence import Configuration, measured_runs
from .planner import BACKEND_HINTS, ENGINES, GOALS, Plan, PlanResult, plan_placement
from .selectors import PlannedGroup, groupspec_for_nodes, launch_settings_for, when_healthy, working_part

MAX_CONCURRENCY = 4096


@dataclass(frozen=True)
class PlanInput:
    context_tokens: int = 8192
    concurrency: int = 1
    goal: str = "latency"
    engine: str = "vllm"
    mode: str = "graphs"  # "eager": --enforce-eager
    backend: str = "auto"  # the collective backend asked for ("auto": what the engine's image uses)


@dataclass
class PlannedPlan:
    plan: Plan
    launch: dict[str, dict[str, str]] = field(default_factory=dict)  # launcher -> node -> script
    launch_problems: dict[str, list[str]] = field(default_factory=dict)

    def launch_text(self, launcher: str) -> str:
        """All nodes' scripts of one launcher as one text, each under its node's name."""
        scripts = self.launch.get(launcher, {})
        if len(scripts) == 1:
            return next(iter(scripts.values()))
        return "\n".join(f"# ===== on {node} =====\n{script}" for node, script in scripts.items())


@dataclass
class Planning:
    group: PlannedGroup
    model: ModelSpec
    inputs: PlanInput
    result: PlanResult
    plans: list[PlannedPlan]
    # Without the group's degraded Sparks: the plans there (for comparison), or why there are none.
    alternative: Planning | None = None
    alternative_problem: str = ""
    # The group asked for when down Sparks were left out of it (``group`` is then the part that works)
    asked: PlannedGroup | None = None
    left_out: list[Any] = field(default_factory=list)  # the down Sparks left out (states)
    left_out_words: str = ""  # what was left out, in words
    full: Planning | None = None  # the whole group once its down Sparks work again (no launch commands)

    @property
    def unhealthy(self) -> list[Any]:
        return self.group.unhealthy

    @property
    def without(self) -> list[str]:
        """The group's Sparks that are neither degraded nor down."""
        bad = {s.name for s in self.unhealthy}
        return [n.name for n in self.group.spec.nodes if n.name not in bad]

    @property
    def recommended(self) -> PlannedPlan | None:
        index = self.result.recommended
        return None if index is None else self.plans[index]

    @property
    def launch_missing(self) -> dict[str, list[str]]:
        """The recommended plan's launchers that have no commands, and why ({}: every one has them,
        or the plan's commands were not asked for)."""
        item = self.recommended
        return {} if item is None else dict(item.launch_problems)

    @property
    def source(self) -> str:
        return self.result.plans[0].prediction_source if self.result.plans else prediction_source()


def _whole(value: Any, name: str, low: int, high: int, errors: list[tuple[str, str]]) -> int:
    value = as_whole_number(value, strip=True)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        errors.append((name, f"must be a whole number from {low:,} to {high:,}"))
        return low
    return value


def plan_input(
    *,
    context_tokens: Any,
    concurrency: Any,
    goal: Any,
    engine: Any,
    model: ModelSpec,
    mode: Any = "graphs",
    backend: Any = "auto",
) -> PlanInput:
    """Checked inputs, or PlacementError naming every bad field."""
    errors: list[tuple[str, str]] = []
    context = _whole(context_tokens, "context_tokens", 1, MAX_CONTEXT_TOKENS, errors)
    if not errors and context > model.max_context:
        errors.append(
            ("context_tokens", f"{context:,} exceeds {model.name}'s maximum context ({model.max_context:,} tokens)")
        )
    streams = _whole(concurrency, "concurrency", 1, MAX_CONCURRENCY, errors)
    if goal not in GOALS:
        errors.append(("goal", f"one of {', '.join(GOALS)}"))
    if engine not in ENGINES:
        errors.append(("engine", f"one of {', '.join(ENGINES)}"))
    if mode not in MODES:
        errors.append(("mode", f"one of {', '.join(MODES)}"))
    if backend not in BACKEND_HINTS:
        errors.append(("collective_backend", f"one of {', '.join(BACKEND_HINTS)}"))
    if errors:
        raise PlacementError(errors)
    return PlanInput(context, streams, str(goal), str(engine), str(mode), str(backend))


def launchers_for(engine: str) -> list[str]:
    return [name for name in LAUNCH_ENGINES if PLANNER_ENGINE[name] == engine]


def plan_group(
    *,
    group: PlannedGroup,
    model: ModelSpec,
    inputs: PlanInput,
    launch_for: Collection[int] | None = None,
    constants: PerfConstants | None = None,
    alternative: bool = True,
    lab: list[LabRun] | None = None,
) -> Planning:
    """Plans with launch commands for every fitting plan, or only for the plans
    at the indices in ``launch_for`` (the page loads them one at a time);
    ``constants``: the performance model's (default: the published fit);
    ``lab``: the lab's runs the caller already read (else read here, once),
    each plan listing those of its configuration. With
    a down Spark in the group, the plans are on the part that works now and
    ``full`` says what the whole group would give once it works; with a
    degraded one, also the plans without it."""
    lab = lab_runs() if lab is None else lab
    if alternative and group.down:
        part, words = working_part(group)
        planning = _plan_on(part, model, inputs, launch_for, constants, lab, alternative=True)
        planning.asked, planning.left_out, planning.left_out_words = group, group.down, words
        planning.full = _plan_on(when_healthy(group), model, inputs, (), constants, lab, alternative=False)
        return planning
    return _plan_on(group, model, inputs, launch_for, constants, lab, alternative=alternative)


def _plan_on(
    group: PlannedGroup,
    model: ModelSpec,
    inputs: PlanInput,
    launch_for: Collection[int] | None,
    constants: PerfConstants | None,
    lab: list[LabRun],
    *,
    alternative: bool,
) -> Planning:
    spec = group.spec if inputs.backend == "auto" else replace(group.spec, collective_backend=inputs.backend)
    result = plan_placement(
        spec,
        model,
        context_tokens=inputs.context_tokens,
        concurrency=inputs.concurrency,
        engine=inputs.engine,
        goal=inputs.goal,
        constants=constants,
        mode=inputs.mode,
    )
    if result.errors:
        # what the planner still refuses (a broken group or model row) names its field
        raise PlacementError([(path, message) for path, message in result.errors])
    result = with_lab_runs(result, model, lab)
    plans = []
    settings = launch_settings_for(group) if result.plans else None
    for index, plan in enumerate(result.plans):
        planned = PlannedPlan(plan)
        # the recommended plan's commands always: whether it can be launched is part of recommending it
        wanted = launch_for is None or index in launch_for or index == result.recommended
        if plan.fits and wanted:
            for launcher in launchers_for(inputs.engine):
                try:
                    planned.launch[launcher] = launch_commands(
                        plan, group.spec, model, engine=launcher, settings=settings
                    )
                except LaunchError as exc:
                    planned.launch_problems[launcher] = [f"{where}: {msg}" for where, msg in exc.problems]
        plans.append(planned)
    planning = Planning(group, model, inputs, result, plans)
    if alternative and group.unhealthy and not group.down:
        _add_alternative(planning, launch_for, constants, lab)
    return planning


def with_lab_runs(result: PlanResult, model: ModelSpec, runs: list[LabRun]) -> PlanResult:
    """Each plan with the lab's own measured runs of its very configuration
    (``perfmodel.evidence.measured_runs``), beside the published ones."""
    if not runs:
        return result
    slug, form = model.slug, model.quantization
    plans = [
        replace(
            p,
            lab_runs=measured_runs(
                runs,
                Configuration(
                    slug, form, p.engine, (p.tp, p.pp, p.ep, p.replicas), p.exchange_path, p.mode, p.concurrency
                ),
            ),
        )
        for p in result.plans
    ]
    return replace(result, plans=plans)


def _add_alternative(
    planning: Planning, launch_for: Collection[int] | None, constants: PerfConstants | None, lab: list[LabRun]
) -> None:
    names = planning.without
    if not names:
        planning.alternative_problem = "every Spark of the group is degraded"
        return
    try:
        healthy = groupspec_for_nodes(names)
        planning.alternative = plan_group(
            group=healthy,
            model=planning.model,
            inputs=planning.inputs,
            launch_for=() if launch_for is not None else None,
            constants=constants,
            alternative=False,
            lab=lab,
        )
    except PlacementError as exc:
        planning.alternative_problem = "; ".join(message for _, message in exc.errors)


@lru_cache(maxsize=len(READINGS))
def fit_table(reading: str = DEFAULT_READING) -> FitReport:
    """The performance model's errors on the published points (fixed constants: computed once)."""
    return fit_report(reading, CONSTANTS_BY_READING[reading])


def readings() -> list[tuple[str, FitReport, bool, list[tuple[str, float]]]]:
    """Every reading of the disputed table row: its errors, whether it is the one
    in use, and the mean absolute error of each set ("hold-out decode", ...)."""
    result = []
    for reading in READINGS:
        report = fit_table(reading)
        means = [
            (f"{'hold-out' if role == 'holdout' else role} {metric}", value)
            for role in ("train", "holdout")
            for metric in ("decode", "prefill", "aggregate")
            if (value := report.mape(role, metric)) is not None
        ]
        result.append((reading, report, reading == DEFAULT_READING, means))
    return result
