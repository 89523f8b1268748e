"""What a worker runs on each node to serve a plan, to stop it and to ask a
node what it serves: fixed scripts built from the plan, sent on stdin to a
fixed ``bash -s`` (``SHELL``), so that no text reaches a command line and
every value from the inventory or a user goes through shlex.quote
(``placement.launch`` builds the engine's own command).

NVIDIA's vLLM container recipe (``vllm-container``): first the image on
every node (``image_steps``: downloaded unless it is there), then the
model's weights into every node's Hugging Face cache (``weights_steps``:
``hf download`` in that image, as NVIDIA's playbooks fetch a model before
serving it), then each container started detached and named: each node's
container carries the label ``spark-fleet.serving=<id>`` (``LABEL``),
which is how stopping and reconciling find exactly what this app started
(the weights' download too). One-node instances run ``vllm serve`` as the container's command;
multi-node instances start the container with Ray (head first, as
``run_cluster.sh`` does: ``ray start --block --head``, then each worker
joins it) and the head then runs ``vllm serve`` inside its container
(``docker exec -d``, its output in the container's log and its exit status
in ``SERVE_EXIT``) once Ray sees every node. Several copies get one
address through vLLM's router (``vllm-router``, round robin) on the plan's
first node, started detached with its process id kept in
``~/.spark-fleet/router-<id>.pid``.

Pure: no Django.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from placement.launch import (
    RAY_INSTALL_PATCH,
    RAY_PORT,
    LaunchError,
    LaunchSettings,
    bootstrap,
    cluster_env,
    launch_problems,
    model_reference,
    preflight,
    script_header,
    shell_path,
    vllm_serve_line,
)
from placement.model_catalogue import ModelSpec
from placement.planner import GroupSpec, Plan
from placement.quants import is_hub_repo
from telemetry.software import image_repository, is_digest, pull_build

SHELL = "bash -s"  # the one command serving sends; the script comes on stdin
LABEL = "spark-fleet.serving"
SERVABLE = ("vllm-container",)  # the launchers serving starts, stops and reconciles
ROUTER_POLICY = "round_robin"
STATE_DIR = '"$HOME"/.spark-fleet'
# Ray as run_cluster.sh installs it in images that ship without it (placement.launch.RAY_INSTALL_PATCH)
RAY_INSTALL = "pip install -q --root-user-action=ignore 'ray[default]>=2.9'"
assert "ray[default]>=2.9" in RAY_INSTALL_PATCH  # one truth: the same Ray as the launch scripts install


@dataclass(frozen=True)
class Step:
    node: str
    label: str
    script: str
    image: str = ""  # the image an image step makes ready (``image_steps``)
    weights: str = ""  # the Hugging Face repository a weights step downloads (``weights_steps``)
    pinned: str = ""  # the registry digest the lab pins an image step's image to, if it does
    expected_bytes: int = 0  # about how much a weights step downloads: the plan's weights


@dataclass(frozen=True)
class Engine:
    """Where instance ``index`` answers: its head node and the port assigned to it."""

    index: int
    node: str
    port: int


def container(serving_id: int, index: int, rank: int) -> str:
    return f"spark-fleet-{int(serving_id)}-{index + 1}-{rank}"


def _q(value: object) -> str:
    return shlex.quote(str(value))


def serve_problems(
    plan: Plan, group: GroupSpec, model: ModelSpec, *, launcher: str, settings: LaunchSettings
) -> list[tuple[str, str]]:
    """Why this plan cannot be served with this launcher, as (field, message)."""
    if launcher not in SERVABLE:
        return [("launcher", f"serving starts {', '.join(SERVABLE)}; {launcher} is for the launch scripts only")]
    problems = launch_problems(plan, group, model, engine=launcher, settings=settings)
    if problems:
        return [("plan", f"{where}: {message}") for where, message in problems]
    by_name = {n.name: n for n in group.nodes}
    for names in plan.instances:
        if len(names) < 2:
            continue
        for name in names:
            _, address = bootstrap(by_name[name], group.kind, settings)
            if not address or address.startswith("<"):
                return [("plan", f"{name}'s bootstrap address is not known yet: let telemetry poll the group first")]
    return []


IMAGE = "image"  # the label of the steps that make the launch image ready on each node
# the image step's last lines: which build of the image the node now has (docker's image ID), and
# the registry digests it is known by (what a lab's pin names: ``telemetry`` compares the same)
IMAGE_ID_FORMAT = "image id: {{.Id}}"
REPO_DIGESTS_FORMAT = 'repo digests: {{join .RepoDigests " "}}'
_IMAGE_ID = re.compile(r"^image id: (sha256:[0-9a-f]{64})$", re.MULTILINE)
_REPO_DIGESTS = re.compile(r"^repo digests:(.*)$", re.MULTILINE)


def image_id_in(output: str) -> str:
    """The image ID an image step printed last, or ""."""
    found = _IMAGE_ID.findall(output)
    return found[-1] if found else ""


def repo_digests_in(output: str) -> list[str] | None:
    """The registry digests (``sha256:...``) an image step printed last: [] for
    a build known by none (built or loaded on the node), None when not printed."""
    found = _REPO_DIGESTS.findall(output)
    if not found:
        return None
    return [d for ref in found[-1].split() if "@" in ref and is_digest(d := ref.rsplit("@", 1)[1])]


def one_build(instances: list[list[str]], ids: dict[str, str], image: str) -> tuple[str, str] | None:
    """(node, why) for the first multi-node instance whose nodes hold different
    builds of the image (a Ray cluster of vLLM needs one build on every node:
    a tag pulled months apart can name two), None when each agrees or a node's
    ID is unknown. One-node copies may differ: each runs alone."""
    for number, names in enumerate(instances, start=1):
        known = {name: ids.get(name, "") for name in names}
        if len(names) < 2 or not all(known.values()) or len(set(known.values())) == 1:
            continue
        head = known[names[0]]
        odd = next(name for name in names if known[name] != head)
        each = ", ".join(f"{i.removeprefix('sha256:')[:12]} on {name}" for name, i in known.items())
        return odd, (
            f"the nodes of instance {number} hold different builds of {image} ({each}): a Ray cluster needs one "
            f"build on every node; run `docker pull {image}` on {', '.join(names)} (the registry's current build) "
            "and serve again"
        )
    return None


def off_pin(digests: dict[str, list[str] | None], image: str, pinned: str) -> tuple[str, str] | None:
    """(node, why) for the first node, in name order, whose build of the image
    is not the one the lab pins; None when each is, or a node's digests are
    unknown (not printed: an older step). The pinned build is what an image
    step pulls, so a node off it held another build under the tag already."""
    for node in sorted(digests):
        known = digests[node]
        if known is None or pinned in known:
            continue
        held = ", ".join(d.removeprefix("sha256:")[:12] for d in known) or "a build no registry knows (built or loaded)"
        return node, (
            f"{node} holds {image} as {held}, not the build the lab pins ({pinned.removeprefix('sha256:')[:12]}): "
            f"run `{pull_build(image, pinned)}` there, or move the pin on the software page, and serve again"
        )
    return None


def image_steps(plan: Plan, settings: LaunchSettings, *, pinned: str = "") -> list[Step]:
    """On every node of the plan, first: the launch image, downloaded unless it
    is there already. The worker runs them side by side, each with its own
    time (a first download of NVIDIA's vLLM image is many gigabytes), so that
    the engine steps start containers from an image already there. A node
    whose Docker cannot be used fails here, in Docker's own words.

    ``pinned``: the registry digest the lab pins the image to (a software
    pin): a node without the image pulls that build by its digest and tags
    it, rather than whatever the tag names today (a tag moves; the pin is the
    build the lab chose). Each step ends with the build's ID and digests."""
    image = _q(settings.vllm_image)
    here = _q(f"{settings.vllm_image} is already on this Spark")
    pull = f"docker pull {image}"
    if pinned:
        if not is_digest(pinned):
            raise LaunchError([("image", f"the pin {pinned!r} is not a registry digest (sha256: and 64 hex digits)")])
        by_digest = _q(f"{image_repository(settings.vllm_image)}@{pinned}")
        pull = f"docker pull {by_digest}; docker tag {by_digest} {image}"  # not &&: set -e skips a && list
    script = (
        "set -euo pipefail\n"
        f"if docker image inspect {image} > /dev/null 2>&1; then echo {here}; else {pull}; fi\n"
        f"docker image inspect --format {_q(IMAGE_ID_FORMAT)} {image}\n"
        f"docker image inspect --format {_q(REPO_DIGESTS_FORMAT)} {image}\n"
    )
    return [Step(node, IMAGE, script, settings.vllm_image, pinned=pinned) for node in plan.nodes]


WEIGHTS = "weights"  # the label of the steps that download the model's weights on each node
# a weights step's words when the node's cache has less room than the weights still to come
NO_ROOM = "not enough disk:"
_NO_ROOM = re.compile(
    r"^not enough disk: (\d+) bytes free for the Hugging Face cache, about (-?\d+) more needed$", re.MULTILINE
)
# a weights step's report of how much of the repository is in the node's cache so far
_ON_DISK = re.compile(r"^weights on disk: (\d+) bytes$", re.MULTILINE)
ON_DISK_EVERY_S = 5  # how often a weights step reports it
# files vLLM does not load from a safetensors repository, which some repositories carry beside it
# (Meta's original/ consolidated checkpoints, the same weights again; GGUF files for llama.cpp)
WEIGHTS_EXCLUDE = ("original/*", "*.pth", "*.gguf")
# in the image: the CLI its huggingface_hub ships (``hf`` from 0.34, ``huggingface-cli`` before, gone in 1.0);
# the repository comes in the environment, never in the command's text
_HF_DOWNLOAD = (
    'if command -v hf > /dev/null 2>&1; then hf download "$SPARK_FLEET_REPO" --exclude {x}; '
    'else huggingface-cli download "$SPARK_FLEET_REPO" --exclude {x}; fi'
).format(x=" ".join(shlex.quote(p) for p in WEIGHTS_EXCLUDE))


def hub_folder(repo: str) -> str:
    """The repository's folder in a Hugging Face cache's ``hub/`` (``models--org--name``)."""
    return "models--" + repo.replace("/", "--")


def weights_room(output: str) -> tuple[int, int] | None:
    """(bytes free, bytes still needed) when a weights step found too little room, else None."""
    found = _NO_ROOM.search(output)
    return (int(found[1]), int(found[2])) if found else None


def weights_on_disk(output: str) -> int | None:
    """The bytes a weights step last found in the node's cache, or None before it said."""
    found = _ON_DISK.findall(output)
    return int(found[-1]) if found else None


def weights_steps(plan: Plan, model: ModelSpec, settings: LaunchSettings, *, serving_id: int) -> list[Step]:
    """On every node of the plan, after the image: the model's weights in the
    node's Hugging Face cache (each node loads its share from its own cache),
    through ``hf download`` run in the launch image with that cache mounted,
    as NVIDIA's playbooks fetch a model before serving it. A cache that holds
    them already makes it quick (``hf download`` checks and returns); a
    download cut off resumes there. Every ON_DISK_EVERY_S it reports the
    bytes in the repository's cache folder; at the end, the last lines of
    ``hf download``. It first checks the cache's disk has room for what is
    still to come (the plan's weights, less what is there already), so that
    a full disk fails at once rather than after hours. None for a reference
    that is not a Hugging Face repository (a path on the nodes: nothing to
    download)."""
    weights, _ = model_reference(model, "vllm", None)
    repo = weights.ref if weights is not None else ""
    if not is_hub_repo(repo):
        return []
    expected = round(model.weights_size_gb() * 1e9)
    hf, image = shell_path(settings.hf_cache), _q(settings.vllm_image)
    name = f"spark-fleet-{int(serving_id)}-weights"
    lines = [
        "set -euo pipefail",
        f"# the plan's weights: about {expected} bytes (placement's model)",
        f"mkdir -p {hf}",
        f"folder={hf}/hub/{_q(hub_folder(repo))}",
        'on_disk() { if [ -d "$folder" ]; then du -sb "$folder" | cut -f1; else echo 0; fi; }',
        # room for what is still to come, before an hour's download ends in "No space left on device"
        f"free=$(df -P -B1 {hf} | awk 'NR == 2 {{print $4}}')",
        f"more=$(({expected} - $(on_disk)))",
        'if [ "$more" -gt "$free" ]; then',
        f'  echo "{NO_ROOM} ${{free}} bytes free for the Hugging Face cache, about ${{more}} more needed"',
        "  exit 1",
        "fi",
        "log=$(mktemp)",
        f"docker run --rm --name {name} --label {LABEL}={int(serving_id)} --network host -e HF_TOKEN "
        f"-e {_q(f'SPARK_FLEET_REPO={repo}')} -v {hf}:/root/.cache/huggingface --entrypoint /bin/bash "
        f'{image} -c {_q(_HF_DOWNLOAD)} > "$log" 2>&1 &',
        "pid=$!",
        'while kill -0 "$pid" 2> /dev/null; do',
        '  echo "weights on disk: $(on_disk) bytes"',
        f"  sleep {ON_DISK_EVERY_S}",
        "done",
        "status=0",
        'wait "$pid" || status=$?',
        "tr '\\r' '\\n' < \"$log\" | grep -v '^[[:space:]]*$' | tail -n 20 || true",
        'rm -f "$log"',
        'echo "weights on disk: $(on_disk) bytes"',
        'exit "$status"',
    ]
    script = "\n".join(lines) + "\n"
    return [Step(node, WEIGHTS, script, weights=repo, expected_bytes=expected) for node in plan.nodes]


# what stood in a weights step's way, read from hf download's words (huggingface_hub's errors)
_WEIGHTS_WORDS = (
    ("room", (NO_ROOM,)),
    ("gated", ("GatedRepoError", "Cannot access gated repo", "is restricted. You must have access")),
    ("missing", ("RepositoryNotFoundError", "Repository Not Found")),
    ("disk", ("No space left on device",)),
    (
        "offline",
        (
            "LocalEntryNotFoundError",
            "Max retries exceeded",
            "Failed to resolve",
            "Connection refused",
            "Temporary failure in name resolution",
            "ConnectTimeout",
            "Network is unreachable",
        ),
    ),
)


def weights_failure(output: str) -> str:
    """Why a weights step's download failed, from hf download's words:
    "gated", "missing", "disk", "offline", or "" (its words are in the output)."""
    for kind, words in _WEIGHTS_WORDS:
        if any(w in output for w in words):
            return kind
    return ""


def engine_steps(
    plan: Plan,
    group: GroupSpec,
    model: ModelSpec,
    *,
    serving_id: int,
    ports: list[int],
    settings: LaunchSettings,
) -> list[Step]:
    """The steps that start every instance, in the order they must run: per
    instance, a one-node engine; or the Ray head, each worker, then the engine."""
    problems = serve_problems(plan, group, model, launcher="vllm-container", settings=settings)
    if problems:
        raise LaunchError(problems)
    by_name = {n.name: n for n in group.nodes}
    image, hf = _q(settings.vllm_image), shell_path(settings.hf_cache)
    label = f"--label {LABEL}={int(serving_id)}"
    steps: list[Step] = []
    for index, names in enumerate(plan.instances):
        nodes = [by_name[n] for n in names]
        serve = vllm_serve_line(plan, group, model, index=index, port=ports[index], settings=settings)
        head = nodes[0]
        size = len(nodes)
        if size == 1:
            lines = script_header(plan, model, head, index, 0, 1, group, settings)
            lines += [
                predicted_line(plan),
                f"mkdir -p {hf}",
                f"docker run -d --name {container(serving_id, index, 0)} {label} --gpus all --network host "
                f"--ipc host -e HF_TOKEN -v {hf}:/root/.cache/huggingface {image} {serve}",
            ]
            steps.append(Step(head.name, "engine", "\n".join(lines) + "\n"))
            continue
        _, head_address = bootstrap(head, group.kind, settings)
        for rank, node in enumerate(nodes):
            env = cluster_env(node, head, group, settings, vllm=True)
            ray = (
                f"ray start --block --head --port={RAY_PORT}"
                if rank == 0
                else f"ray start --block --address={_q(f'{head_address}:{RAY_PORT}')}"
            )
            lines = script_header(plan, model, node, index, rank, size, group, settings)
            lines += preflight(node, group, settings)
            lines += [
                f"mkdir -p {hf}",
                f"docker run -d --name {container(serving_id, index, rank)} {label} --entrypoint /bin/bash "
                f"--network host --ipc host --shm-size 10.24g --gpus all -v {hf}:/root/.cache/huggingface "
                + " ".join(["-e HF_TOKEN", *(f"-e {_q(f'{var}={value}')}" for var, value in env)])
                + f" {image} -c {_q(f'{RAY_INSTALL} && {ray}')}",
            ]
            # the inner command is quoted twice: once for bash -c in the container, once for this shell
            steps.append(Step(node.name, "ray head" if rank == 0 else "ray worker", "\n".join(lines) + "\n"))
        name = container(serving_id, index, 0)
        wait = _wait_for_ray(size, f"docker exec {name} ray status")
        # vllm serve's own output goes to the container's log (its first process's stdout), and its
        # exit status to SERVE_EXIT once it ends: the wait for the engine reads both (engine_watch_script)
        inner = f"{serve} --distributed-executor-backend ray > /proc/1/fd/1 2>&1; echo $? > {SERVE_EXIT}"
        lines = [predicted_line(plan), *wait, f"docker exec -d {name} sh -c {_q(inner)}"]
        steps.append(Step(head.name, "engine", "\n".join(["set -euo pipefail", *lines]) + "\n"))
    return steps


# The steps that read which network each rank's NCCL chose, once the engine answers.
NCCL_NETWORK = "NCCL network"
# Where Ray keeps its workers' output inside each node's container: every rank
# of a multi-node vLLM instance is a Ray worker there, and NCCL_DEBUG=INFO
# (``placement.launch.cluster_env``) has it print "Using network IB|Socket".
RAY_WORKER_LOGS = "/tmp/ray/session_latest/logs/worker-*.out"  # noqa: S108 - read inside the container, written by Ray
NCCL_NETWORK_LINES = "NCCL INFO (Using network |NET/(IB|Socket) : Using )"


def network_steps(plan: Plan, *, serving_id: int) -> list[Step]:
    """For every rank of a multi-node instance, on its node: the lines its NCCL
    printed when it chose a network, grepped from its Ray worker's log in its
    container. Nothing found (an engine without NCCL's INFO lines) prints
    nothing; the step never fails the serving."""
    steps: list[Step] = []
    for index, names in enumerate(plan.instances):
        if len(names) < 2:
            continue
        for rank, node in enumerate(names):
            grep = f"grep -ahE {_q(NCCL_NETWORK_LINES)} {RAY_WORKER_LOGS} 2>/dev/null | head -n 32"
            script = f"docker exec {container(serving_id, index, rank)} sh -c {_q(grep)} || true\n"
            steps.append(Step(node, NCCL_NETWORK, script))
    return steps


# While the worker waits for an engine to answer: its head container's state and last lines.
ENGINE_STATE_FORMAT = "state: {{.State.Status}} {{.State.ExitCode}}"
ENGINE_LOG_LINES = 30
# where a multi-node copy's vllm serve, run in Ray's head container, leaves its exit status
SERVE_EXIT = "/tmp/spark-fleet-serve.exit"  # noqa: S108 - inside the container, written by the engine step
_STATE = re.compile(r"^state: (\w+) (-?\d+)$", re.MULTILINE)
_SERVE_ENDED = re.compile(r"^serve ended: (-?\d+)$", re.MULTILINE)


def engine_watch_script(name: str, *, in_ray: bool = False) -> str:
    """What the head node says of an engine's container while it loads: its
    state and exit code (``docker inspect``), then its last lines (``docker
    logs``: a one-node copy's ``vllm serve`` is the container's own process;
    a multi-node copy's runs in Ray's head container through ``docker exec
    -d`` and writes its output there). ``in_ray``: also whether that ``vllm
    serve`` ended, and with which status (``SERVE_EXIT``)."""
    quoted = _q(name)
    lines = [f"docker inspect --format {_q(ENGINE_STATE_FORMAT)} {quoted}"]
    if in_ray:
        ended = f'if [ -f {SERVE_EXIT} ]; then echo "serve ended: $(cat {SERVE_EXIT})"; fi'
        lines.append(f"docker exec {quoted} sh -c {_q(ended)} 2>/dev/null")
    lines.append(f"docker logs --tail {ENGINE_LOG_LINES} {quoted} 2>&1")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class EngineState:
    """An engine container as ``engine_watch_script`` read it."""

    status: str  # Docker's: created, running, restarting, exited, dead, ... ("" not read)
    exit_code: int  # the container's, or the vllm serve's run in it once that ended
    lines: str  # its last lines, as docker logs gave them
    serve_ended: bool = False  # a vllm serve run in Ray's head container ended (the container still runs)

    @property
    def ended(self) -> bool:
        return self.serve_ended or self.status in ("exited", "dead")


_ERROR_LINE = re.compile(r"\b\w*(?:Error|Exception)\b: ")
_WRAPPER = "See root cause above"  # vLLM's API server, after its engine core's own error


def crash_line(lines: str) -> str:
    """What says why an engine ended: the last error that is not vLLM's
    "Engine core initialization failed. See root cause above", from its
    exception's name on (the log's prefix left out), else the last line ("" without one)."""
    rows = [line.strip() for line in lines.splitlines() if line.strip()]
    for line in reversed(rows):
        match = _ERROR_LINE.search(line)
        if match and _WRAPPER not in line:
            return line[match.start() :]
    return rows[-1] if rows else ""


def read_engine_state(output: str) -> EngineState:
    match = _STATE.search(output)
    if match is None:
        return EngineState("", 0, "")
    rest = output[match.end() :].lstrip("\n")
    serve = _SERVE_ENDED.match(rest)
    if serve is not None:
        return EngineState(match[1], int(serve[1]), rest[serve.end() :].lstrip("\n"), serve_ended=True)
    return EngineState(match[1], int(match[2]), rest)


def predicted_line(plan: Plan) -> str:
    """What the plan predicted for one stream, as a comment (the simulated Sparks decode at it)."""
    figure = f"{plan.decode_tps:.2f} tok/s per stream" if plan.decode_tps else "none"
    return f"# predicted decode: {figure} (placement's performance model)"


def _wait_for_ray(count: int, status: str) -> list[str]:
    return [
        f"echo 'waiting for {count} Ray nodes'",
        "seen=0",
        "for _ in $(seq 1 120); do",
        f"  seen=$({status} 2>/dev/null | grep -cE '^ *[0-9]+ node_' || true)",
        f'  if [ "${{seen:-0}}" -ge {count} ]; then break; fi',
        "  sleep 5",
        "done",
        f'if [ "${{seen:-0}}" -lt {count} ]; then echo "only ${{seen:-0}} of {count} Ray nodes joined" >&2; exit 1; fi',
    ]


def router_step(
    node: str,
    *,
    serving_id: int,
    port: int,
    metrics_port: int,
    workers: list[str],
    host: str = "0.0.0.0",  # noqa: S104 - the lab calls it from its machines
) -> Step:
    """vLLM's router in front of the instances (``workers``: each engine's base URL, no /v1).
    Its Prometheus listener gets a port of its own (its default, 29000, would
    collide with a second router on the node)."""
    sid = int(serving_id)
    urls = " ".join(_q(u) for u in workers)
    lines = [
        "set -euo pipefail",
        f"mkdir -p {STATE_DIR}",
        f"setsid nohup vllm-router --host {_q(host)} --port {int(port)} --worker-urls {urls} "
        f"--policy {ROUTER_POLICY} --prometheus-host {_q(host)} --prometheus-port {int(metrics_port)} "
        f"> {STATE_DIR}/router-{sid}.log 2>&1 < /dev/null &",
        f"echo $! > {STATE_DIR}/router-{sid}.pid",
        f"echo router-{sid} started",
    ]
    return Step(node, "router", "\n".join(lines) + "\n")


def stop_script(serving_id: int) -> str:
    """Stops whatever this app started on the node for ``serving_id`` (engines and router)."""
    sid = int(serving_id)
    return (
        "\n".join(
            [
                f"docker ps -aq --filter label={LABEL}={sid} | xargs -r docker rm -f",
                f"pidfile={STATE_DIR}/router-{sid}.pid",
                'if [ -f "$pidfile" ]; then kill "$(cat "$pidfile")" 2>/dev/null || true; rm -f "$pidfile"; fi',
                f"echo stopped {sid}",
            ]
        )
        + "\n"
    )


# What the node serves for this app: "<serving id> <container or router>" per line.
WHAT_RUNS = (
    "\n".join(
        [
            f"docker ps --filter label={LABEL} --format '{{{{.Label \"{LABEL}\"}}}} {{{{.Names}}}}'",
            f"for f in {STATE_DIR}/router-*.pid; do",
            '  if [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null; then',
            '    sid=$(basename "$f" .pid); echo "${sid#router-} router"',
            "  fi",
            "done",
        ]
    )
    + "\n"
)
_RUNS_LINE = re.compile(r"^(\d+) (\S+)$")


def read_what_runs(output: str) -> dict[int, set[str]]:
    """Serving id -> what of it runs on the node (container names, "router")."""
    found: dict[int, set[str]] = {}
    for line in output.splitlines():
        match = _RUNS_LINE.match(line.strip())
        if match:
            found.setdefault(int(match[1]), set()).add(match[2])
    return found
