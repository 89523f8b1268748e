"""Fabric verification: who may start one, queueing it (one per group at a
time, a database constraint), running it on the group's head node over SSH
(from the Celery task), and judging what it printed. Also each Spark's
netplan file, computed over the group's cabling and telemetry's addresses.

The SSH side is telemetry's (``telemetry.remote.run_command``: the fleet's
key only, the head node's accepted host key, bounded output); the command is
``fabric.command.verify_command``, rebuilt at run time from the stored node
list, so nothing a user typed reaches a shell.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from core import errors
from core.actor import Actor
from core.hooks import Hook
from core.locks import lock_sparks
from core.outage import service_down
from core.roles import is_admin
from core.runs import HEARTBEAT_STALE_S, WORKER_GONE, heartbeat, run_claim, silent_runs
from inventory.models import NodeGroup, Spark
from placement.launch import usable_mgmt_ip
from placement.selectors import PlannedGroup, groupspec_for, live_group_or_error
from telemetry.conf import ssh_key_path
from telemetry.remote import Target, run_command
from telemetry.selectors import accepted_host_key, latest_samples

from . import selectors
from .command import SWEEP_SIZES, VerifyNode, verify_command, verify_problems
from .conf import grace_s, verify_settings
from .models import FabricRun
from .nccl import judge, parse_all_gather
from .netplan import NetworkPlan, Segment, netplan_yaml, plan_addresses, segments_from_links

if TYPE_CHECKING:
    from core.types import Visitor

log = logging.getLogger(__name__)
OUTPUT_LIMIT = 1_000_000


class VerifyNotAllowed(errors.Forbidden):
    """Pages and the API answer 403."""


# Who may start a run on a group now (the bookings app, above, adds its rule:
# lab admins always, members on a group booked for them now). Without a rule
# only lab admins may.
MayStartRun = Callable[[Any, NodeGroup], tuple[bool, str]]
RUN_PERMISSION: Hook[MayStartRun] = Hook("fabric.run_permission")
# What else runs on these Sparks (their ids) and would disturb a verification or be
# disturbed by it, in words (serving adds its live engines); read under the Sparks' lock.
BUSY_SPARKS: Hook[Callable[[list[int]], list[str]]] = Hook("fabric.busy_sparks")


def may_verify(user: Visitor | None, group: NodeGroup) -> tuple[bool, str]:
    """Lab admins on any group; a member on a group booked for them now (as benchmark runs)."""
    rule = RUN_PERMISSION.first()
    if rule is None:
        return (True, "") if is_admin(user) else (False, "verifying needs the lab admin role")
    allowed, why = rule(user, group)
    return allowed, why.replace("starts runs", "verifies the fabric").replace("starting a run", "verifying")


def verify_nodes(planned: PlannedGroup) -> list[VerifyNode]:
    """The run's nodes, head first: how mpirun reaches each (its management
    address, else its name) and the RoCE twins of its cabled ports."""
    hosts = dict(Spark.objects.filter(name__in=[n.name for n in planned.spec.nodes]).values_list("name", "ssh_host"))
    return [
        VerifyNode(
            n.name,
            usable_mgmt_ip(hosts.get(n.name)) or n.name,
            tuple(d for port in sorted(n.port_rdma) for d in n.port_rdma[port]),
        )
        for n in planned.spec.nodes
    ]


# A run whose task is redelivered after its worker died is started again, at
# most MAX_ATTEMPTS times in all; one silent for HEARTBEAT_STALE_S is failed
# (core.runs: the claim and heartbeat every run shares).


def runs_abandon_stale(group: NodeGroup | None = None) -> int:
    """Fail running runs that stopped giving signs of life (``fabric.reap``
    does this every minute; starting a run does it for its group first)."""
    runs = FabricRun.objects.filter(status=FabricRun.Status.RUNNING)
    if group is not None:
        runs = runs.filter(group=group)
    return silent_runs(runs).update(
        status=FabricRun.Status.FAILED,
        verdict="failed",
        finished_at=timezone.now(),
        error=WORKER_GONE.format(s=HEARTBEAT_STALE_S),
    )


def _queue(run: FabricRun) -> None:
    """Send the run's task; if the broker cannot take it, the run is marked
    failed with the reason (nothing is left queued for a task that will never
    come) and the caller gets a 503 naming the broker."""
    from .tasks import verify_fabric

    try:
        verify_fabric.delay(run.pk)
    except Exception as exc:
        which = service_down(exc)
        if which is None:
            raise
        reason = (
            f"not started: the task queue (broker) is unavailable ({str(exc)[:200]}); start it again once it is back"
        )
        FabricRun.objects.filter(pk=run.pk, status=FabricRun.Status.QUEUED).update(
            status=FabricRun.Status.FAILED, verdict="failed", finished_at=timezone.now(), error=reason
        )
        log.warning("fabric run %s could not be queued: %s", run.pk, exc)
        raise errors.Unavailable(
            f"the verification could not be queued: the task queue (broker) is unavailable; run {run.pk} "
            "is marked failed. Start it again once the broker is back",
            which,
        ) from exc


def verification_start(*, actor: Actor, group_id: Any, queue: bool = True) -> FabricRun:
    """Queue a verification (status ``queued``); the task is sent once the row
    is committed (``queue=False``: the caller runs it, as ``manage.py verify``
    does). Pages and the API check the role; the command line is the operator's."""
    group = live_group_or_error(group_id)
    allowed, why = may_verify(actor.user, group)
    if not allowed and actor.source != "command":
        raise VerifyNotAllowed(why, "group")
    planned = groupspec_for(group)
    nodes = verify_nodes(planned)
    settings = verify_settings()
    problems = verify_problems(nodes, settings)
    if problems:
        raise errors.BadInput(problems)
    command = verify_command(nodes, planned.spec.kind, settings)
    runs_abandon_stale(group)
    try:
        with transaction.atomic():
            # Another group's run on these Sparks (a sub-group's and its switch group's), or an
            # engine serving there: both at once measured each other, and the planner reads the figure.
            names = [n.name for n in nodes]
            ids = list(Spark.objects.filter(name__in=names).values_list("pk", flat=True))
            lock_sparks(ids)
            busy = [
                f"{', '.join(sorted(shared))} {'is' if len(shared) == 1 else 'are'} "
                f"being verified in run {other.pk} of {other.group_name}"
                for other, shared in selectors.active_runs_on(names, exclude_group=group.pk)
            ]
            busy += [sentence for entry in BUSY_SPARKS for sentence in entry(ids)]
            if busy:
                raise errors.Conflict(f"{group.name} is busy: {'; '.join(busy)}; wait for it to end", "group")
            run = FabricRun.objects.create(
                group=group,
                group_name=group.name,
                kind=planned.spec.kind,
                link_gbps=planned.spec.link_gbps,
                nodes=[{"name": n.name, "host": n.host, "rdma": list(n.rdma)} for n in nodes],
                command=command,
                created_by=actor.known_user,
                created_by_name=actor.username,
            )
    except IntegrityError:
        running = FabricRun.objects.filter(group=group, status__in=FabricRun.ACTIVE).first()
        ref = f" (run {running.pk}, started by {running.created_by_name or 'someone'})" if running else ""
        raise errors.Conflict(
            f"a fabric verification of {group.name} is already under way{ref}; wait for it to finish", "group"
        ) from None
    if queue:
        # Sent once the row is committed; a broker that refuses it fails the run at once.
        transaction.on_commit(lambda: _queue(run))
    return run


def _nodes_of(run: FabricRun) -> list[VerifyNode]:
    return [VerifyNode(str(n["name"]), str(n["host"]), tuple(str(d) for d in n["rdma"])) for n in run.nodes]


def _finish(run: FabricRun, **fields: Any) -> FabricRun:
    fields.setdefault("finished_at", timezone.now())
    for name, value in fields.items():
        setattr(run, name, value)
    run.save()
    return run


def _judged(run: FabricRun, output: str, error: str) -> FabricRun:
    result = parse_all_gather(output)
    # a run whose ranks chose different networks waits forever on builds that drop the refused
    # connection: its finding names the node to fix, not a node that stopped answering
    if error and "timed out" in error and not result.mixed_networks:
        done = len(result.rows)
        error = (
            f"{error}: the run stopped after {done} of {len(SWEEP_SIZES)} buffer sizes; a node stopped "
            f"answering ({', '.join(n['name'] for n in run.nodes)}): check which one answers SSH and "
            "telemetry, then run again"
        )
    verdict = judge(result, kind=run.kind, link_gbps=run.link_gbps, error=error)
    done = result.complete and not error  # the run finished; its verdict may still be "failed"
    return _finish(
        run,
        status=FabricRun.Status.DONE if done else FabricRun.Status.FAILED,
        verdict=verdict.status,
        output=output[-OUTPUT_LIMIT:],
        result=result.to_dict(),
        avg_busbw=result.avg_busbw if result.complete and not error else None,
        expected_low=verdict.expected.low,
        expected_high=verdict.expected.high,
        expected_source=verdict.expected.source[:300],
        error=error,
        findings=[
            {"code": f.code, "severity": f.severity, "message": f.message, "fix": f.fix} for f in verdict.findings
        ],
    )


def _claim(run_id: int, task_id: str) -> bool:
    """Take a queued run, or start again the one this task was running when its worker died (core.runs)."""
    return run_claim(
        FabricRun,
        run_id,
        task_id,
        restart={"output": "", "result": None},
        failed={"verdict": "failed", "finished_at": timezone.now()},
    )


def verification_execute(*, run_id: int, task_id: str = "") -> FabricRun | None:
    """Run a queued verification once (a redelivered task finds it taken and
    stops, unless its own earlier attempt died: then it runs it again)."""
    if not _claim(run_id, task_id):
        return None
    run = FabricRun.objects.get(pk=run_id)
    failed = FabricRun.Status.FAILED
    head = Spark.objects.filter(name=run.nodes[0]["name"] if run.nodes else "").first()
    if head is None:
        return _finish(run, status=failed, verdict="failed", error="the head node is gone from the inventory")
    accepted = accepted_host_key(head)
    if accepted is None:
        return _finish(
            run,
            status=failed,
            verdict="failed",
            error=f"no accepted SSH host key for {head.name}: accept it on its telemetry page first; nothing was run",
        )
    key = ssh_key_path()
    if not key.exists():
        return _finish(
            run,
            status=failed,
            verdict="failed",
            error="the fleet's SSH key (FLEET_SSH_KEY) does not exist; nothing was run",
        )
    settings = verify_settings()
    try:
        command = verify_command(_nodes_of(run), run.kind, settings)
    except ValueError as exc:
        return _finish(run, status=failed, verdict="failed", error=str(exc))

    def progress(text: str) -> None:
        # runs in a worker thread (see run_command): its own connection, closed after
        try:
            FabricRun.objects.filter(pk=run.pk, status=FabricRun.Status.RUNNING).update(
                output=text[-OUTPUT_LIMIT:], result=parse_all_gather(text).to_dict(), heartbeat_at=timezone.now()
            )
        except Exception:  # progress is a nicety: never let it end the run
            log.warning("could not store the progress of fabric run %s", run.pk, exc_info=True)
        finally:
            connection.close()

    with heartbeat(FabricRun, run.pk, running=FabricRun.Status.RUNNING):
        outcome = run_command(
            Target(head.ssh_host, head.ssh_port, head.ssh_user),
            command,
            client_keys=[str(key)],
            accepted_key=accepted,
            timeout=settings.timeout_s + grace_s(),
            max_bytes=OUTPUT_LIMIT,
            on_output=progress,
        )
    run.refresh_from_db()
    if run.status != FabricRun.Status.RUNNING:  # marked failed meanwhile (silent too long): keep that verdict
        return run
    run.command = command
    return _judged(run, outcome.output, outcome.error)


# --- netplan ----------------------------------------------------------------------


@dataclass(frozen=True)
class GroupNetplan:
    group: NodeGroup
    nodes: list[str]
    segments: list[Segment]
    plan: NetworkPlan
    files: dict[str, str]


def _observed(names: list[str]) -> dict[str, dict[str, list[str]]]:
    found: dict[str, dict[str, list[str]]] = {}
    for name, sample in latest_samples(names).items():
        found[name] = {str(t.get("name")): list(t.get("addresses") or ()) for t in sample.twin_list}
    return found


def group_netplan(group_id: Any) -> GroupNetplan:
    """The netplan file of every Spark of a group, addressed over its whole
    cabled group (a sub-group of a switch shares the switch's subnets)."""
    group = live_group_or_error(group_id)
    root = group.parent or group
    planned = groupspec_for(root)
    names = [n.name for n in planned.spec.nodes]
    links = [(link.a, link.b) for link in planned.topology.links]
    segments = segments_from_links(links, names)
    plan = plan_addresses(segments, _observed(names))
    members = set(group.members.values_list("spark__name", flat=True))
    nodes = [n for n in names if n in members and plan.addresses.get(n)]
    files = {n: netplan_yaml(n, plan, group=group.name) for n in nodes}
    return GroupNetplan(group, nodes, segments, plan, files)


def spark_netplan(name: str) -> tuple[str, GroupNetplan]:
    """One Spark's file, from the live cabled group it belongs to."""
    spark = Spark.objects.filter(name=name).first()
    if spark is None:
        raise errors.NotFound(f"no Spark is named {name!r}", "name")
    group = (
        NodeGroup.objects.filter(members__spark=spark, retired_at__isnull=True, parent__isnull=True)
        .order_by("pk")
        .first()
    )
    if group is None:
        raise errors.NotFound(f"{name} is in no live group", "name")
    netplan = group_netplan(group.pk)
    if name not in netplan.files:
        raise errors.BadInput(f"{name} has no cabled ConnectX-7 port: it needs no cluster network file", "name")
    return netplan.files[name], netplan
