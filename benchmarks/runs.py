"""Benchmark runs started from the page: who may start one, queueing it, and
running it (from the Celery task) on the group's head node over SSH.

Who: lab admins always; members only on a group they hold right now
(``bookings.selectors.may_start_run``). The run measures the server the
launch commands started on the head node (``command.SERVE_URL``) with the
fixed ``vllm bench serve`` command, rebuilt from the stored numbers at run
time rather than read back from the database.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from bookings.selectors import may_start_run
from core import errors
from core.actor import Actor
from core.errors import Unavailable
from core.outage import service_down
from core.runs import HEARTBEAT_STALE_S, WORKER_GONE, heartbeat, run_claim, silent_runs
from inventory.models import Spark
from placement.selectors import groupspec_for, live_group_or_error, model_get, vllm_image
from telemetry.conf import ssh_key_path
from telemetry.remote import Target, run_command
from telemetry.selectors import accepted_host_key
from telemetry.software_store import docker_gap, software_by_name

from .command import (
    SERVE_URL,
    BenchSpec,
    ServerSaid,
    bench_command,
    bench_problems,
    explain_failure,
    read_output,
    read_server,
)
from .conf import bench_timeout_s
from .errors import BenchmarkError
from .models import BenchmarkRun
from .services import result_fields


class RunNotAllowed(BenchmarkError, errors.Forbidden):
    """The user may not start a run on this group (pages and API answer 403)."""

    status = 403


def _spec(run: BenchmarkRun) -> BenchSpec:
    model = run.model
    assert model is not None
    return BenchSpec(
        model.slug,
        model.hf_repo or model.slug,
        run.concurrency,
        run.input_len or 0,
        run.output_len or 0,
        run.num_prompts or 0,
        run.serve_url or SERVE_URL,
        client_image(),
    )


def client_image() -> str:
    """The image vLLM's benchmark client runs in on a head node without ``vllm``: the launch image."""
    return vllm_image()


def client_words(head: str | None) -> tuple[str, str]:
    """(which client a run on ``head`` will use, in words; why it may not
    start, "" when the head node's last software reading shows no sign of
    trouble or there is none). The client is the node's own ``vllm`` when its
    SSH shell finds one, else the launch image under Docker
    (benchmarks.command): a reading that found neither says the run will
    fail; one from before the poll asked about ``vllm`` can only say what else
    would do. A warning, never a refusal: the reading may be older than an install."""
    sw = software_by_name([head]).get(head) if head else None
    vllm = sw["vllm"]["value"] if sw is not None else "unread"
    image = client_image()
    if sw is not None and vllm == "present":
        return f"its own vLLM ({sw['vllm']['path']})", ""
    if vllm == "absent":
        how = f"the launch image's vLLM ({image}), since it has none of its own"
    else:
        how = f"its own vLLM or, without one, the launch image's ({image})"
    return how, _client_warning(head or "", sw, vllm, image)


def _client_warning(head: str, sw: dict[str, Any] | None, vllm: str, image: str) -> str:
    """``client_words``' warning, from what stands between the head node and the launch image (docker_gap)."""
    gap = docker_gap(sw, image) if sw is not None else ""
    if sw is None or not gap:
        return ""
    when = f"when its software was read at {sw['images']['read_at'][:16].replace('T', ' ')} UTC"
    if vllm == "absent":
        # the poll asked the fleet user's shell: without one of these the client cannot start
        why, instead = {
            "absent": ("Docker was not installed there", "Docker with the launch image"),
            "denied": ("that user could not use Docker there", "that user in the docker group"),
            "unreachable": ("its Docker daemon did not answer", "Docker running there"),
            "error": ("its Docker daemon did not answer", "Docker running there"),
            "image": (f"the launch image {image} was not there", "the image pulled there"),
        }[gap]
        return (
            f"no vLLM was on the fleet user's PATH on {head} and {why} {when}: a run there will fail unless "
            f"vLLM is installed there, or {instead}"
        )
    # a reading from before the poll asked about vllm: only what else would do
    needs = f"a run there needs vLLM installed on {head} itself"
    if gap == "absent":
        return f"Docker was not installed on {head} {when}: {needs}"
    if gap == "denied":
        return f"the fleet's SSH user could not use Docker on {head} {when}: {needs}, or that user in the docker group"
    if gap == "image":
        return f"the launch image {image} was not on {head} {when}: {needs}, or the image pulled there"
    return ""  # a daemon that did not answer once: said only when nothing else would run the client


def run_start(
    *,
    actor: Actor,
    group_id: Any,
    model: Any,
    concurrency: Any = 1,
    input_len: Any = 128,
    output_len: Any = 128,
    num_prompts: Any = 10,
    serving: ServedLayout | None = None,
) -> BenchmarkRun:
    """Queue a run (status ``queued``); the task is sent once the row is committed.
    ``serving``: the run measures a served model at its URL, recorded with the
    served plan's layout (so the calibration reads it for that engine and layout)."""
    group = live_group_or_error(group_id)
    allowed, why = may_start_run(actor.user, group)
    if not allowed:
        raise RunNotAllowed(why, "group")
    row = model_get(model)
    url = serving.base_url if serving is not None else SERVE_URL
    spec = BenchSpec(
        row.slug, row.hf_repo or row.slug, concurrency, input_len, output_len, num_prompts, url, client_image()
    )
    errors = bench_problems(spec)
    if not errors and input_len + output_len > row.max_context:
        errors.append(
            (
                "input_len",
                f"input + output ({input_len + output_len:,}) exceeds {row.name}'s "
                f"maximum context ({row.max_context:,})",
            )
        )
    if errors:
        raise BenchmarkError(errors)
    planned = groupspec_for(group)
    nodes = [n.name for n in planned.spec.nodes]
    layout = _layout(nodes, serving, planned.spec.socket_hosts)
    notes = (
        serving.notes
        if serving is not None
        else f"started from the page on {nodes[0]} (head node); the benchmark client cannot see which "
        "collective backend the server used"
    )
    if serving is None and layout["backend"] == "socket":
        notes += (
            f"; the group's latest fabric verification saw NCCL on {', '.join(planned.spec.socket_hosts)} fall "
            "back to TCP sockets, so it is recorded over TCP sockets and the planner does not re-fit on it"
        )
    with transaction.atomic():
        run = BenchmarkRun.objects.create(
            group=group,
            group_name=group.name,
            topology_kind=planned.spec.kind,
            group_nodes=nodes,
            link_gbps=planned.spec.link_gbps,
            model=row,
            model_name=row.slug,
            engine=BenchmarkRun.Engine.VLLM,
            serve_url=url if serving is not None else "",
            **layout,
            concurrency=concurrency,
            input_len=input_len,
            output_len=output_len,
            num_prompts=num_prompts,
            status=BenchmarkRun.Status.QUEUED,
            command=bench_command(spec),
            created_by=actor.known_user,
            created_by_name=actor.username,
            notes=notes,
        )
    # Sent once the row is committed; a broker that refuses it fails the run at once.
    transaction.on_commit(lambda: _queue(run))
    return run


@dataclass(frozen=True)
class ServedLayout:
    """A served model a run measures: its URL, and the layout of one instance as the plan served it."""

    base_url: str
    nodes: list[str]  # the Sparks of the instance measured
    tp: int
    pp: int
    backend: str  # the collective backend the plan names ("none" on one node)
    notes: str
    copies: int = 1  # copies behind the URL's router, measured together
    quantization: str = ""  # the variant served
    mode: str = ""  # the CUDA-graph mode the plan launched its engines in ("": not known)
    checkpoint: str = ""  # the repository the plan's engines loaded ("": not known)


def _layout(nodes: list[str], serving: ServedLayout | None, sockets: tuple[str, ...] = ()) -> dict[str, Any]:
    """The run's layout: the served plan's (with the variant served and the
    mode its engines were launched in), else the whole group's; a multi-node
    run on a group whose latest verification saw NCCL on TCP sockets is
    recorded so (``sockets``), the best word on its network."""
    if serving is None:
        return {
            "nodes": nodes,
            "node_count": len(nodes),
            "backend": "none" if len(nodes) == 1 else ("socket" if sockets else "unknown"),
            "tp": len(nodes),
        }
    return {
        "nodes": serving.nodes,
        "node_count": len(serving.nodes),
        "backend": serving.backend,
        "tp": serving.tp,
        "pp": serving.pp,
        "copies": serving.copies,
        "quantization": serving.quantization,
        "mode": serving.mode,
        "checkpoint": serving.checkpoint,
    }


def _queue(run: BenchmarkRun) -> None:
    """Send the run's task; a broker that cannot take it fails the run with
    the reason (no run is left queued for a task that never comes) and the
    caller gets a 503 naming the broker."""
    from .tasks import run_benchmark

    try:
        run_benchmark.delay(run.pk)
    except Exception as exc:
        which = service_down(exc)
        if which is None:
            raise
        BenchmarkRun.objects.filter(pk=run.pk, status=BenchmarkRun.Status.QUEUED).update(
            status=BenchmarkRun.Status.FAILED,
            error=f"not started: the task queue (broker) is unavailable ({str(exc)[:200]}); start it again",
        )
        raise Unavailable(
            f"the benchmark run could not be queued: the task queue (broker) is unavailable; run {run.pk} is "
            "marked failed. Start it again once the broker is back",
            which,
        ) from exc


def _finish(run: BenchmarkRun, **fields: Any) -> BenchmarkRun:
    for name, value in fields.items():
        setattr(run, name, value)
    run.save()
    return run


# A run whose worker died mid-run is started again by its redelivered task, at
# most core.runs.MAX_ATTEMPTS times in all; one that gives no sign of life for
# core.runs.HEARTBEAT_STALE_S is failed by ``benchmarks.reap`` (every minute).


def runs_abandon_stale() -> int:
    """Fail running runs whose worker stopped giving signs of life."""
    runs = BenchmarkRun.objects.filter(status=BenchmarkRun.Status.RUNNING)
    return silent_runs(runs).update(status=BenchmarkRun.Status.FAILED, error=WORKER_GONE.format(s=HEARTBEAT_STALE_S))


def server_fields(said: ServerSaid, *, client_version: str, run: BenchmarkRun) -> dict[str, Any]:
    """The record's engine, its version, and what else the server said of
    itself (``command.read_server``), with a note saying where each came from.
    A server that said nothing is recorded as vLLM, the engine the page's
    launches start, with the benchmark client's version, and the note says so;
    one that named an engine this app does not know is recorded as "other",
    which the calibration never fits on."""
    url = run.serve_url or SERVE_URL
    # vLLM reports no parallel sizes: a page run on several Sparks keeps the whole group's, and says it is assumed
    assumed = (
        f"; its layout is assumed to be the whole group's (tp {run.tp} on {len(run.nodes)} Sparks): vLLM does "
        "not report its own"
        if not run.serve_url and len(run.nodes) > 1
        else ""
    )
    if said.engine is None:
        return {
            "engine": BenchmarkRun.Engine.VLLM,
            "engine_version": client_version,
            "notes": f"the server at {url} did not list its models (GET /v1/models), so it did not say which "
            "engine it is: recorded as vLLM, with the benchmark client's version" + assumed,
        }
    said_words = f"the server at {url} named itself {said.named!r} (GET /v1/models)"
    if said.engine == "vllm":
        version = said.version or client_version
        where = "its own (GET /version)" if said.version else "the benchmark client's (the server gave none)"
        return {
            "engine": "vllm",
            "engine_version": version,
            "notes": f"{said_words}; the version is {where}{assumed}",
        }
    if said.engine != "sglang":
        what = "llama.cpp" if said.engine == "llama.cpp" else "other, an engine this app does not know"
        return {"engine": said.engine, "engine_version": "", "notes": f"{said_words}: recorded as {what}"}
    fields: dict[str, Any] = {"engine": "sglang", "engine_version": said.version or ""}
    told = [f"version {said.version}"] if said.version else []
    if said.mode:
        told.append("CUDA graphs off" if said.mode == "eager" else "CUDA graphs on")
        if not run.mode:
            fields["mode"] = said.mode
    if said.speculative:
        told.append(f"speculative algorithm {BenchmarkRun.Speculative(said.speculative).label}")
        fields["speculative"] = said.speculative
    if said.layout:
        told.append(said.layout)
    info = f"; GET /get_server_info: {', '.join(told)}" if told else "; it gave no server information"
    fields["notes"] = said_words + info + _sglang_layout(said, run, fields)
    return fields


def _sglang_layout(said: ServerSaid, run: BenchmarkRun, fields: dict[str, Any]) -> str:
    """A run on the head node's port was recorded with the whole group's
    layout, a guess; SGLang's sizes say what ran, and replace it (into
    ``fields``), unless they need more Sparks than the group has. A
    serving's layout is its plan's, already known. The note, in words."""
    if said.sizes is None or run.serve_url:
        return ""
    tp, pp, dp = said.sizes
    if (tp, pp, dp) == (run.tp, run.pp, run.copies):
        return ""
    span, nodes = tp * pp * dp, list(run.nodes)
    if span > len(nodes):
        return f"; its sizes need {span} GPUs, more than the group's {len(nodes)} Sparks: the group's layout is kept"
    fields.update(tp=tp, pp=pp, copies=dp, node_count=tp * pp, nodes=nodes[:span])
    if tp * pp == 1:
        fields["backend"] = BenchmarkRun.Backend.NONE
    which = "" if span == 1 else f" (which Sparks after {nodes[0]}, the head, is not known)"
    copies = f" in {dp} copies" if dp > 1 else ""
    return (
        f"; recorded with SGLang's layout, tp {tp} and pp {pp} on {tp * pp} Spark{'s' if tp * pp != 1 else ''}"
        f"{copies}, not the whole group's {len(nodes)}{which}"
    )


def run_execute(*, run_id: int, task_id: str = "") -> BenchmarkRun | None:
    """Run a queued benchmark once (a redelivered task finds it taken and
    stops, unless its own earlier attempt died: then it runs it again)."""
    if not run_claim(BenchmarkRun, run_id, task_id):
        return None
    run = BenchmarkRun.objects.select_related("model").get(pk=run_id)
    failed = BenchmarkRun.Status.FAILED
    head = Spark.objects.filter(name=run.nodes[0] if run.nodes else "").first()
    if head is None or run.model is None:
        return _finish(run, status=failed, error="the head node or the model is gone from the inventory")
    accepted = accepted_host_key(head)
    if accepted is None:
        return _finish(
            run,
            status=failed,
            error=f"no accepted SSH host key for {head.name}: accept it on the telemetry page first; nothing was run",
        )
    key = ssh_key_path()
    if not key.exists():
        return _finish(run, status=failed, error="the fleet's SSH key (FLEET_SSH_KEY) does not exist; nothing was run")
    command = bench_command(_spec(run))
    with heartbeat(BenchmarkRun, run.pk, running=BenchmarkRun.Status.RUNNING):
        outcome = run_command(
            Target(head.ssh_host, head.ssh_port, head.ssh_user),
            command,
            client_keys=[str(key)],
            accepted_key=accepted,
            timeout=bench_timeout_s(),
        )
    if outcome.error:
        error = explain_failure(outcome.error, head=head.name, image=client_image())
        return _finish(run, status=failed, error=error, command=command)
    result = read_output(outcome.output, model=run.model.slug)
    if isinstance(result, list):
        return _finish(
            run,
            status=failed,
            command=command,
            error="could not read the benchmark output: " + "; ".join(f"{f}: {m}" for f, m in result),
        )
    fields = result_fields(result, run.model)
    # the sizes asked for are known exactly; the summary only gives them as averages
    for known in ("measured_at", "input_len", "output_len", "concurrency"):
        fields.pop(known, None)
    fields["derived"] = [f for f in fields.get("derived", ()) if f not in ("input_len", "output_len")]
    said = server_fields(read_server(outcome.output), client_version=fields.get("engine_version", ""), run=run)
    notes = "; ".join(x for x in (run.notes, fields.pop("notes", ""), said.pop("notes")) if x)
    fields.update(said)
    return _finish(
        run,
        **fields,
        notes=notes,
        status=BenchmarkRun.Status.DONE,
        measured_at=timezone.now(),
        command=command,
        error="",
    )
