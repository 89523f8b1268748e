"""How a simulated Spark answers serving's scripts (``serving.steps``): the
script arrives on stdin of ``bash -s`` and is read line by line, never run.

- ``if docker image inspect IMAGE ...; then echo ...; else docker pull IMAGE; fi``
  (serving's image step): the echo when the image is there, else Docker's
  download, line by line as ``docker pull`` prints it without a terminal; the
  image is absent where the node's software says ``image_digest: absent``
  (``answer``'s ``image_absent``) and with ``pull-fail``, ``pull-slow`` or
  ``pull-no-room`` (the disk fills three layers in).
  A pinned build is pulled by its digest (``docker pull REPO@sha256:...;
  docker tag ...``): the registry holds the build its tag names now
  (REGISTRY_DIGEST) and an older one (OLDER_DIGEST); another digest is
  docker's "manifest unknown". ``docker image inspect --format`` answers
  ``{{.Id}}`` and ``{{join .RepoDigests " "}}`` for the build the node has.
- ``docker run --rm ... -e SPARK_FLEET_REPO=REPO ... > "$log" 2>&1 &`` (serving's
  weights step): what the whole step prints, ``weights on disk: N bytes``
  lines around ``hf download``'s last lines, N the plan's weights the script
  names; quick once the node holds them; with ``weights-gated``
  huggingface_hub's words for a gated repository without a token (exit 1),
  with ``weights-slow`` a download that outlasts the step; with
  ``weights-no-room`` the step's own check finds too little disk for them
  (NO_ROOM_FREE bytes free), before any download. The script's lines
  after it only report, so the answer ends there. Its container (``--name``,
  ``--label``) is listed while it downloads and goes when it ends (``--rm``);
  a session closed meanwhile leaves it running until the label's removal.
- ``docker run -d --name N --label spark-fleet.serving=ID ... vllm serve ...``
  starts a simulated engine (``simfleet.engine.SimEngine``) on 127.0.0.1 at
  the ``--port`` the script names, serving ``--served-model-name``; with
  ``-c "... ray start ..."`` it only records the (Ray) container.
- ``docker exec -d N sh -c 'vllm serve ... > /proc/1/fd/1 2>&1; echo $? > F'``
  starts the engine of container N (its lines join the container's log).
- ``docker exec N sh -c "grep ... NCCL INFO ..."``: the network the rank's
  NCCL chose, as its Ray worker log says (only with ``-e NCCL_DEBUG=INFO``).
- ``setsid nohup vllm-router ...`` starts the REAL vLLM router process, bound
  to 127.0.0.1 whatever host the script asks for.
- ``docker ps -aq --filter label=spark-fleet.serving=ID | xargs -r docker rm -f``
  and the router's pid file: stop what serving ID started here.
- ``docker ps --filter label=spark-fleet.serving --format ...``: what runs
  (an engine that died, fault ``die-after``, is an exited container).

- ``docker inspect --format 'state: {{.State.Status}} {{.State.ExitCode}}' N``
  and ``docker logs --tail K N``: a container's state and what its process
  printed (vLLM's start, Ray's, or vLLM's error with ``load-fail``).

Faults: ``weights-gated``, ``weights-slow`` (above), ``serve-fail`` (a launch exits 125 as docker does without a GPU
runtime), ``die-after`` (engines stop answering ``die_after_s`` after they
start), ``load-fail`` (vLLM ends while it loads the model, with its own
error: a one-node engine's container exits 1; a multi-node one's ``vllm
serve`` ends in Ray's head container, which still runs). Engines decode one stream at the plan's prediction the script
carries (``# predicted decode: N tok/s per stream``), else at 55 tok/s.
No Django.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from simfleet.engine import SimEngine
from simfleet.software_answers import DEFAULT_SOFTWARE, docker_refusal
from telemetry.software import image_repository

LOOPBACK = "127.0.0.1"
LABEL = "spark-fleet.serving"
DECODE_TPS = 55.0  # without a prediction: one stream on a 128 GB Spark, a mid-size model (as the benchmark answer)
# the plan's prediction the script carries as a comment (serving.steps.predicted_line): engines decode at it
PREDICTED = re.compile(r"^# predicted decode: ([0-9]+(?:\.[0-9]+)?) tok/s per stream", re.M)
_IMAGE_REF = re.compile(r"[a-z0-9][a-z0-9.-]*(?::\d+)?/[\w./-]+:[\w.-]+")
# docker run's words when the image is not there and the registry cannot be reached
PULL_ERROR = (
    "Unable to find image '{image}' locally\n"
    'docker: Error response from daemon: Get "https://nvcr.io/v2/": dial tcp: lookup nvcr.io on 127.0.0.53:53: '
    "server misbehaving.\nSee 'docker run --help'.\n"
)
# what docker run prints (without a terminal) while it downloads a missing image
PULL_PROGRESS = (
    "Unable to find image '{image}' locally\n{tag}: Pulling from nvidia/vllm\n"
    "a3be5d4ce401: Pulling fs layer\n5e7a5b8ac6e2: Pulling fs layer\n6d1a3fbc3c2e: Waiting\n"
)
# docker pull's words when the registry cannot be reached (it exits 1)
PULL_REFUSED = (
    'Error response from daemon: Get "https://nvcr.io/v2/": dial tcp: lookup nvcr.io on 127.0.0.53:53: '
    "server misbehaving\n"
)
# docker pull's words when the disk fills while a layer is written (it exits 1)
PULL_NO_ROOM = (
    "failed to register layer: write /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cuda.so: "
    "no space left on device\n"
)
# the layers of the simulated image, as docker pull names them
LAYERS = ("a3be5d4ce401", "5e7a5b8ac6e2", "6d1a3fbc3c2e", "c94ff2a1b0e7", "0b7d6e5f4a3c")


# the short ID and the digest of the build the registry's tag names now
# (simfleet.software_answers.DEFAULT_SOFTWARE's)
REGISTRY_IMAGE_ID = DEFAULT_SOFTWARE["image_id"]
REGISTRY_DIGEST = DEFAULT_SOFTWARE["image_digest"]
# an older build the registry still holds, by its digest (a tag moves; its old builds stay pullable)
OLDER_DIGEST, OLDER_IMAGE_ID = "sha256:" + "3c" * 32, "3c2b1a0f9e8d"
REGISTRY_BUILDS = {REGISTRY_DIGEST: REGISTRY_IMAGE_ID, OLDER_DIGEST: OLDER_IMAGE_ID}
# docker pull's words for a digest the registry does not hold (it exits 1)
NO_MANIFEST = "Error response from daemon: manifest for {ref} not found: manifest unknown: manifest unknown\n"


def pull_lines(image: str, ready: int, digest: str = REGISTRY_DIGEST) -> str:
    """What docker pull prints without a terminal, its first ``ready`` layers
    done; ``image`` by tag (repository:tag) or by digest (repository@sha256:...)."""
    if "@" in image:
        repo, tag = image.split("@", 1)[0], image
    else:
        repo, _, tag = image.rpartition(":")
    lines = [f"{tag}: Pulling from {repo.split('/', 1)[-1]}", *(f"{layer}: Pulling fs layer" for layer in LAYERS)]
    for layer in LAYERS[:ready]:
        lines += [f"{layer}: Verifying Checksum", f"{layer}: Download complete", f"{layer}: Pull complete"]
    if ready == len(LAYERS):
        lines += [f"Digest: {digest}", f"Status: Downloaded newer image for {image}", image]
    return "".join(f"{line}\n" for line in lines)


def full_image_id(short: str) -> str:
    """A full image ID whose first 12 digits are ``short`` (as ``docker images`` shortens it)."""
    return "sha256:" + (short * 6)[:64]


def _image_in(words: list[str]) -> str:
    return next((w for w in words if _IMAGE_REF.fullmatch(w)), "image")


# the plan's weights as the weights step's script names them (serving.steps.weights_steps)
EXPECTED = re.compile(r"^# the plan's weights: about (\d+) bytes", re.M)
# huggingface_hub's words for a gated repository asked without a token that may read it (hf download exits 1)
GATED_ERROR = (
    "huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-6752e1a2-3f0c5d1e)\n\n"
    "Cannot access gated repo for url https://huggingface.co/{repo}/resolve/main/config.json.\n"
    "Access to model {repo} is restricted. You must have access to it and be authenticated to access it. "
    "Please log in.\n"
)


def expected_bytes(script: str) -> int:
    """The plan's weights a weights step's script names (a gigabyte without)."""
    found = EXPECTED.search(script)
    return int(found[1]) if found else 10**9


NO_ROOM_FREE = 9_500_000_000  # the room a Spark with fault weights-no-room has for its Hugging Face cache


def on_disk(count: int) -> str:
    """A weights step's report of the bytes in the node's cache (serving.steps.weights_on_disk reads it)."""
    return f"weights on disk: {count} bytes\n"


def snapshot_line(repo: str) -> str:
    """hf download's last line: the snapshot's folder in the container's cache."""
    return f"/root/.cache/huggingface/hub/models--{repo.replace('/', '--')}/snapshots/{'5d' * 20}\n"


GPU_RUNTIME_ERROR = (
    'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n'
)


# vLLM's own lines when the model's context does not fit the KV cache left (its engine core's error,
# then the API server's), as vLLM 0.11 prints them; the container then exits 1
LOAD_FAIL_LOG = (
    "(APIServer pid=1) INFO 12-06 11:02:11 [api_server.py:1815] vLLM API server version 0.11.0\n"
    "(EngineCore_DP0 pid=266) INFO 12-06 11:02:58 [gpu_model_runner.py:2653] Model loading took 14.99 GiB and "
    "41.31 seconds\n"
    "(EngineCore_DP0 pid=266) ERROR 12-06 11:03:02 [core.py:708] ValueError: To serve at least one request with "
    "the model's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache "
    "memory (9.78 GiB). Based on the available memory, the estimated maximum model length is 80128. Try increasing "
    "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.\n"
    "(APIServer pid=1) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): "
    "{}\n"
)


# what a one-node engine's container has printed once it answers
RUNNING_LOG = (
    "(APIServer pid=1) INFO 12-06 11:02:11 [api_server.py:1815] vLLM API server version 0.11.0\n"
    "(APIServer pid=1) INFO 12-06 11:03:40 [api_server.py:1857] Starting vLLM API server 0 on "
    "http://0.0.0.0:{port}\n"
)


@dataclass
class _Container:
    serving: int
    engine: SimEngine | None = None
    env: dict[str, str] = field(default_factory=dict)  # its -e VAR=value
    exit_code: int | None = None  # set once its process ended (fault load-fail)
    serve_exit: int | None = None  # set once a vllm serve run in it through docker exec ended (load-fail)
    logs: str = ""  # what docker logs says of it


def router_binary() -> str:
    """vllm-router beside this interpreter (a venv), else on PATH."""
    beside = Path(sys.executable).parent / "vllm-router"
    return str(beside) if beside.exists() else (shutil.which("vllm-router") or "vllm-router")


def _flag(words: list[str], name: str) -> str | None:
    return words[words.index(name) + 1] if name in words and words.index(name) + 1 < len(words) else None


def _label(words: list[str]) -> int | None:
    value = _flag(words, "--label") or ""
    match = re.fullmatch(rf"{re.escape(LABEL)}=(\d+)", value)
    return int(match[1]) if match else None


def _conflict(name: str) -> str:
    """docker run's words for a container name already taken."""
    return f'docker: Error response from daemon: Conflict. The container name "/{name}" is already in use.\n'


def _docker_refused(faults: set[str], line: int) -> tuple[str, int] | None:
    """How ``bash -s`` and Docker answer a docker command on a node without
    Docker (bash's words, at the script's line), or with Docker refusing the
    fleet user or its daemon down (``docker run``'s words)."""
    if "no-docker" in faults:
        return f"bash: line {line}: docker: command not found\n", 127
    return docker_refusal(faults)


class NodeServing:
    """What one simulated Spark runs for serving."""

    def __init__(self, node: str, *, die_after_s: float = 3.0) -> None:
        self.node = node
        self.die_after_s = die_after_s
        self.containers: dict[str, _Container] = {}
        self.routers: dict[int, asyncio.subprocess.Process] = {}
        self.router_ports: dict[int, int] = {}  # serving id -> the port its router listens on
        self.pulled: dict[str, tuple[str, str]] = {}  # image -> (digest, short ID) an image step downloaded here
        self.weights: set[str] = set()  # repositories a weights step downloaded here

    async def answer(
        self,
        script: str,
        faults: set[str],
        write: Callable[[str], None] | None = None,
        *,
        image_absent: bool = False,
        image_id: str = REGISTRY_IMAGE_ID,
        image_digest: str = REGISTRY_DIGEST,
    ) -> tuple[str, int]:
        """(what the script printed, its exit status); ``write`` sends output
        before the end (an image's download, which may outlast the step);
        ``image_absent``: the launch image was never pulled here; ``image_id``
        and ``image_digest``: the short ID and the digest of the build it has
        (a pull brings the build its tag or digest names)."""
        out: list[str] = []
        predicted = PREDICTED.search(script)
        tps = float(predicted[1]) if predicted and float(predicted[1]) > 0 else DECODE_TPS
        errexit = re.search(r"^set -e", script, re.MULTILINE) is not None
        for number, raw in enumerate(script.splitlines(), start=1):
            line = raw.strip()
            try:
                words = shlex.split(line, comments=True)
            except ValueError:
                continue
            if raw[:1].isspace():
                continue  # inside a loop or an if: the checks a healthy node passes (interfaces, Ray's count)
            if words[:4] == ["docker", "image", "inspect", "--format"] and len(words) > 5:
                digest, build = self.pulled.get(words[5], (image_digest, image_id or REGISTRY_IMAGE_ID))
                known = f"{image_repository(words[5])}@{digest}" if digest.startswith("sha256:") else ""
                answer = words[4].replace("{{.Id}}", full_image_id(build))
                out.append(answer.replace('{{join .RepoDigests " "}}', known) + "\n")
                continue
            if words[:4] == ["if", "docker", "image", "inspect"] and len(words) > 4:
                status = await self._image(line, words[4], number, faults, out, write, image_absent)
                if status:
                    return "".join(out), status
                continue
            if words[:1] == ["docker"] and (refused := _docker_refused(faults, number)) is not None:
                out.append(refused[0])
                if errexit:  # set -e ends the script there; without it (the stop script) bash goes on
                    return "".join(out), refused[1]
                continue
            if "weights-no-room" in faults and line.startswith('if [ "$more" -gt "$free" ]'):
                expected = expected_bytes(script)
                out.append(f"not enough disk: {NO_ROOM_FREE} bytes free for the Hugging Face cache, about {expected} "
                           "more needed\n")  # fmt: skip
                return "".join(out), 1
            if words[:3] == ["docker", "run", "--rm"] and any(w.startswith("SPARK_FLEET_REPO=") for w in words):
                return await self._weights(script, words, faults, out, write)
            status = await self._line(line, words, faults, out, tps, write)
            if status:
                return "".join(out), status
        return "".join(out), 0

    async def _line(
        self,
        line: str,
        words: list[str],
        faults: set[str],
        out: list[str],
        tps: float,
        write: Callable[[str], None] | None = None,
    ) -> int:
        if words[:3] == ["docker", "run", "-d"]:
            return await self._run(words, faults, out, tps, write)
        if words[:3] == ["docker", "exec", "-d"] and len(words) > 3:
            return await self._exec(words, faults, out, tps)
        if words[:2] == ["docker", "exec"] and len(words) > 4 and words[3:5] == ["sh", "-c"] and "NCCL INFO" in line:
            return self._nccl_log(words[2], faults, out)
        if words[:3] == ["setsid", "nohup", "vllm-router"]:
            return await self._router(line, words, out)
        if words[:3] == ["docker", "ps", "-aq"]:
            sid = _label(["--label", (_flag(words, "--filter") or "").removeprefix("label=")])
            if sid is not None:
                await self.stop(sid)
            return 0
        if words[:2] == ["docker", "exec"] and words[3:5] == ["sh", "-c"] and "spark-fleet-serve.exit" in line:
            return self._serve_ended(words[2], out)
        if words[:3] == ["docker", "inspect", "--format"] and len(words) > 4:
            return self._inspect(words[3], words[4], out)
        if words[:3] == ["docker", "logs", "--tail"] and len(words) > 4:
            return self._logs(words[4], out)
        if words[:2] == ["docker", "ps"] and f"label={LABEL}" in words:
            out.extend(f"{c.serving} {name}\n" for name, c in sorted(self.containers.items()) if self._alive(c))
            out.extend(f"{sid} router\n" for sid, p in sorted(self.routers.items()) if p.returncode is None)
            return 0
        if words[:1] == ["echo"] and len(words) > 1 and not any(w.startswith((">", "$")) for w in words):
            out.append(" ".join(words[1:]) + "\n")
        return 0

    async def _image(
        self,
        line: str,
        image: str,
        number: int,
        faults: set[str],
        out: list[str],
        write: Callable[[str], None] | None,
        image_absent: bool,
    ) -> int:
        """The image step's one line: the then-branch's echo when the image is
        here, else ``docker pull``'s answer (exit 1 on any failure, as docker pull)."""
        refused = _docker_refused(faults, number)
        pulling = bool({"pull-fail", "pull-slow", "pull-no-room"} & faults) or (
            image_absent and image not in self.pulled
        )
        # what the else branch pulls: the tag, or a pinned build by its digest (then tagged)
        pull = re.search(r"; else docker pull ([^;\s]+)", line)
        source = shlex.split(pull[1])[0] if pull else image
        digest = source.split("@", 1)[1] if "@" in source else REGISTRY_DIGEST
        if refused is None and not pulling:
            echo = re.search(r"; then echo (.+?); else ", line)
            out.append((shlex.split(echo[1])[0] if echo else image) + "\n")
            return 0
        if refused is not None:
            text, status = refused
            if status == 127:
                out.append(text)
                return 127
            # docker pull's words: no "docker: " before them, no hint of docker run's help after
            out.append(text.removeprefix("docker: ").replace("\nSee 'docker run --help'.", ""))
            return 1
        if "pull-fail" in faults:
            out.append(PULL_REFUSED)
            return 1
        if "pull-no-room" in faults:  # three layers in, the disk is full
            out.append(pull_lines(source, 3, digest) + PULL_NO_ROOM)
            return 1
        if "pull-slow" in faults and write is not None:
            # more slowly than the step may last: two layers done, then nothing until the connection closes
            write("".join(out) + pull_lines(image, 2))
            out.clear()
            await asyncio.sleep(3600)
            return 1
        if digest not in REGISTRY_BUILDS:
            out.append(NO_MANIFEST.format(ref=source))
            return 1
        out.append(pull_lines(source, len(LAYERS), digest))
        self.pulled[image] = (digest, REGISTRY_BUILDS[digest])
        return 0

    async def _weights(
        self, script: str, words: list[str], faults: set[str], out: list[str], write: Callable[[str], None] | None
    ) -> tuple[str, int]:
        """The whole weights step: its reports of the bytes in the cache around hf download's last lines.

        Its ``docker run --rm`` container is there while hf download runs and
        goes when it ends; a session closed meanwhile (a stop, the step's
        time) ends the docker client, not the container, which downloads on
        until something removes it by its label, as on a Spark."""
        repo = next(w for w in words if w.startswith("SPARK_FLEET_REPO=")).split("=", 1)[1]
        expected = expected_bytes(script)
        had = repo in self.weights
        out.append(on_disk(expected if had else 0))
        name, sid = _flag(words, "--name"), _label(words)
        if name is None or sid is None:
            out.append("docker: the simulated Spark runs only labelled, named containers\n")
            return "".join(out), 125
        if name in self.containers:
            out.append(_conflict(name))
            return "".join(out), 125
        self.containers[name] = _Container(sid, logs=f"downloading {repo}\n")
        if "weights-slow" in faults and write is not None and not had:
            # more slowly than the step may last: two fifths there, then nothing until the connection
            # closes; the container stays
            write("".join(out) + on_disk(expected * 2 // 5))
            out.clear()
            await asyncio.sleep(3600)
            return "", 1
        del self.containers[name]  # --rm
        if "weights-gated" in faults and not had:
            out += [GATED_ERROR.format(repo=repo), on_disk(0)]
            return "".join(out), 1
        if not had:
            out += [on_disk(expected // 2), "Fetching 9 files: 100%|##########| 9/9 [00:41<00:00,  4.61s/it]\n"]
        self.weights.add(repo)
        out += [snapshot_line(repo), on_disk(expected)]
        return "".join(out), 0

    def _alive(self, container: _Container) -> bool:
        return container.exit_code is None and (container.engine is None or not container.engine.dead)

    def _inspect(self, template: str, name: str, out: list[str]) -> int:
        """``docker inspect --format 'state: {{.State.Status}} {{.State.ExitCode}}' NAME``."""
        container = self.containers.get(name)
        if container is None:
            out.append(f"Error: No such object: {name}\n")
            return 1
        code = container.exit_code if container.exit_code is not None else (0 if self._alive(container) else 1)
        status = "running" if self._alive(container) else "exited"
        out.append(template.replace("{{.State.Status}}", status).replace("{{.State.ExitCode}}", str(code)) + "\n")
        return 0

    def _named(self, name: str, out: list[str]) -> _Container | None:
        """The container ``name``, or None after Docker's words for a name it does not know."""
        container = self.containers.get(name)
        if container is None:
            out.append(f"Error response from daemon: No such container: {name}\n")
        return container

    def _logs(self, name: str, out: list[str]) -> int:
        """``docker logs --tail N NAME``: what the container's process printed."""
        container = self._named(name, out)
        if container is None:
            return 1
        out.append(container.logs)
        return 0

    async def _engine(self, words: list[str], faults: set[str], tps: float) -> SimEngine:
        model = _flag(words, "--served-model-name") or "model"
        port = int(_flag(words, "--port") or "8000")
        die = self.die_after_s if "die-after" in faults else None
        engine = SimEngine(model, tps, die_after=die)
        await engine.start(LOOPBACK, port)
        return engine

    async def _run(
        self, words: list[str], faults: set[str], out: list[str], tps: float, write: Callable[[str], None] | None = None
    ) -> int:
        if "serve-fail" in faults:
            out.append(GPU_RUNTIME_ERROR)
            return 125
        if "pull-slow" in faults and write is not None:
            # docker run downloading a missing image, more slowly than the step may last: what it has
            # said so far is sent, then nothing until the connection closes (which cancels this)
            image = _image_in(words)
            write("".join(out) + PULL_PROGRESS.format(image=image, tag=image.rsplit(":", 1)[-1]))
            out.clear()
            await asyncio.sleep(3600)
            out.append("docker: the simulated download never ends\n")
            return 125
        if "pull-fail" in faults:
            out.append(PULL_ERROR.format(image=_image_in(words)))
            return 125
        name, sid = _flag(words, "--name"), _label(words)
        if name is None or sid is None:
            out.append("docker: the simulated Spark runs only labelled, named containers\n")
            return 125
        if name in self.containers:
            out.append(_conflict(name))
            return 125
        env = dict(words[i + 1].split("=", 1) for i, w in enumerate(words[:-1]) if w == "-e" and "=" in words[i + 1])
        container = _Container(sid, env=env)
        if "vllm" in words and "serve" in words and "load-fail" in faults:
            # it starts, then vLLM ends while it loads the model: exited 1, its words in docker logs
            container.exit_code, container.logs = 1, LOAD_FAIL_LOG
        elif "vllm" in words and "serve" in words:
            try:
                container.engine = await self._engine(words, faults, tps)
            except OSError as exc:
                out.append(f"vllm serve: could not bind its port: {exc}\n")
                return 1
            container.logs = RUNNING_LOG.format(port=_flag(words, "--port") or "8000")
        else:
            container.logs = "Local node IP: 127.0.0.1\nRay runtime started.\n"
        self.containers[name] = container
        out.append(f"{os.urandom(32).hex()}\n")
        return 0

    async def _exec(self, words: list[str], faults: set[str], out: list[str], tps: float) -> int:
        container = self.containers.get(words[3])
        if container is None:
            out.append(f"Error response from daemon: No such container: {words[3]}\n")
            return 1
        serve = words[4:]
        if serve[:2] == ["sh", "-c"] and len(serve) > 2:
            # sh -c 'vllm serve ... > /proc/1/fd/1 2>&1; echo $? > FILE': the command before its redirection
            inner = shlex.split(serve[2])
            serve = inner[: inner.index(">")] if ">" in inner else inner
        if "vllm" in serve and "serve" in serve and container.engine is None and container.serve_exit is None:
            if "load-fail" in faults:  # vLLM ends while it loads: its words in the container's log
                container.serve_exit, container.logs = 1, container.logs + LOAD_FAIL_LOG
                return 0
            try:
                container.engine = await self._engine(serve, faults, tps)
            except OSError as exc:
                out.append(f"vllm serve: could not bind its port: {exc}\n")
                return 1
            container.logs += RUNNING_LOG.format(port=_flag(serve, "--port") or "8000")
        return 0

    def _serve_ended(self, name: str, out: list[str]) -> int:
        """Whether the vllm serve run in a Ray head container ended (the wait's reading of SERVE_EXIT)."""
        container = self._named(name, out)
        if container is None:
            return 1
        if container.serve_exit is not None:
            out.append(f"serve ended: {container.serve_exit}\n")
        return 0

    def _nccl_log(self, name: str, faults: set[str], out: list[str]) -> int:
        """The grep of a rank's Ray worker log for the network its NCCL chose
        (serving.steps.network_steps): RoCE over the container's NCCL_IB_HCA,
        or TCP sockets on a node with no usable RoCE device ("no-rdma"); each
        pair twice, as vLLM starts more than one communicator. Nothing without
        NCCL_DEBUG=INFO in the container. Each rank chooses alone: a pair that
        would fail to connect (RoCE on one node, sockets on the other) is not
        simulated here (simfleet.nccl_answers does it for the verification)."""
        container = self.containers.get(name)
        if container is None:
            out.append(f"Error response from daemon: No such container: {name}\n")
            return 1
        if container.env.get("NCCL_DEBUG") != "INFO":
            return 0
        prefix = f"{self.node}:{2100 + len(name)}:{2180 + len(name)} [0] NCCL INFO"
        if "no-rdma" in faults:
            lines = [
                f"{prefix} NET/IB : No device found.",
                f"{prefix} NET/Socket : Using [0]enp1s0f1np1:192.168.100.11<0>",
                f"{prefix} Using network Socket",
            ]
        else:
            hca = [d for d in container.env.get("NCCL_IB_HCA", "").split(",") if d]
            devices = " ".join(f"[{i}]{d}:1/RoCE" for i, d in enumerate(hca))
            lines = [f"{prefix} NET/IB : Using {devices} [RO]; OOB enP7s7:10.0.0.11<0>", f"{prefix} Using network IB"]
        out.extend(f"{line}\n" for line in lines * 2)
        return 0

    async def _router(self, line: str, words: list[str], out: list[str]) -> int:
        match = re.search(r"router-(\d+)\.log", line)
        if match is None:
            return 0
        sid = int(match[1])
        args = words[2 : words.index(">")] if ">" in words else words[2:]
        # loopback only, whatever the script asks for
        for flag in ("--host", "--prometheus-host"):
            if flag in args:
                args[args.index(flag) + 1] = LOOPBACK
        args = [a for a in args if not a.startswith(">")]
        process = await asyncio.create_subprocess_exec(
            router_binary(),
            *args[1:],
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
        self.routers[sid] = process
        if "--port" in args[:-1] and args[args.index("--port") + 1].isdigit():
            self.router_ports[sid] = int(args[args.index("--port") + 1])
        return 0

    def serves_on(self, port: int) -> bool:
        """Whether a router this node started (and still runs) listens on ``port``."""
        return any(
            p == port and sid in self.routers and self.routers[sid].returncode is None
            for sid, p in self.router_ports.items()
        )

    async def stop(self, sid: int) -> None:
        """Stop what serving ``sid`` started on this node."""
        for name in [n for n, c in self.containers.items() if c.serving == sid]:
            container = self.containers.pop(name)
            if container.engine is not None:
                await container.engine.stop()
        process = self.routers.pop(sid, None)
        self.router_ports.pop(sid, None)
        if process is not None and process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 5)
            except TimeoutError:
                process.kill()
                with contextlib.suppress(ProcessLookupError):
                    await process.wait()

    async def stop_all(self) -> None:
        for sid in sorted({c.serving for c in self.containers.values()} | set(self.routers)):
            await self.stop(sid)
