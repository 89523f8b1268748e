"""Time one telemetry poll of a simulated fleet, against OpenSSH and a bare asyncssh floor.

The simulated fleet (``simfleet.simulator``, healthy nodes cabled in pairs)
runs in a separate process so its CPU is not counted. In this process, side
by side in the same run:

  (a) product: ``poll_nodes`` (fetch + parse into Samples), cold (a new
      connection per node) and warm (``ConnectionPool`` kept from a first poll);
  (b) OpenSSH: one ``ssh`` subprocess per node running the same script at the
      same concurrency, output parsed with the same parser (cold only);
  (c) floor: a bare asyncssh loop that only fetches the same output and
      discards it, cold and warm (same host key checking, same cipher
      preference, same concurrency).

  (d) software: the product's warm poll in a steady round where the Sparks
      whose software is due (one in ``--software-every``, default 120: an
      hour's interval at 30 s polls) get the script with the software sections,
      beside the plain warm poll; and a warm round where every Spark reads it
      (a fleet-wide reboot), to see what one software reading costs.

Per mode: wall time, nodes/s, and CPU ms per node in THIS process (plus, for
(b), the CPU of the ssh children). Storing samples is the Django side's job:
``--store-hook module:function`` calls that function on each PollResult as it
arrives, so the cost of storing can be measured here once it exists.

    .venv/bin/python bench/poll_fleet.py [--nodes 1000] [--concurrency 64] [--repeats 3] [--software-every 120]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import importlib
import multiprocessing
import os
import platform
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncssh  # noqa: E402

from simfleet.simulator import SimFleet, make_nodes  # noqa: E402
from telemetry.conf import DEFAULT_LAUNCH_IMAGE  # noqa: E402
from telemetry.parsers import parse_poll_output  # noqa: E402
from telemetry.poll_script import POLL_SCRIPT  # noqa: E402
from telemetry.poller import ENCRYPTION_ALGS, ConnectionPool, Target, poll_nodes  # noqa: E402
from telemetry.software_script import software_poll_script  # noqa: E402

USER = "fleet"


# --------------------------------------------------------------------------- the fleet, in its own process


def _serve(count: int, public_key: str, key_dir: str, pipe: Any) -> None:
    async def main() -> None:
        fleet = SimFleet(make_nodes(count), authorized_client_key=public_key, host_key_dir=Path(key_dir))
        endpoints = await fleet.start()
        pipe.send([tuple(e) for e in endpoints])
        loop = asyncio.get_running_loop()
        # Serve until the parent says stop (or dies: the pipe then reads EOF).
        await loop.run_in_executor(None, pipe.recv)
        await fleet.stop()

    try:
        asyncio.run(main())
    except (EOFError, KeyboardInterrupt):
        pass


# --------------------------------------------------------------------------- measuring


@dataclass
class Figure:
    label: str
    wall_s: float
    cpu_s: float
    ok: int
    nodes: int

    @property
    def rate(self) -> float:
        return self.nodes / self.wall_s

    @property
    def cpu_ms_per_node(self) -> float:
        return self.cpu_s * 1000 / self.nodes


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def _measure(label: str, nodes: int, run: Callable[[], Awaitable[int]], children: bool = False) -> Figure:
    wall, cpu, kids = time.perf_counter(), time.process_time(), _children_cpu()
    ok = await run()
    cpu_used = time.process_time() - cpu + (_children_cpu() - kids if children else 0.0)
    return Figure(label, time.perf_counter() - wall, cpu_used, ok, nodes)


def _median(figures: list[Figure]) -> Figure:
    best = sorted(figures, key=lambda f: f.wall_s)[len(figures) // 2]
    cpu = statistics.median(f.cpu_s for f in figures)
    return Figure(best.label, best.wall_s, cpu, min(f.ok for f in figures), best.nodes)


# --------------------------------------------------------------------------- (a) the product


def _load_hook(spec: str | None) -> Callable[[Any], Any] | None:
    if not spec:
        return None
    module, _, func = spec.partition(":")
    return getattr(importlib.import_module(module), func)  # type: ignore[no-any-return]


async def product(
    targets: list[Target], keys: dict[str, str | None], key_path: str, concurrency: int,
    pool: ConnectionPool | None, hook: Callable[[Any], Any] | None, software_script: str | None = None,
) -> int:  # fmt: skip
    results = await poll_nodes(
        targets, client_keys=[key_path], known_hosts=keys, concurrency=concurrency, pool=pool, on_result=hook,
        software_script=software_script,
    )  # fmt: skip
    due = {t.name for t in targets if t.software}
    return sum(
        1
        for r in results
        if r.error == "" and r.sample is not None and not r.sample.errors
        and (r.sample.software is not None) == (r.name in due)
    )  # fmt: skip


SOFTWARE_SCRIPT = software_poll_script(images=(DEFAULT_LAUNCH_IMAGE,))


def software_due(targets: list[Target], every: int, offset: int) -> list[Target]:
    """The targets of a steady round: one in ``every`` (a different one each round) reads its software."""
    return [dataclasses.replace(t, software=(i + offset) % every == 0) for i, t in enumerate(targets)]


# --------------------------------------------------------------------------- (b) OpenSSH


async def openssh(targets: list[Target], known_hosts_file: str, key_path: str, concurrency: int) -> int:
    semaphore = asyncio.Semaphore(concurrency)

    async def one(target: Target) -> bool:
        async with semaphore:
            proc = await asyncio.create_subprocess_exec(
                "ssh", "-F", "/dev/null", "-i", key_path, "-p", str(target.port),
                "-o", f"UserKnownHostsFile={known_hosts_file}", "-o", "GlobalKnownHostsFile=/dev/null",
                "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
                "-o", "ConnectTimeout=5", f"{USER}@{target.host}", POLL_SCRIPT,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
            )  # fmt: skip
            out, _ = await asyncio.wait_for(proc.communicate(), 15)
            sample = parse_poll_output(out.decode("utf-8", errors="replace"))
            return proc.returncode == 0 and not sample.errors

    return sum(await asyncio.gather(*(one(t) for t in targets)))


# --------------------------------------------------------------------------- (c) the floor


class _Discard(asyncssh.SSHClientSession[bytes]):
    def __init__(self, done: asyncio.Future[None]) -> None:
        self._done = done

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._done.done():
            self._done.set_result(None)


async def _fetch(conn: asyncssh.SSHClientConnection) -> None:
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    await conn.create_session(lambda: _Discard(done), POLL_SCRIPT, encoding=None)
    await done


@dataclass
class Floor:
    """The least any poller must do: connect (verifying the host key), exec, read, discard."""

    client_key: asyncssh.SSHKey
    known: dict[str, asyncssh.SSHKnownHosts]
    concurrency: int

    async def run(self, targets: list[Target], conns: dict[str, asyncssh.SSHClientConnection] | None) -> int:
        semaphore = asyncio.Semaphore(self.concurrency)

        async def one(target: Target) -> bool:
            async with semaphore:
                conn = conns.get(target.name) if conns is not None else None
                if conn is None:
                    conn = await asyncssh.connect(
                        target.host, target.port, username=USER, client_keys=[self.client_key],
                        known_hosts=self.known[target.name], agent_path=None, config=None, gss_auth=False,
                        encryption_algs=ENCRYPTION_ALGS,
                    )  # fmt: skip
                await _fetch(conn)
                if conns is not None:
                    conns[target.name] = conn
                else:
                    conn.close()
                return True

        return sum(await asyncio.gather(*(one(t) for t in targets)))


# --------------------------------------------------------------------------- main


async def bench(args: argparse.Namespace, endpoints: list[tuple[str, str, int, str]], workdir: Path) -> None:
    key_path = str(workdir / "id_ed25519")
    targets = [Target(name, host, port, USER) for name, host, port, _ in endpoints]
    keys: dict[str, str | None] = {name: key for name, _, _, key in endpoints}
    known_hosts_file = workdir / "known_hosts"
    known_hosts_file.write_text("".join(f"[{host}]:{port} {key}\n" for _, host, port, key in endpoints))
    hook = _load_hook(args.store_hook)
    n, c = len(targets), args.concurrency

    floor = Floor(
        asyncssh.read_private_key(key_path),
        {name: asyncssh.import_known_hosts(f"* {key}\n") for name, key in keys.items()},
        c,
    )
    runs: dict[str, list[Figure]] = {
        "a_cold": [], "a_warm": [], "d_steady": [], "d_all": [], "c_cold": [], "c_warm": [],
    }  # fmt: skip
    every = max(1, args.software_every)
    all_due = [dataclasses.replace(t, software=True) for t in targets]
    rounds = 0

    async def one_round() -> None:
        # Product and floor alternate so that both see the same machine load.
        runs["a_cold"].append(
            await _measure("(a) product, cold", n, lambda: product(targets, keys, key_path, c, None, hook))
        )
        await asyncio.sleep(0.5)  # let the simulator drop the closed connections
        runs["c_cold"].append(await _measure("(c) floor, cold", n, lambda: floor.run(targets, None)))
        await asyncio.sleep(0.5)
        pool = ConnectionPool()
        conns: dict[str, asyncssh.SSHClientConnection] = {}
        await product(targets, keys, key_path, c, pool, None)  # open the pool's connections
        await floor.run(targets, conns)
        nonlocal rounds
        for _ in range(3):  # warm polls are short: take more of them
            runs["a_warm"].append(
                await _measure("(a) product, warm", n, lambda: product(targets, keys, key_path, c, pool, hook))
            )
            steady = software_due(targets, every, rounds)
            rounds += 1
            runs["d_steady"].append(
                await _measure(
                    f"(d) warm, 1/{every} sw due", n,
                    lambda steady=steady: product(steady, keys, key_path, c, pool, hook, SOFTWARE_SCRIPT),
                )
            )  # fmt: skip
            runs["c_warm"].append(await _measure("(c) floor, warm", n, lambda: floor.run(targets, conns)))
        runs["d_all"].append(
            await _measure(
                "(d) warm, all read sw", n, lambda: product(all_due, keys, key_path, c, pool, hook, SOFTWARE_SCRIPT)
            )
        )
        await pool.close()
        for conn in conns.values():
            conn.close()
        await asyncio.sleep(0.5)

    for _ in range(args.repeats):
        await one_round()
    figures = {key: _median(values) for key, values in runs.items()}

    ssh = shutil.which("ssh")
    if ssh and not args.skip_ssh:
        figures["b"] = await _measure(
            "(b) OpenSSH ssh, cold", n, lambda: openssh(targets, str(known_hosts_file), key_path, c), children=True
        )

    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs, ", end="")
    print(f"asyncssh {asyncssh.__version__}, cipher preference {ENCRYPTION_ALGS[0]}")
    print(
        f"nodes: {n}, concurrency: {c}, medians of {args.repeats} cold and {3 * args.repeats} warm polls, "
        "simulator in a separate process"
    )
    print(f"answer size: {len(POLL_SCRIPT)} B script, ~{args.answer_bytes} B output per node")
    print(f"software poll: {len(SOFTWARE_SCRIPT)} B script, ~{args.software_bytes} B output per node")
    print(f"{'mode':<24}{'wall s':>8}{'nodes/s':>10}{'CPU ms/node':>13}{'ok':>7}")
    for fig in figures.values():
        print(f"{fig.label:<24}{fig.wall_s:>8.2f}{fig.rate:>10.0f}{fig.cpu_ms_per_node:>13.2f}{fig.ok:>7}")
    if not ssh:
        print("(b) skipped: no ssh client on this machine")
    elif args.skip_ssh:
        print("(b) skipped: --skip-ssh")

    def ratio(x: Figure, y: Figure) -> str:
        return f"{x.rate / y.rate:.1f}x the throughput, {y.cpu_ms_per_node / x.cpu_ms_per_node:.1f}x less CPU/node"

    print("ratios:")
    if "b" in figures:
        print(f"  product cold vs (b) ssh:  {ratio(figures['a_cold'], figures['b'])}")
        print(f"  product warm vs (b) ssh:  {ratio(figures['a_warm'], figures['b'])}")
    for kind in ("cold", "warm"):
        a, f = figures[f"a_{kind}"], figures[f"c_{kind}"]
        print(
            f"  product {kind} vs (c) floor {kind}: wall {a.wall_s / f.wall_s:.2f}x, "
            f"CPU/node {a.cpu_ms_per_node / f.cpu_ms_per_node:.2f}x"
        )
    goals = []
    if "b" in figures:
        for kind in ("cold", "warm"):
            met = figures[f"a_{kind}"].rate >= 5 * figures["b"].rate
            goals.append(f"{kind} >=5x (b) throughput: {'met' if met else 'NOT met'}")
    for kind in ("cold", "warm"):
        met = figures[f"a_{kind}"].wall_s <= 1.3 * figures[f"c_{kind}"].wall_s
        goals.append(f"{kind} within 30% of (c) wall: {'met' if met else 'NOT met'}")
    warm, steady, all_read = figures["a_warm"], figures["d_steady"], figures["d_all"]
    print(
        f"  software, steady round (1/{every} due) vs none: wall {steady.wall_s / warm.wall_s:.2f}x, "
        f"CPU/node {steady.cpu_ms_per_node / warm.cpu_ms_per_node:.2f}x"
    )
    print(
        f"  software, every Spark reading it vs none: wall {all_read.wall_s / warm.wall_s:.2f}x, "
        f"CPU/node {all_read.cpu_ms_per_node / warm.cpu_ms_per_node:.2f}x"
    )
    spread = statistics.pstdev(f.wall_s for f in runs["a_warm"]) / statistics.mean(f.wall_s for f in runs["a_warm"])
    met = steady.wall_s <= warm.wall_s * (1 + max(0.05, 2 * spread))
    goals.append(
        f"steady round with software not measurably slower (within noise {spread:.0%}): {'met' if met else 'NOT met'}"
    )
    print("goals: " + "; ".join(goals))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-ssh", action="store_true", help="leave out (b)")
    parser.add_argument(
        "--software-every", type=int, default=120, help="one Spark in N reads its software in a steady round (d)"
    )
    parser.add_argument("--store-hook", help="module:function called on each PollResult, e.g. a Django store service")
    args = parser.parse_args()

    # A fleet of N nodes holds ~2N sockets here (pool + floor) and N listeners there.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.nodes + 256)), hard))

    with tempfile.TemporaryDirectory(prefix="poll-bench-") as tmp:
        workdir = Path(tmp)
        key = asyncssh.generate_private_key("ssh-ed25519")
        (workdir / "id_ed25519").write_bytes(key.export_private_key())
        (workdir / "id_ed25519").chmod(0o600)
        public = key.export_public_key("openssh").decode()
        ctx = multiprocessing.get_context("spawn")
        ours, theirs = ctx.Pipe()
        server = ctx.Process(target=_serve, args=(args.nodes, public, str(workdir / "host-keys"), theirs), daemon=True)
        server.start()
        try:
            if not ours.poll(120):
                raise SystemExit("the simulated fleet did not start within 120 s")
            endpoints = ours.recv()
            args.answer_bytes = _answer_size(endpoints, workdir)
            args.software_bytes = _answer_size(endpoints, workdir, SOFTWARE_SCRIPT)
            asyncio.run(bench(args, endpoints, workdir))
        finally:
            ours.send("stop")
            server.join(30)
            if server.is_alive():
                server.terminate()


def _answer_size(endpoints: list[tuple[str, str, int, str]], workdir: Path, script: str = POLL_SCRIPT) -> int:
    """Size of one node's answer, fetched once with the product (for the header)."""
    name, host, port, key = endpoints[0]

    async def one() -> int:
        client = await asyncssh.connect(
            host, port, username=USER, client_keys=[str(workdir / "id_ed25519")],
            known_hosts=asyncssh.import_known_hosts(f"* {key}\n"), agent_path=None, config=None,
        )  # fmt: skip
        async with client:
            result = await client.run(script, encoding=None)
        return len(result.stdout or b"")

    return asyncio.run(one())


if __name__ == "__main__":
    main()
