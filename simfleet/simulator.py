"""A simulated fleet of DGX Sparks: one asyncssh server per node on 127.0.0.1.

Each fake node answers exactly ``telemetry.poll_script.POLL_SCRIPT`` with output
shaped like a real Spark's (docs/operations.md): drifting unified memory, varying GPU
gauges, twins up/down and addressed according to the node's cabling, LLDP
neighbours; the same script with the software sections
(``telemetry.software_script``) also with what the node runs
(``simfleet.software_answers``); head nodes also answer the benchmarks app's fixed command and the
fabric verification's ``mpirun ... all_gather_perf`` (``simfleet.nccl_answers``);
and every node serving's scripts on stdin of ``bash -s``, starting simulated
engines and the real vLLM router on loopback (``simfleet.serve_answers``).
Any other command gets exit status 127. Faults (``FAULTS``) make a
node misbehave the ways real ones do. The simulator only ever binds to
loopback: it serves test and benchmark traffic, never a network.

Used by the telemetry tests, ``bench/poll_fleet.py`` and the ``simulate``
management command (through ``run_fleet``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import shlex
import socket
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
import asyncssh

from simfleet.engine import VLLM_VERSION, per_stream_tps, running_on
from simfleet.engine_bench import BenchFigures, bench_summary, run_bench
from simfleet.nccl_answers import NcclAnswer, nccl_answer
from simfleet.serve_answers import REGISTRY_DIGEST, NodeServing
from simfleet.software_answers import (
    CONTAINER_BANNER,
    SOFTWARE_KEYS,
    asked_images,
    client_failure,
    client_in_container,
)
from telemetry.poll_script import POLL_SCRIPT
from telemetry.software_script import POLL_BODY, SOFTWARE_SECTIONS

from .nodes import FAULTS, LOOPBACK, NodeStats, SimEndpoint, SimNode, load_scenario, make_nodes
from .spark_model import SparkModel, _link_networks, render_poll_output

__all__ = [
    "FAULTS",
    "LOOPBACK",
    "NodeStats",
    "SimEndpoint",
    "SimFleet",
    "SimNode",
    "SparkModel",
    "bench_answer",
    "load_scenario",
    "make_nodes",
    "public_key_text",
    "render_poll_output",
    "run_fleet",
]

HUGE_OUTPUT_BYTES = 10 * 1024 * 1024
_SCRIPT_STRIPPED = POLL_SCRIPT.strip()
_SOFTWARE_MARK = f"@@fleet:{SOFTWARE_SECTIONS[0]}"


_END_LINE = _SCRIPT_STRIPPED.rsplit("\n", 1)[-1]
SERVE_SHELL = "bash -s"  # serving.steps.SHELL: the script comes on stdin


def _is_software_poll(command: str) -> bool:
    """The poll script with the software sections (whatever images it asks about)."""
    return command.startswith(POLL_BODY) and _SOFTWARE_MARK in command and command.rstrip().endswith(_END_LINE)


# --------------------------------------------------------------------------- SSH serving


class _Runtime:
    """Per-node serving state shared by its listener, connections and sessions."""

    def __init__(self, fleet: SimFleet, node: SimNode, model: SparkModel) -> None:
        self.fleet = fleet
        self.node = node
        self.model = model
        self.stats = NodeStats()
        self.acceptor: asyncssh.SSHAcceptor | None = None
        self.connections: set[asyncssh.SSHServerConnection] = set()
        self.keys: tuple[asyncssh.SSHKey, asyncssh.SSHKey] | None = None
        self.port = node.port
        self.reopening = False
        # While the node is "down" its port stays bound (never listening): a
        # connection is refused, as by a dead node, and no other server on the
        # machine (another test worker, another fleet) can take the port meanwhile.
        self.hold: socket.socket | None = None
        # What it serves for serving's scripts (engines on loopback, the router).
        self.serving = NodeServing(node.name, die_after_s=fleet.die_after_s)


class _SimServer(asyncssh.SSHServer):
    def __init__(self, runtime: _Runtime) -> None:
        self._rt = runtime
        self._conn: asyncssh.SSHServerConnection | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        self._rt.stats.connections += 1
        self._rt.connections.add(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._conn is not None:
            self._rt.connections.discard(self._conn)

    def auth_completed(self) -> None:
        self._rt.stats.auths += 1

    def session_requested(self) -> asyncssh.SSHServerSession[bytes]:
        return _SimSession(self._rt, self._conn)


_BENCH_RE = re.compile(
    r"export LC_ALL=C; (?:vc\(\) \{ if command -v vllm >/dev/null 2>&1; then vllm \"\$@\"; else docker run [^;]* "
    r"(?P<image>[A-Za-z0-9][A-Za-z0-9._/:@-]*) vllm \"\$@\"; fi; \}; )?"
    r"echo (?P<version_mark>[A-Za-z0-9@:_-]+); (?:vllm|vc) --version 2>/dev/null \|\| true; "
    r"(?P<probes>(?:echo [A-Za-z0-9@:_-]+; curl -sf -m 5 [A-Za-z0-9:/._-]+ 2>/dev/null \| head -c [0-9]+; echo; )*)"
    r"echo (?P<result_mark>[A-Za-z0-9@:_-]+); (?:vllm|vc) (?P<bench>bench serve .*)"
)
_PROBE_RE = re.compile(r"echo (?P<mark>[A-Za-z0-9@:_-]+); curl -sf -m 5 (?P<url>[A-Za-z0-9:/._-]+) 2>/dev/null")


def _probes(match: re.Match[str]) -> list[tuple[str, str]]:
    """The (mark, URL) of each server question the command asks before its benchmark."""
    return [(p["mark"], p["url"]) for p in _PROBE_RE.finditer(match["probes"])]


def _fabricated_probe_answers(match: re.Match[str], args: dict[str, str]) -> str:
    """What a vLLM server that no simulated engine stands for answers the
    command's questions: its model list and version (curl -f prints nothing on a 404)."""
    model = args.get("served-model-name", args.get("model", ""))
    out = []
    for mark, url in _probes(match):
        path = urlsplit(url).path
        body = ""
        if path == "/v1/models":
            body = json.dumps({"object": "list", "data": [{"id": model, "object": "model", "owned_by": "vllm"}]})
        elif path == "/version":
            body = json.dumps({"version": VLLM_VERSION})
        out.append(f"{mark}\n{body}\n")
    return "".join(out)


async def _asked_probe_answers(match: re.Match[str]) -> str:
    """The command's questions asked for real of what serves their URLs (a
    simulated engine, or the router in front of several), as curl -sf does:
    the body of a 200, nothing otherwise."""
    out = []
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as session:
        for mark, url in _probes(match):
            body = ""
            try:
                async with session.get(url) as response:
                    if response.status == 200:
                        body = (await response.text())[:65536]
            except (aiohttp.ClientError, TimeoutError):
                body = ""
            out.append(f"{mark}\n{body}\n")
    return "".join(out)


def _bench_request(command: str) -> tuple[re.Match[str], dict[str, str], tuple[int, int, int, int]] | None:
    """The fixed benchmark command's marks, arguments and (concurrency, prompts,
    input length, output length), or None for any other command. Arguments are
    read with shlex.split, never executed."""
    match = _BENCH_RE.fullmatch(command.strip())
    if match is None:
        return None
    try:
        words = shlex.split(match["bench"])
    except ValueError:
        return None
    args = {words[i][2:]: words[i + 1] for i in range(len(words) - 1) if words[i].startswith("--")}
    try:
        conc = max(1, int(args.get("max-concurrency", "1")))
        prompts = max(1, int(args.get("num-prompts", "10")))
        in_len = max(1, int(args.get("random-input-len", "128")))
        out_len = max(1, int(args.get("random-output-len", "128")))
    except ValueError:
        return None
    return match, args, (conc, prompts, in_len, out_len)


def bench_answer(command: str, node: SimNode) -> str | None:
    """What a head node running ``vllm bench serve`` prints for placement's
    fixed benchmark command when no simulated engine serves its base URL, or
    None for any other command. The figures follow the node's
    memory bandwidth bound (a 128 GB node decodes a mid-size model at about
    55 tok/s per stream) with a little noise, and batching helps up to a point."""
    request = _bench_request(command)
    if request is None:
        return None
    match, _args, (conc, prompts, in_len, out_len) = request
    rng = random.Random(f"{node.name}:{conc}:{in_len}:{out_len}")
    per_stream = per_stream_tps(55.0 * (0.97 + rng.random() * 0.06), conc)
    tpot = 1000.0 / per_stream
    ttft = 20.0 + in_len * 0.32 * (0.95 + rng.random() * 0.1)
    duration = prompts * (ttft / 1000 + out_len * tpot / 1000) / conc
    figures = BenchFigures(
        completed=prompts,
        concurrency=conc,
        duration_s=duration,
        input_tokens=prompts * in_len,
        output_tokens=prompts * out_len,
        ttft_ms=[ttft],
        tpot_ms=[tpot],
        itl_ms=[tpot],
    )
    probes = _fabricated_probe_answers(match, _args)
    # the client in the launch image: each docker run prints the image's banner first
    banner = CONTAINER_BANNER if match["image"] and client_in_container(node.software) else ""
    return (
        f"{match['version_mark']}\n{banner}{VLLM_VERSION}\n{probes}{match['result_mark']}\n"
        f"{banner}{bench_summary(figures)}"
    )


def _served_port(args: dict[str, str], serving: NodeServing | None = None) -> int | None:
    """The loopback port the command's --base-url names when something the simulator
    started serves there: an engine of this process, or a router ``serving`` started."""
    url = urlsplit(args.get("base-url", ""))
    if url.scheme != "http" or url.hostname not in ("127.0.0.1", "localhost") or url.port is None:
        return None
    if running_on(url.port) is not None or (serving is not None and serving.serves_on(url.port)):
        return url.port
    return None


async def measured_bench_answer(command: str, serving: NodeServing | None = None) -> str | None:
    """The fixed benchmark command measured for real (``simfleet.engine_bench``)
    against what its --base-url names: a simulated engine of this process, or
    the router the node started in front of several; None when the command is
    another or nothing the simulator started serves that URL."""
    request = _bench_request(command)
    if request is None:
        return None
    match, args, (conc, prompts, in_len, out_len) = request
    port = _served_port(args, serving)
    if port is None:
        return None
    model = args.get("served-model-name", args.get("model", ""))
    base = f"http://127.0.0.1:{port}"
    figures = await run_bench(base, model, concurrency=conc, num_prompts=prompts, input_len=in_len, output_len=out_len)
    probes = await _asked_probe_answers(match)
    head = f"{match['version_mark']}\n{VLLM_VERSION}\n{probes}{match['result_mark']}\n"
    if figures.completed == 0:
        return head + f"Error: no request to {base} completed\n"
    return head + bench_summary(figures)


class _SimSession(asyncssh.SSHServerSession[bytes]):
    def __init__(self, runtime: _Runtime, conn: asyncssh.SSHServerConnection | None) -> None:
        self._rt = runtime
        self._conn = conn
        self._chan: asyncssh.SSHServerChannel[bytes] | None = None
        self._command: str | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None
        self._stdin = bytearray()

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self._chan = chan

    def shell_requested(self) -> bool:
        return False

    def exec_requested(self, command: str) -> bool:
        self._rt.stats.execs += 1
        self._command = command
        return True

    def session_started(self) -> None:
        chan = self._chan
        assert chan is not None
        faults = self._rt.node.faults
        if self._command == SERVE_SHELL:
            return  # serving's script comes on stdin: answered at its end (eof_received)
        # Trailing newlines get lost in shells ("$(cat script)"): compare without them.
        bench = bench_answer(self._command or "", self._rt.node)
        fleet = self._rt.fleet
        nccl = nccl_answer(
            self._command or "",
            {n.name: n.faults for n in fleet.nodes},
            {n.name: n.cabled_ports for n in fleet.nodes},
            row_s=fleet.nccl_row_s,
        )
        if nccl is not None:
            if "hung" not in faults:  # a hung head node never answers
                self._task = asyncio.get_running_loop().create_task(self._stream(nccl))
        elif bench is not None and "down" not in faults and "hung" not in faults:
            bench_request = _bench_request(self._command or "")
            image = bench_request[0]["image"] if bench_request is not None else None
            failure = client_failure(self._rt.node.software, faults, image) if image else None
            if bench_request is not None and failure is not None:
                # neither the node's own vllm nor the launch image under Docker: the client never starts
                chan.write(f"{bench_request[0]['version_mark']}\n{bench_request[0]['result_mark']}\n".encode())
                chan.write_stderr(failure[0].encode())
                chan.exit(failure[1])
            elif bench_request is not None and _served_port(bench_request[1], self._rt.serving) is not None:
                self._task = asyncio.get_running_loop().create_task(self._measure(self._command or ""))
            else:
                chan.write(bench.encode())
                chan.exit(0)
        elif (self._command or "").strip() != _SCRIPT_STRIPPED and not _is_software_poll(self._command or ""):
            first = (self._command or "").split(None, 1)[0] if (self._command or "").split() else ""
            chan.write_stderr(f"sh: 1: {first[:40]}: command not found\n".encode())
            chan.exit(127)
        elif "hung" in faults:
            return  # keep the channel open and silent forever
        elif "slow" in faults:
            self._timer = asyncio.get_running_loop().call_later(self._rt.fleet.slow_s, self._answer)
        else:
            self._answer()

    async def _measure(self, command: str) -> None:
        try:
            text = await measured_bench_answer(command, self._rt.serving)
            status = 0
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            text, status = f"Error: {exc}\n", 1
        if self._chan is None or self._chan.is_closing():
            return
        self._chan.write((text or "").encode())
        self._chan.exit(status)

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        if self._command == SERVE_SHELL and len(self._stdin) < 1_000_000:
            self._stdin += data

    def eof_received(self) -> bool:
        if self._command == SERVE_SHELL and "hung" not in self._rt.node.faults:
            self._task = asyncio.get_running_loop().create_task(self._serve(self._stdin.decode(errors="replace")))
        return True  # keep the channel open for the answer

    def _write(self, text: str) -> None:
        if self._chan is not None and not self._chan.is_closing():
            self._chan.write(text.encode())

    async def _serve(self, script: str) -> None:
        try:
            node = self._rt.node
            absent = node.software.get("image_digest") == "absent"
            output, status = await self._rt.serving.answer(
                script,
                set(node.faults),
                self._write,
                image_absent=absent,
                image_id=node.software.get("image_id", ""),
                image_digest=node.software.get("image_digest", REGISTRY_DIGEST),
            )
            if absent and self._rt.serving.pulled:  # downloaded: the next software poll finds the build pulled
                digest, image_id = list(self._rt.serving.pulled.values())[-1]
                node.software.update(image_digest=digest, image_id=image_id)
        except Exception as exc:  # an answer the simulator could not give: a failed command, not a hung one
            output, status = f"simulated Spark: {type(exc).__name__}: {exc}\n", 1
        if self._chan is not None and not self._chan.is_closing():
            self._chan.write(output.encode())
            self._chan.exit(status)

    async def _stream(self, answer: NcclAnswer) -> None:
        for delay, text in answer.chunks:
            await asyncio.sleep(delay)
            if self._chan is None or self._chan.is_closing():
                return
            self._chan.write(text.encode())
        if answer.exit_status is not None and self._chan is not None and not self._chan.is_closing():
            self._chan.exit(answer.exit_status)

    def _answer(self) -> None:
        chan = self._chan
        if chan is None or chan.is_closing():
            return
        faults = self._rt.node.faults
        model = self._rt.model
        command = self._command or ""
        images = asked_images(command) if _is_software_poll(command) else None
        if "garbage" in faults:
            chan.write(model.garbage().encode() + b"\xff\xfe\x00 not utf-8\n")
        elif "huge-output" in faults:
            line = b"x" * 1023 + b"\n"
            chan.write(model.output(images).encode() + line * (HUGE_OUTPUT_BYTES // 1024))
        elif "close-mid-output" in faults:
            text = model.output(images).encode()
            chan.write(text[: len(text) // 2])
            if self._conn is not None:
                # Give the half answer time to leave, then drop the TCP connection
                # like a node that reboots or loses power mid-answer.
                asyncio.get_running_loop().call_later(0.05, self._conn.abort)
            return
        else:
            chan.write(model.output(images).encode())
        chan.exit(0)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._task is not None:
            self._task.cancel()
        self._chan = None


class _HostKeys:
    """Per-node host keys (first and "changed"), generated lazily, cached on disk if asked."""

    def __init__(self, directory: Path | None) -> None:
        self._dir = directory
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)

    def get(self, name: str, variant: str) -> asyncssh.SSHKey:
        if self._dir is None:
            return asyncssh.generate_private_key("ssh-ed25519")
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)
        path = self._dir / f"{safe}.{variant}.key"
        if path.exists():
            return asyncssh.read_private_key(path)
        key = asyncssh.generate_private_key("ssh-ed25519")
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(key.export_private_key())
        tmp.chmod(0o600)
        tmp.replace(path)
        return key


def public_key_text(key: asyncssh.SSHKey) -> str:
    """OpenSSH public key text without comment: ``ssh-ed25519 AAAA...``."""
    return " ".join(key.export_public_key("openssh").decode().split()[:2])


def _hold_port(port: int) -> socket.socket:
    """A socket bound to ``port`` (0: any free one) that never listens."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((LOOPBACK, port))
    except OSError:
        sock.close()
        # the port's closed connections may linger: binding over them needs SO_REUSEADDR
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((LOOPBACK, port))
    return sock


def _release(runtime: _Runtime) -> None:
    if runtime.hold is not None:
        runtime.hold.close()
        runtime.hold = None


class SimFleet:
    """A set of simulated Sparks served on 127.0.0.1, one port each.

    ``authorized_client_key``: the OpenSSH public key text clients must
    authenticate with. ``host_key_dir``: where per-node host keys persist, so a
    restarted fleet presents the same keys (None: fresh keys each start).
    """

    def __init__(
        self,
        nodes: Iterable[SimNode],
        *,
        authorized_client_key: str,
        host_key_dir: Path | None = None,
        host: str = LOOPBACK,
        slow_s: float = 2.0,
        nccl_row_s: float = 1.0,
        die_after_s: float = 3.0,
    ) -> None:
        if host != LOOPBACK:
            raise ValueError(f"the simulator binds to {LOOPBACK} only, not {host!r}")
        self.nodes = list(nodes)
        names = [n.name for n in self.nodes]
        if len(set(names)) != len(names):
            raise ValueError("node names must be unique")
        self.slow_s = slow_s
        self.nccl_row_s = nccl_row_s  # seconds between two rows of a simulated nccl-tests run
        self.die_after_s = die_after_s  # how long an engine of a "die-after" node answers
        self._authorized = asyncssh.import_authorized_keys(authorized_client_key)
        self._keys = _HostKeys(host_key_dir)
        networks = _link_networks(self.nodes)
        everyone = sorted(names)
        self._runtimes = {n.name: _Runtime(self, n, SparkModel(n, networks, everyone)) for n in self.nodes}
        self._pending: set[asyncio.Task[None]] = set()

    async def start(self) -> list[SimEndpoint]:
        """Start every node's server; returns where each listens and its host key."""
        endpoints = []
        for runtime in self._runtimes.values():
            runtime.keys = (
                self._keys.get(runtime.node.name, "first"),
                self._keys.get(runtime.node.name, "changed"),
            )
            if "down" in runtime.node.faults:
                runtime.hold = _hold_port(runtime.port)
                runtime.port = int(runtime.hold.getsockname()[1])
            else:
                await self._listen(runtime)
            endpoints.append(self.endpoint(runtime.node.name))
        return endpoints

    def endpoint(self, name: str) -> SimEndpoint:
        runtime = self._runtimes[name]
        assert runtime.keys is not None, "start() first"
        return SimEndpoint(name, LOOPBACK, runtime.port, public_key_text(self._current_key(runtime)))

    def stats(self, name: str) -> NodeStats:
        return self._runtimes[name].stats

    def serving(self, name: str) -> NodeServing:
        """What the node serves for serving's scripts (its engines and router)."""
        return self._runtimes[name].serving

    def _current_key(self, runtime: _Runtime) -> asyncssh.SSHKey:
        assert runtime.keys is not None
        return runtime.keys[1] if "host-key-changed" in runtime.node.faults else runtime.keys[0]

    async def _listen(self, runtime: _Runtime) -> None:
        _release(runtime)
        runtime.acceptor = await asyncssh.listen(
            LOOPBACK,
            runtime.port,
            server_factory=lambda: _SimServer(runtime),
            server_host_keys=[self._current_key(runtime)],
            authorized_client_keys=self._authorized,
            encoding=None,
            allow_scp=False,
            agent_forwarding=False,
            x11_forwarding=False,
            keepalive_interval=0,
            reuse_address=True,
        )
        runtime.port = runtime.acceptor.get_port()

    def set_faults(self, name: str, faults: Iterable[str]) -> None:
        """Change a node's faults while serving. Output faults apply to the next
        exec; "host-key-changed" to the next connection; "down" closes the
        listener and drops connections at once, and reopening it after "down"
        is cleared completes asynchronously (``await settle()``)."""
        runtime = self._runtimes[name]
        new = set(faults)
        unknown = new - FAULTS
        if unknown:
            raise ValueError(f"unknown fault(s) {sorted(unknown)}")
        old = runtime.node.faults
        runtime.node.faults = new
        if runtime.keys is None:
            return  # not started: start() will honour the faults
        if ("host-key-changed" in old) != ("host-key-changed" in new) and runtime.acceptor is not None:
            runtime.acceptor.update(server_host_keys=[self._current_key(runtime)])
        if "down" in new and runtime.acceptor is not None:
            runtime.acceptor.close()
            runtime.acceptor = None
            for conn in list(runtime.connections):
                conn.abort()
            with contextlib.suppress(OSError):  # best effort: the node is down either way
                runtime.hold = _hold_port(runtime.port)
        elif "down" not in new and runtime.acceptor is None and not runtime.reopening:
            runtime.reopening = True
            task = asyncio.get_running_loop().create_task(self._reopen(runtime))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    def software(self, name: str) -> dict[str, str]:
        """What a node runs where it differs from DEFAULT_SOFTWARE (a copy)."""
        return dict(self._runtimes[name].node.software)

    def set_software(self, name: str, software: dict[str, str]) -> None:
        """Change what a node runs (overrides of DEFAULT_SOFTWARE; {} for the
        defaults) from its next software poll on, as after an update."""
        odd = set(software) - SOFTWARE_KEYS
        if odd:
            raise ValueError(f"unknown software key(s) {sorted(odd)}; known: {sorted(SOFTWARE_KEYS)}")
        self._runtimes[name].node.software = dict(software)

    def reboot(self, name: str) -> None:
        """The node boots again: its uptime restarts from zero (its connections stay, as a test needs no more)."""
        self._runtimes[name].model.reboot()

    async def _reopen(self, runtime: _Runtime) -> None:
        try:
            if "down" not in runtime.node.faults:
                await self._listen(runtime)
        finally:
            runtime.reopening = False

    async def settle(self) -> None:
        """Wait until listeners reopened by ``set_faults`` accept connections."""
        while self._pending:
            await asyncio.gather(*list(self._pending))

    async def stop(self) -> None:
        await self.settle()
        for runtime in self._runtimes.values():
            await runtime.serving.stop_all()
            _release(runtime)
            if runtime.acceptor is not None:
                runtime.acceptor.close()
            for conn in list(runtime.connections):
                conn.abort()
        for runtime in self._runtimes.values():
            if runtime.acceptor is not None:
                with contextlib.suppress(Exception):
                    await runtime.acceptor.wait_closed()
                runtime.acceptor = None


async def run_fleet(
    nodes: list[SimNode],
    *,
    authorized_client_key: str,
    host_key_dir: Path | None = None,
    ready_callback: Callable[[list[SimEndpoint]], Awaitable[None] | None] | None = None,
    slow_s: float = 2.0,
    nccl_row_s: float = 1.0,
) -> None:
    """Serve ``nodes`` until cancelled (Ctrl-C in ``manage.py simulate``).

    ``ready_callback(endpoints)`` runs once every server listens (plain or async).
    """
    fleet = SimFleet(
        nodes,
        authorized_client_key=authorized_client_key,
        host_key_dir=host_key_dir,
        slow_s=slow_s,
        nccl_row_s=nccl_row_s,
    )
    try:
        endpoints = await fleet.start()
        if ready_callback is not None:
            result = ready_callback(endpoints)
            if asyncio.iscoroutine(result):
                await result
        await asyncio.Event().wait()
    finally:
        await fleet.stop()
