"""The recommended plan for a goal, the runner-up, and the words telling
them apart (including when the two lie within each other's predicted ranges).
Plain data in and out; no Django."""

from __future__ import annotations

from placement.plan_types import Plan, with_range

_STRATEGY_ORDER = ("single", "tp", "pp", "tp+pp", "ep")

# A plan that takes more nodes than another must be at least this much faster
# (one stream for latency, all streams for throughput) to be recommended over
# it: TP's per-token communication and fixed costs make small gains fragile,
# and the nodes it leaves free can serve something else. Between plans on the
# same nodes (TP2 against two copies on a pair) the faster one wins, and when
# each lies inside the other's range the recommendation says so.
MORE_NODES_MARGIN = 0.10


def _metric(p: Plan, goal: str) -> float:
    return (p.decode_tps if goal == "latency" else p.aggregate_tps) or 0.0


def recommend(plans: list[Plan], goal: str, stream_ms: float = 0.0) -> tuple[int | None, int | None, str]:
    """The recommended plan, the runner-up, and the words telling them apart."""
    fitting = [i for i, p in enumerate(plans) if p.fits and p.decode_tps is not None]
    if not fitting:
        if not plans:
            return None, None, "No plan."
        closest = max(range(len(plans)), key=lambda i: plans[i].memory_per_node_gb.free)
        p = plans[closest]
        return (
            None,
            None,
            (f"Nothing fits on this group. Closest: {p.label}, {-p.memory_per_node_gb.free:.1f} GB short per node."),
        )

    def key(i: int) -> tuple[float, float, int, int, int]:
        p = plans[i]
        first, second = (p.decode_tps, p.aggregate_tps) if goal == "latency" else (p.aggregate_tps, p.decode_tps)
        base = p.strategy.removesuffix("+replicas").replace("replicas", "single")
        return (
            round(first or 0.0, 6),
            round(second or 0.0, 6),
            -len(p.nodes),
            -p.replicas,
            -_STRATEGY_ORDER.index(base),
        )

    ranked = sorted(fitting, key=key, reverse=True)
    top = ranked[0]
    # fewer nodes in all win unless the faster plan beats them by the margin;
    # on the same nodes, the faster plan wins
    close = [i for i in ranked if _metric(plans[i], goal) >= _metric(plans[top], goal) * (1 - MORE_NODES_MARGIN)]
    best = min(close, key=lambda i: (len(plans[i].nodes), -_metric(plans[i], goal), ranked.index(i)))
    # the runner-up is another way of spreading the model (more copies of the
    # same instance are the same way, for one stream)
    shape = (plans[best].tp, plans[best].pp, plans[best].ep, plans[best].stage_layers)
    others = [
        i
        for i in ranked
        if i != best
        and (goal == "throughput" or (plans[i].tp, plans[i].pp, plans[i].ep, plans[i].stage_layers) != shape)
    ]
    runner = others[0] if others else None
    return best, runner, _recommendation_words(plans, best, runner, goal, len(fitting), stream_ms)


def _recommendation_words(
    plans: list[Plan], best: int, runner: int | None, goal: str, fitting: int, stream_ms: float = 0.0
) -> str:
    p = plans[best]
    metric = "one stream" if goal == "latency" else f"{p.concurrency} streams together"
    unit = "tok/s"
    text = (
        f"Recommended: {p.label} ({p.strategy}) — {metric} ~{_metric(p, goal):.0f} {unit} predicted, "
        f"best of {fitting} fitting plan{'s' if fitting != 1 else ''}."
    )
    if runner is None:
        return text
    q = plans[runner]
    diff = (_metric(q, goal) / _metric(p, goal) - 1) * 100 if _metric(p, goal) else 0.0
    text += f" Runner-up: {q.label} ({q.strategy}) at ~{_metric(q, goal):.0f} {unit} ({diff:+.0f}%)"
    if _metric(q, goal) > _metric(p, goal):
        text += (
            f": faster, but it needs {len(q.nodes)} nodes against {len(p.nodes)}, "
            f"and {p.label} is within {MORE_NODES_MARGIN:.0%} of its speed"
        )
        if q.collective_ms:
            text += f" (its communication costs ~{q.collective_ms:.1f} ms per token)"
    elif (
        goal == "throughput"
        and q.replicas < p.replicas
        and q.nodes_per_instance > p.nodes_per_instance
        and stream_ms > 0
    ):
        text += (
            f": one instance batching all {p.concurrency} streams pays the per-stream cost "
            f"(~{stream_ms:.1f} ms a step for each extra stream: the engine's scheduling and the stream's "
            f"expert slots, not split by TP) for every one of them, while {p.replicas} copies each pay it "
            "for their own share"
        )
    elif q.nodes_per_instance > p.nodes_per_instance and q.collective_ms:
        text += (
            f": spreading each copy over {q.nodes_per_instance} nodes costs ~{q.collective_ms:.1f} ms of "
            "communication per token, more than its bandwidth gain"
        )
    elif q.replicas != p.replicas:
        text += f": {q.replicas} cop{'ies' if q.replicas != 1 else 'y'} against {p.replicas}"
    text += "."
    overlap = _within_each_other(p, q, goal)
    if overlap:
        text += " " + overlap
    return text


def _within_each_other(p: Plan, q: Plan, goal: str) -> str:
    """Words saying that two plans' predictions lie inside each other's
    ranges (the model cannot tell which is faster), or nothing."""
    rp = p.decode_tps_range if goal == "latency" else p.aggregate_tps_range
    rq = q.decode_tps_range if goal == "latency" else q.aggregate_tps_range
    mp, mq = _metric(p, goal), _metric(q, goal)
    if rp is None or rq is None or not (rp[0] <= mq <= rp[1] and rq[0] <= mp <= rq[1]):
        return ""
    return (
        f"The two are within each other's predicted ranges ({p.label}: {with_range(mp, rp)}; "
        f"{q.label}: {with_range(mq, rq)}): the model cannot tell which is faster here, so measure both "
        "on this group before settling."
    )
