"""What the worker does for a serving (called by ``serving.tasks``): run each
step's script on its node over SSH (``telemetry.remote``: the fleet's key,
the host key an admin accepted, the script on stdin of a fixed ``bash -s``),
keeping each step's output as it arrives; wait until every engine's
OpenAI endpoint lists the model (``GET /v1/models``), then the router's;
then ``serving``. Any failure: ``failed`` with the step and its output, and
whatever was started is stopped. Stopping runs the fixed stop script on
every node and frees the Sparks.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import connection
from django.utils import timezone

from core.runs import HEARTBEAT_S, heartbeat
from fabric.nccl import networks_in
from inventory.models import Spark
from telemetry import docker_start
from telemetry.conf import ssh_key_path
from telemetry.remote import STOPPED as STOPPED_WHILE_RUNNING
from telemetry.remote import Outcome, Target, run_command
from telemetry.selectors import accepted_host_key

from . import steps as serve_steps
from .conf import pull_timeout_s, ready_timeout_s, step_timeout_s, weights_timeout_s
from .models import Serving
from .services import serving_release

log = logging.getLogger(__name__)
STARTING, SERVING, FAILED, STOPPING, STOPPED = (
    Serving.Status.STARTING,
    Serving.Status.SERVING,
    Serving.Status.FAILED,
    Serving.Status.STOPPING,
    Serving.Status.STOPPED,
)
MAX_OUTPUT = 200_000
# how long a second delivery of a start watches the first worker's heartbeat before it calls it dead
WATCH_S = 2.5 * HEARTBEAT_S
PROGRESS_EVERY_S = 2.0  # how often a running step's output so far is written
ENGINE_WATCH_S = 15.0  # how often the wait for an engine reads its container's state and last lines


def _phase(step: dict[str, Any]) -> str:
    """The steps run side by side, one per node: the image's, then the weights' ("" for any other)."""
    if step.get("image"):
        return serve_steps.IMAGE
    return serve_steps.WEIGHTS if step.get("weights") else ""


def _progress(step: dict[str, Any], text: str) -> None:
    """What a side-by-side step has downloaded so far, kept on it: an image's layers, the weights' bytes."""
    if step.get("image"):
        step["layers"] = docker_start.pull_layers(text)
    elif step.get("weights"):
        step["on_disk"] = serve_steps.weights_on_disk(text)


@dataclass(frozen=True)
class _Reach:
    """How to run a script on a node: read from the database before any SSH."""

    target: Target
    key: str
    accepted: str


def _reach(name: str) -> _Reach | Outcome:
    """The node's SSH target, the fleet's key and the accepted host key, or why it cannot be reached."""
    spark = Spark.objects.filter(name=name).first()
    if spark is None:
        return Outcome("", f"{name} is gone from the inventory")
    accepted = accepted_host_key(spark)
    if accepted is None:
        return Outcome("", f"no accepted SSH host key for {name}: accept it on the telemetry page first")
    key = ssh_key_path()
    if not key.exists():
        return Outcome("", "the fleet's SSH key (FLEET_SSH_KEY) does not exist")
    return _Reach(Target(spark.ssh_host, spark.ssh_port, spark.ssh_user), str(key), accepted)


def _run(
    reach: _Reach,
    script: str,
    *,
    on_output: Any = None,
    timeout: float | None = None,
    cancel: threading.Event | None = None,
) -> Outcome:
    """SSH alone, no database: safe in any thread."""
    return run_command(
        reach.target,
        serve_steps.SHELL,
        stdin="exec 2>&1\n" + script,
        client_keys=[reach.key],
        accepted_key=reach.accepted,
        timeout=timeout or step_timeout_s(),
        on_output=on_output,
        cancel=cancel,
    )


def on_node(name: str, script: str, *, on_output: Any = None, timeout: float | None = None) -> Outcome:
    """Run one script on one node through the fixed ``bash -s``, stderr folded into the output."""
    reach = _reach(name)
    if isinstance(reach, Outcome):
        return reach
    return _run(reach, script, on_output=on_output, timeout=timeout)


def _status(pk: int) -> str:
    return str(Serving.objects.filter(pk=pk).values_list("status", flat=True).first() or "")


def _save_steps(pk: int, steps: list[dict[str, Any]]) -> None:
    Serving.objects.filter(pk=pk).update(steps=steps)


def models_listed(url: str, timeout: float = 5.0) -> tuple[list[str], str]:
    """The model ids ``GET {url}/models`` lists, or why not."""
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=timeout) as response:  # noqa: S310 - http(s) built here
            body = json.loads(response.read(1_000_000))
    except (OSError, ValueError, RecursionError, urllib.error.URLError) as exc:
        return [], f"{url}/models: {getattr(exc, 'reason', None) or exc}"
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        return [], f"{url}/models answered without a model list"
    return [str(m.get("id")) for m in data if isinstance(m, dict)], ""


def wait_ready(pk: int, url: str, model: str, watch: Callable[[], str] | None = None) -> str:
    """ "" once ``url`` lists ``model``; else why not (timed out, stopped
    meanwhile, or what ``watch``, asked every ENGINE_WATCH_S, said ended the
    engine before it answered)."""
    deadline = time.monotonic() + ready_timeout_s()
    next_watch = time.monotonic() + ENGINE_WATCH_S
    why = "not asked yet"
    while time.monotonic() < deadline:
        if _status(pk) != STARTING:
            return "stopped while starting"
        found, why = models_listed(url)
        if model in found:
            return ""
        if found:
            why = f"{url}/models lists {', '.join(found[:5])}, not {model}"
        if watch is not None and time.monotonic() >= next_watch:
            ended = watch()
            if ended:
                return ended
            next_watch = time.monotonic() + ENGINE_WATCH_S
        time.sleep(1.0)
    return f"not ready after {ready_timeout_s():g} s: {why}"


def _watch_engine(pk: int, steps: list[dict[str, Any]], step: dict[str, Any]) -> str:
    """While an engine loads: its container's state and last lines become the
    wait step's output; "" while it runs (or the node did not say), else why
    it ended before it answered, with its last line."""
    name, node = str(step["container"]), str(step["node"])
    outcome = on_node(node, serve_steps.engine_watch_script(name, in_ray=bool(step.get("in_ray"))), timeout=60.0)
    state = serve_steps.read_engine_state(outcome.output)
    if not state.status:
        return ""  # not read this time: the wait goes on
    step["output"] = (
        f"GET {step['url']}/models\n{name} is {state.status}; its last lines (docker logs):\n{state.lines}"
    )[-MAX_OUTPUT:]
    _save_steps(pk, steps)
    if not state.ended:
        return ""
    last = serve_steps.crash_line(state.lines)
    what = f"the engine in {name}" if state.serve_ended else f"the engine's container {name}"
    return f"{what} on {node} ended (exit code {state.exit_code}) before it answered" + (f": {last}" if last else "")


# what stood in ``docker run``'s way (``telemetry.docker_start``), and what to do, on the step's node
_ENGINE_FIX = {
    "absent": "Docker is not on the fleet user's PATH on {node}; install it there (DGX OS ships it)",
    "denied": "the fleet's SSH user may not use Docker on {node}; add it to the docker group there",
    "unreachable": "Docker's daemon does not answer on {node}; start it there",
    "pull": "the image {image} was not on {node} and could not be downloaded; run `docker pull {image}` there "
    "to see why",
    "gpu": "Docker on {node} cannot give containers the GPU (no NVIDIA runtime); install the NVIDIA Container "
    "Toolkit there and restart Docker",
}


# what stood in an image step's ``docker pull`` (``telemetry.docker_start.pull_failure``)
_IMAGE_FIX = {
    **{kind: _ENGINE_FIX[kind] for kind in ("absent", "denied", "unreachable")},
    "download": "{node} could not download {image} (Docker's reason is in the step's output); mend what it says "
    "there, or run `docker pull {image}` there yourself, then serve again",
    "disk": "{node}'s disk filled while it downloaded {image}; make room there (`docker system df` says what "
    "Docker holds, `docker image prune` removes images no container uses, and the Hugging Face cache holds the "
    "models' weights), then serve again",
}


def explain_step(why: str, step: dict[str, Any]) -> str:
    """A failed step's error, led by what it means when Docker could not make
    its image ready or start its container, or was still downloading the image
    when the step's time ran out (Docker's own words, in the step's output,
    stay as they are)."""
    output, node = str(step.get("output", "")), step.get("node", "?")
    if step.get("weights"):
        return _explain_weights(why, step)
    pulling = bool(step.get("image"))  # an image step (``serving.steps.image_steps``)
    image = str(step.get("image") or docker_start.pulled_image(output))
    if why.startswith("timed out") and image:
        limit = (
            f"FLEET_SERVE_PULL_S, {pull_timeout_s():g} s" if pulling else f"FLEET_SERVE_STEP_S, {step_timeout_s():g} s"
        )
        layers = docker_start.pull_layers(output)
        ready = f"; {layers[0]} of {layers[1]} layers ready" if layers else ""
        return (
            f"the image {image} was still downloading on {node} when the step's time ran out ({limit}{ready}); "
            f"run `docker pull {image}` there, then serve again ({why})"
        )
    status = Outcome.exit_status(why)
    if pulling:
        fix = _IMAGE_FIX.get(docker_start.pull_failure(status, output))
        lead = "the image could not be made ready"
    else:
        fix = _ENGINE_FIX.get(docker_start.reading(status, output))
        lead = "its container could not start"
    if fix is None:
        return why
    return f"{lead}: {fix.format(node=node, image=image)} ({why})"


# what stood in a weights step's hf download (``serving.steps.weights_failure``), and what to do
_WEIGHTS_FIX = {
    "gated": "{repo} is gated on Hugging Face: accept its terms there with the lab's account, and give the fleet "
    "user on {node} an HF_TOKEN that may read it (in its environment for non-interactive SSH sessions)",
    "missing": "Hugging Face has no repository {repo} that {node}'s token may read; check the variant's reference",
    "disk": "{node} ran out of disk while it downloaded {repo}; free space in its Hugging Face cache",
    "room": "{node} has {free} free for its Hugging Face cache ($HOME/.cache/huggingface) and {repo} needs about "
    "{more} more; free space there (models no longer served, in that cache), then serve again",
    "offline": "{node} could not reach huggingface.co, and {repo} is not whole in its cache; download it there "
    "(`hf download {repo}`) or mend its network",
}


def _gb(count: int) -> str:
    return f"{count / 1e9:.1f} GB"


def _explain_weights(why: str, step: dict[str, Any]) -> str:
    """A failed weights step's error, led by what it means (hf download's and Docker's own words stay in the
    step's output)."""
    output, node, repo = str(step.get("output", "")), step.get("node", "?"), str(step.get("weights"))
    if why.startswith("timed out"):
        on_disk = serve_steps.weights_on_disk(output)
        expected = step.get("expected_bytes")
        got = f"; {_gb(on_disk)} on disk" if on_disk is not None else ""
        of = f" of about {_gb(expected)}" if got and isinstance(expected, int) and expected > 0 else ""
        return (
            f"the weights of {repo} were still downloading on {node} when the step's time ran out "
            f"(FLEET_SERVE_WEIGHTS_S, {weights_timeout_s():g} s{got}{of}); serve again to resume the download, or "
            f"run `hf download {repo}` there first ({why})"
        )
    fix = _WEIGHTS_FIX.get(serve_steps.weights_failure(output))
    room = serve_steps.weights_room(output) or (0, 0)
    if fix is not None:
        text = fix.format(node=node, repo=repo, free=_gb(room[0]), more=_gb(room[1]))
        return f"the weights could not be downloaded: {text} ({why})"
    docker = _IMAGE_FIX.get(docker_start.reading(Outcome.exit_status(why), output))
    if docker is not None:
        return f"the weights could not be downloaded: {docker.format(node=node, image='the image')} ({why})"
    return (
        f"the weights of {repo} could not be downloaded on {node} (hf download's words are in the step's output; {why})"
    )


def _fail(serving: Serving, steps: list[dict[str, Any]], index: int, why: str) -> Serving:
    step = steps[index]
    why = explain_step(why, step)
    step["status"] = "failed"
    step["output"] = (step.get("output", "") + ("\n" if step.get("output") else "") + why)[-MAX_OUTPUT:]
    _save_steps(serving.pk, steps)
    label = f"{step['label']} on {step['node']}"
    problems = stop_everywhere(serving)
    error = why + ("; " + "; ".join(problems) if problems else "")
    serving_release(serving.pk, status=FAILED, error=error, failed_step=label)
    serving.refresh_from_db()
    return serving


def _run_step(serving: Serving, steps: list[dict[str, Any]], index: int) -> str:
    step = steps[index]
    step["status"] = "running"
    _save_steps(serving.pk, steps)

    last = [time.monotonic()]

    def progress(text: str) -> None:
        # called from a thread of remote's event loop: its own database connection, closed after;
        # at most every PROGRESS_EVERY_S (a quick step writes its output once, when it ends)
        step["output"] = text[-MAX_OUTPUT:]
        if time.monotonic() - last[0] < PROGRESS_EVERY_S:
            return
        last[0] = time.monotonic()
        try:
            _save_steps(serving.pk, steps)
        except Exception:  # the live output is a nicety: never let it end the step
            log.warning("serving %s: could not store a step's output so far", serving.pk, exc_info=True)
        finally:
            connection.close()

    outcome = on_node(step["node"], step["script"], on_output=progress)
    step["output"] = outcome.output[-MAX_OUTPUT:]
    if outcome.error:
        return outcome.error
    step["status"] = "done"
    _save_steps(serving.pk, steps)
    return ""


def _steps_together(serving: Serving, steps: list[dict[str, Any]], indexes: list[int]) -> tuple[int, str] | None:
    """Run the steps at ``indexes`` (one phase: the image's or the weights')
    side by side, one thread per node for its SSH session only: this thread
    alone reads and writes the database (the nodes' addresses first, then the
    steps' output so far every PROGRESS_EVERY_S, with what they downloaded).
    All run to their end, unless the serving is stopped meanwhile: then every
    session is closed (a download can last hours; the worker is not held for
    it). The first that failed, in the steps' order, is returned with its
    error (None if none did)."""
    timeout = weights_timeout_s() if _phase(steps[indexes[0]]) == serve_steps.WEIGHTS else pull_timeout_s()
    for index in indexes:
        steps[index]["status"] = "running"
    _save_steps(serving.pk, steps)
    latest = {index: "" for index in indexes}  # written by the threads, one key each: read here
    outcomes: dict[int, Outcome] = {}
    reaches: dict[int, _Reach] = {}
    for index in indexes:
        reach = _reach(steps[index]["node"])
        if isinstance(reach, Outcome):
            outcomes[index] = reach
        else:
            reaches[index] = reach

    def show() -> None:
        for index, text in latest.items():
            if index not in outcomes and text:
                steps[index]["output"] = text[-MAX_OUTPUT:]
                _progress(steps[index], text)

    stop = threading.Event()
    if reaches:
        with ThreadPoolExecutor(max_workers=min(len(reaches), 16), thread_name_prefix="serving-side-by-side") as pool:
            running = {
                pool.submit(
                    _run,
                    reach,
                    steps[index]["script"],
                    on_output=lambda text, index=index: latest.__setitem__(index, text),
                    timeout=timeout,
                    cancel=stop,
                ): index
                for index, reach in reaches.items()
            }
            pending = set(running)
            while pending:
                finished, pending = wait(pending, timeout=PROGRESS_EVERY_S, return_when=FIRST_COMPLETED)
                for future in finished:
                    outcomes[running[future]] = future.result()
                show()
                try:
                    _save_steps(serving.pk, steps)
                    if pending and _status(serving.pk) != STARTING:
                        stop.set()  # stopped meanwhile: close every session
                except Exception:  # the live output is a nicety: never let it end the step
                    log.warning("serving %s: could not store the side-by-side steps' output", serving.pk, exc_info=True)
    first: tuple[int, str] | None = None
    for index in indexes:
        step, outcome = steps[index], outcomes[index]
        step["output"] = outcome.output[-MAX_OUTPUT:]
        _progress(step, outcome.output)
        if outcome.error == STOPPED_WHILE_RUNNING:
            step["status"] = "stopped"  # the serving was stopped while it downloaded: not its failure
        elif outcome.error:
            first = first or (index, outcome.error)
        else:
            step["status"] = "done"
    _save_steps(serving.pk, steps)
    return first


def _step_of(steps: list[dict[str, Any]], indexes: list[int], odd: tuple[str, str] | None) -> tuple[int, str] | None:
    """(the image step of the node a check named, why), or None when it named none."""
    if odd is None:
        return None
    node, why = odd
    return next(i for i in indexes if steps[i]["node"] == node), why


def _one_build(serving: Serving, steps: list[dict[str, Any]], indexes: list[int]) -> tuple[int, str] | None:
    """After the image steps: the image step to fail, and why, when the nodes
    of a multi-node instance hold different builds of the image."""
    ids = {steps[i]["node"]: serve_steps.image_id_in(steps[i].get("output", "")) for i in indexes}
    image = str(steps[indexes[0]].get("image", ""))
    return _step_of(steps, indexes, serve_steps.one_build(serving.plan.get("instances", []), ids, image))


def _off_pin(steps: list[dict[str, Any]], indexes: list[int]) -> tuple[int, str] | None:
    """After the image steps: the image step to fail, and why, when a node
    holds another build of the image than the one the lab pins."""
    pinned = str(steps[indexes[0]].get("pinned", ""))
    if not pinned:
        return None
    digests = {steps[i]["node"]: serve_steps.repo_digests_in(steps[i].get("output", "")) for i in indexes}
    image = str(steps[indexes[0]].get("image", ""))
    return _step_of(steps, indexes, serve_steps.off_pin(digests, image, pinned))


def _read_networks(serving: Serving, steps: list[dict[str, Any]], index: int) -> None:
    """Which network each rank's NCCL chose, as its own log says: kept on the
    step (``networks``: host -> IB or Socket). A read that fails says why and
    ends the step; it never fails the serving (the engines answer already)."""
    why = _run_step(serving, steps, index)
    step = steps[index]
    step["networks"] = networks_in(step.get("output", ""))
    if why:
        step["output"] = f"not read: {why}"
    elif not step["networks"]:
        step["output"] = "no NCCL network line in the engine's log (NCCL_DEBUG=INFO not set in its container?)"
    step["status"] = "done"


def _still_beating(pk: int) -> bool:
    """Whether the worker that claimed this start is alive: its heartbeat
    (``core.runs.heartbeat``, every HEARTBEAT_S) moves within WATCH_S, or the
    start ended meanwhile (then it is not this delivery's to fail either). One
    silent for longer than two beats already is not waited for."""
    first = Serving.objects.filter(pk=pk).values_list("heartbeat_at", flat=True).first()
    if first is None or timezone.now() - first > timedelta(seconds=2 * HEARTBEAT_S):
        return False
    deadline = time.monotonic() + WATCH_S
    while time.monotonic() < deadline:
        time.sleep(min(1.0, WATCH_S))
        row = Serving.objects.filter(pk=pk).values_list("status", "heartbeat_at").first()
        if row is None or row[0] != STARTING or (row[1] is not None and row[1] > first):
            return True
    return False


def serving_execute(*, serving_id: int, task_id: str = "") -> Serving | None:
    """Start a queued serving once. A redelivered task finds it claimed: if
    its worker died part-way (no heartbeat), what was started is stopped and
    the serving failed; if that worker still runs it (a start longer than the
    broker keeps a message unacknowledged: Redis's visibility timeout, an
    hour; an hour's image download and a model's load can outlast it), the
    second delivery leaves it alone."""
    rows = Serving.objects.filter(pk=serving_id, status=STARTING)
    now = timezone.now()
    if not rows.filter(task_id="").update(task_id=task_id[:64] or "-", started_at=now, heartbeat_at=now, attempts=1):
        mine = rows.filter(task_id=task_id[:64]).first() if task_id else None
        if mine is not None and _still_beating(mine.pk):
            log.warning("serving %s: its start was delivered again while a worker still runs it: left to it", mine.pk)
        elif mine is not None:
            stop_everywhere(mine)
            serving_release(mine.pk, status=FAILED, error="the worker starting it stopped part-way; serve it again")
        return None
    serving = Serving.objects.select_related("model").get(pk=serving_id)
    with heartbeat(Serving, serving.pk, running=STARTING):
        return _start(serving)


def _start(serving: Serving) -> Serving:
    steps: list[dict[str, Any]] = [dict(s) for s in serving.steps]
    for index, step in enumerate(steps):
        if _status(serving.pk) != STARTING:
            return _stopped_while_starting(serving)
        if step.get("status") == "done":
            continue  # a step run beside the one before it
        phase = _phase(step)
        if phase:
            together = [index]
            while together[-1] + 1 < len(steps) and _phase(steps[together[-1] + 1]) == phase:
                together.append(together[-1] + 1)
            failed = _steps_together(serving, steps, together)
            if failed is None and phase == serve_steps.IMAGE:
                failed = _off_pin(steps, together) or _one_build(serving, steps, together)
            if failed is not None:
                if _status(serving.pk) != STARTING:
                    return _stopped_while_starting(serving)
                return _fail(serving, steps, *failed)
            continue
        if "url" in step:
            step["status"], step["output"] = "running", f"GET {step['url']}/models"
            _save_steps(serving.pk, steps)
            watch = None
            if step.get("container"):
                watch = functools.partial(_watch_engine, serving.pk, steps, step)
            why = wait_ready(serving.pk, step["url"], serving.model.slug, watch)
            step["status"] = "done"
        elif step.get("reads") == "nccl":
            _read_networks(serving, steps, index)
            why = ""
        else:
            why = _run_step(serving, steps, index)
        if why:
            if _status(serving.pk) != STARTING:
                return _stopped_while_starting(serving)
            return _fail(serving, steps, index, why)
        _save_steps(serving.pk, steps)
    url = serving.plan.get("url") or ""
    if not Serving.objects.filter(pk=serving.pk, status=STARTING).update(
        status=SERVING, url=url, serving_at=timezone.now()
    ):
        return _stopped_while_starting(serving)
    log.info("serving %s: %s answers at %s", serving.pk, serving.model.slug, url)
    serving.refresh_from_db()
    return serving


def _stopped_while_starting(serving: Serving) -> Serving:
    """A stop came while starting: the stop task frees it; stop here too in case it ran before the engines started."""
    stop_everywhere(serving)
    serving_release(serving.pk, status=STOPPED)
    serving.refresh_from_db()
    return serving


def stop_everywhere(serving: Serving) -> list[str]:
    """Run the stop script on every node of the serving; what could not be stopped, in words."""
    problems = []
    script = serve_steps.stop_script(serving.pk)
    for name in serving.plan.get("nodes", []):
        outcome = on_node(name, script, timeout=120.0)
        if outcome.error:
            problems.append(f"{name} could not be told to stop ({outcome.error}): reconciling stops it once it answers")
    return problems


def serving_stop_execute(*, serving_id: int) -> Serving | None:
    serving = Serving.objects.filter(pk=serving_id, status=STOPPING).first()
    if serving is None:
        return None
    problems = stop_everywhere(serving)
    serving_release(serving.pk, status=STOPPED, error="; ".join(problems))
    serving.refresh_from_db()
    return serving
