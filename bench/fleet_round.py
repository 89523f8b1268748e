"""One poll round of the deployed shape, end to end, for fleets of 1,000 to 10,000 Sparks.

The parts are the product's own, run as deployed: the beat task
``telemetry.poll_fleet`` sent to the broker as beat sends it, Celery worker
processes (prefork) taking the chunks it fans out, SSH to the simulated
Sparks with the workers' pooled connections, results stored in PostgreSQL.
The simulated fleet (``simfleet.simulator``, one asyncssh server per Spark on
127.0.0.1, ports chosen by the OS) is spread over several processes so that
no process runs out of file descriptors.

Per fleet size, a cold round (fresh workers: every connection is new, and
the product spreads new connections over ``FLEET_CONNECT_SPREAD`` x the
interval) and warm rounds (connections kept). For each round:

- tick -> stored: from sending the tick to the last Spark's result committed
  (the bench watches ``NodeState.last_poll_at`` every 0.25 s);
- nodes/s; ok = Sparks whose round brought a sample;
- worker CPU per node: user+system CPU of every worker process (main and
  prefork children, from /proc) over the round, divided by the fleet size;
- broker messages: the tick plus the chunk tasks the workers ran, counted by
  the product's own task metrics (``fleet_task_runs_total``);
- database time: PostgreSQL's own ``pg_stat_database.active_time`` for the
  bench database over the round (time spent executing statements), less the
  time of the bench's own watching queries (timed as it makes them), and the
  share of task time the workers spent storing (``fleet_poll_phase_seconds``).

Baseline in the same run, per size: the bare asyncssh loop (``bench/poll_fleet.py``'s
floor: connect with host key checking, exec the poll script, discard the
output) over the same Sparks with connections kept, in the workers' shape: one
process per poll shard (or per prefork child) holding the Sparks that worker
holds, with the workers' SSH concurrency, every pass run by all of them at
once; the median of three warm passes.

The machine running this also runs the simulated Sparks (their SSH server
side costs about as much CPU as the workers' client side), so wall times here
are pessimistic for a dedicated worker box; the per-node worker CPU is what
sizes one: a 2-core box keeps ``2 x 60 s / CPU per node`` Sparks in a 60 s
interval at full use.

    .venv/bin/python bench/fleet_round.py --sizes 1000,2500,5000,10000

Needs PostgreSQL and Redis (``--database``, ``--broker``; defaults below).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import multiprocessing
import os
import platform
import resource
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/sf_scale_bench"
DEFAULT_BROKER = "redis://127.0.0.1:6379/7"
CLK_TCK = os.sysconf("SC_CLK_TCK")


# --------------------------------------------------------------------------- the simulated fleet, in processes


def _serve(names: list[str], count: int, public_key: str, key_dir: str, pipe: Any) -> None:
    _raise_nofile()
    from simfleet.simulator import SimFleet, make_nodes

    wanted = set(names)
    nodes = [n for n in make_nodes(count) if n.name in wanted]

    async def main() -> None:
        fleet = SimFleet(nodes, authorized_client_key=public_key, host_key_dir=Path(key_dir))
        endpoints = await fleet.start()
        pipe.send([tuple(e) for e in endpoints])
        await asyncio.get_running_loop().run_in_executor(None, pipe.recv)
        await fleet.stop()

    try:
        asyncio.run(main())
    except (EOFError, KeyboardInterrupt):
        pass


def _raise_nofile() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# --------------------------------------------------------------------------- workers


def _tree(pid: int) -> list[int]:
    out = [pid]
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in children:
            out.extend(_tree(int(child)))
    return out


def _cpu_s(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLK_TCK


def floor_processes(args: argparse.Namespace) -> int:
    """As many floor processes as processes polling: the shards, or every prefork child."""
    return args.shards or args.workers * args.concurrency


def queues_for(args: argparse.Namespace) -> list[str]:
    """Queues per worker instance; sharded, instance i takes telemetry.poll.i (and instance 0 the tick)."""
    if args.shards:
        return [("celery," if i == 0 else "") + f"telemetry.poll.{i}" for i in range(args.shards)]
    return ["celery"] * args.workers


class Workers:
    def __init__(self, queues: list[str], concurrency: int, env: dict[str, str]) -> None:
        self.procs = [
            subprocess.Popen(  # noqa: S603 - our own interpreter and arguments
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "fleet",
                    "worker",
                    "-P",
                    "prefork",
                    "-c",
                    str(concurrency),
                    "-n",
                    f"bench{i}@%h",
                    "-l",
                    "WARNING",
                    "--without-gossip",
                    "--without-mingle",
                    "--without-heartbeat",
                    "-Q",
                    queue,
                ],
                cwd=ROOT,
                env=env,
                start_new_session=True,
                stdout=subprocess.DEVNULL,
                stderr=open(env["FLEET_VAR_DIR"] + f"/worker{i}.log", "ab"),  # noqa: SIM115
            )  # fmt: skip
            for i, queue in enumerate(queues)
        ]

    def pids(self) -> list[int]:
        return [pid for p in self.procs for pid in _tree(p.pid)]

    def cpu_s(self) -> float:
        return _cpu_s(self.pids())

    def main_cpu_s(self) -> float:
        """The Celery main processes only (broker, hand-off to the pool): the rest is the pool processes' tasks."""
        return _cpu_s([p.pid for p in self.procs])

    def rss_mb(self) -> float:
        total = 0
        for pid in self.pids():
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            except OSError:
                pass
        return total / 1024

    def stop(self) -> None:
        for p in self.procs:
            with _suppress():
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                with _suppress():
                    os.killpg(p.pid, signal.SIGKILL)
                p.wait(5)


class _suppress:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> bool:
        return exc[0] is not None and issubclass(exc[0], ProcessLookupError | OSError)


# --------------------------------------------------------------------------- measuring


@dataclass
class Round:
    size: int
    kind: str
    wall_s: float
    ok: int
    stored: int
    cpu_s: float
    chunks: int
    db_active_s: float
    store_s: float
    ssh_s: float
    rss_mb: float
    main_cpu_s: float = 0.0

    @property
    def cpu_ms_per_node(self) -> float:
        return self.cpu_s * 1000 / self.size


def _db_active_s() -> float:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT pg_stat_clear_snapshot()")
        cur.execute("SELECT active_time FROM pg_stat_database WHERE datname = current_database()")
        (ms,) = cur.fetchone()
    return float(ms or 0) / 1000


def _task_figures(multiproc_dir: str) -> dict[str, float]:
    from prometheus_client import CollectorRegistry, multiprocess

    reg = CollectorRegistry()
    multiprocess.MultiProcessCollector(reg, path=multiproc_dir)
    out: dict[str, float] = {"chunks": 0, "ticks": 0, "store_s": 0, "ssh_s": 0}
    for family in reg.collect():
        for s in family.samples:
            if s.name == "fleet_task_runs_total" and s.labels.get("task") == "telemetry.poll_chunk":
                out["chunks"] += s.value
            elif s.name == "fleet_task_runs_total" and s.labels.get("task") == "telemetry.poll_fleet":
                out["ticks"] += s.value
            elif s.name == "fleet_poll_phase_seconds_sum":
                out[f"{s.labels['phase']}_s"] += s.value
    return out


def _wait_stored(ids: list[int], since: Any, timeout: float) -> tuple[float, int, int, float]:
    """Seconds until every Spark's NodeState shows a poll at/after ``since``; (wall, stored, ok,
    seconds the bench's own watching queries took, to take out of the database's active time).
    Only the fleet's Sparks are active (``activate``), so the watch needs no list of ids."""
    from telemetry.models import NodeState

    active = NodeState.objects.filter(spark__status="active")
    start = time.perf_counter()
    stored = ok = 0
    own = 0.0
    while time.perf_counter() - start < timeout:
        t = time.perf_counter()
        stored = active.filter(last_poll_at__gte=since).count()
        own += time.perf_counter() - t
        if stored >= len(ids):
            wall = time.perf_counter() - start
            t = time.perf_counter()
            ok = active.filter(last_sample_at__gte=since).count()
            return wall, stored, ok, own + time.perf_counter() - t
        time.sleep(0.25)
    ok = active.filter(last_sample_at__gte=since).count()
    return time.perf_counter() - start, stored, ok, own


def one_round(size: int, kind: str, ids: list[int], workers: Workers, multiproc_dir: str, timeout: float) -> Round:
    from django.utils import timezone

    from telemetry import tasks

    before_tasks = _task_figures(multiproc_dir)
    cpu0, main0, db0 = workers.cpu_s(), workers.main_cpu_s(), _db_active_s()
    since = timezone.now()
    tasks.poll_fleet.apply_async()  # what beat sends at each tick
    wall, stored, ok, watching = _wait_stored(ids, since, timeout)
    time.sleep(0.3)  # let the last task's bookkeeping (metrics files) land
    after_tasks = _task_figures(multiproc_dir)
    return Round(
        size=size, kind=kind, wall_s=wall, ok=ok, stored=stored, cpu_s=workers.cpu_s() - cpu0,
        chunks=int(after_tasks["chunks"] - before_tasks["chunks"]),
        db_active_s=max(0.0, _db_active_s() - db0 - watching),
        store_s=after_tasks["store_s"] - before_tasks["store_s"], ssh_s=after_tasks["ssh_s"] - before_tasks["ssh_s"],
        rss_mb=workers.rss_mb(), main_cpu_s=workers.main_cpu_s() - main0,
    )  # fmt: skip


async def floor_warm(
    endpoints: list[tuple[str, str, int, str]], key_path: str, concurrency: int, passes: int = 2, barrier: Any = None
) -> tuple[list[tuple[float, float]], tuple[float, float]]:
    """The bare asyncssh loop over the same Sparks, connections kept: [(wall s, CPU s)] of each warm
    pass, then (wall s, CPU s) of the pass that opened the connections (a key exchange each, then
    the same exec). ``barrier``: waited on before every pass, so that several processes run each
    pass at the same time (``floor_shards``)."""
    import asyncssh
    from poll_fleet import Floor

    from telemetry.poller import Target

    targets = [Target(name, host, port, "fleet") for name, host, port, _ in endpoints]
    floor = Floor(
        asyncssh.read_private_key(key_path),
        {name: asyncssh.import_known_hosts(f"* {key}\n") for name, _, _, key in endpoints},
        concurrency,
    )
    conns: dict[str, asyncssh.SSHClientConnection] = {}
    if barrier is not None:
        await asyncio.to_thread(barrier.wait)
    wall, cpu = time.perf_counter(), time.process_time()
    await floor.run(targets, conns)  # open
    opened = (time.perf_counter() - wall, time.process_time() - cpu)
    figures = []
    for _ in range(passes):
        if barrier is not None:
            await asyncio.to_thread(barrier.wait)
        wall, cpu = time.perf_counter(), time.process_time()
        await floor.run(targets, conns)
        figures.append((time.perf_counter() - wall, time.process_time() - cpu))
    for conn in conns.values():
        conn.close()
    await asyncio.sleep(0.5)
    return figures, opened


def _floor_proc(endpoints: list[tuple[str, str, int, str]], key_path: str, concurrency: int, passes: int,
                barrier: Any, pipe: Any) -> None:  # fmt: skip
    _raise_nofile()
    pipe.send(asyncio.run(floor_warm(endpoints, key_path, concurrency, passes, barrier)))


def shard_slices(endpoints: list[Any], shards: int, chunk: int) -> list[list[Any]]:
    """The Sparks each poll shard holds: chunk i of the fleet goes to shard i % shards (``tasks.poll_fleet``)."""
    out: list[list[Any]] = [[] for _ in range(max(shards, 1))]
    for index, start in enumerate(range(0, len(endpoints), chunk)):
        out[index % len(out)].extend(endpoints[start : start + chunk])
    return out


def floor_shards(
    endpoints: list[tuple[str, str, int, str]], key_path: str, concurrency: int, shards: int, chunk: int,
    passes: int = 3,
) -> tuple[float, float, float, float]:  # fmt: skip
    """The floor in the workers' shape: one process per poll shard, each holding the Sparks its worker
    holds (``shard_slices``) with the workers' SSH concurrency, every pass run by all of them at once.
    (wall s, CPU s) of the median warm pass (CPU summed over the processes, wall the slowest), then of
    the opening pass."""
    ctx = multiprocessing.get_context("spawn")
    slices = [part for part in shard_slices(endpoints, shards, chunk) if part]
    barrier = ctx.Barrier(len(slices))
    procs, pipes = [], []
    for part in slices:
        ours, theirs = ctx.Pipe()
        proc = ctx.Process(target=_floor_proc, args=(part, key_path, concurrency, passes, barrier, theirs))
        proc.start()
        procs.append(proc)
        pipes.append(ours)
    results = [pipe.recv() for pipe in pipes]
    for proc in procs:
        proc.join(60)
    warm = [(max(r[0][i][0] for r in results), sum(r[0][i][1] for r in results)) for i in range(passes)]
    wall, cpu = sorted(warm, key=lambda f: f[1])[len(warm) // 2]
    return wall, cpu, max(r[1][0] for r in results), sum(r[1][1] for r in results)


# --------------------------------------------------------------------------- set-up


def database_ensure(url: str) -> None:
    """Create the bench's PostgreSQL database when it does not exist yet (a fresh machine)."""
    from urllib.parse import urlsplit, urlunsplit

    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    server = urlunsplit((parts.scheme, parts.netloc, "/postgres", "", ""))  # libpq takes postgres:// too
    with psycopg.connect(server, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            print(f"created the database {name}")


def setup_django(args: argparse.Namespace, var: Path, multiproc_dir: str) -> dict[str, str]:
    if args.database.startswith(("postgres://", "postgresql://")):
        database_ensure(args.database)
    env = dict(os.environ)
    env.update(
        DATABASE_URL=args.database,
        CELERY_BROKER_URL=args.broker,
        FLEET_VAR_DIR=str(var),
        FLEET_SSH_KEY=str(var / "fleet_ssh_key"),
        FLEET_POLL_INTERVAL_S=str(args.interval),
        FLEET_POLL_CHUNK=str(args.chunk),
        FLEET_SSH_CONCURRENCY=str(args.ssh_concurrency),
        PROMETHEUS_MULTIPROC_DIR=multiproc_dir,
        FLEET_POLL_SHARDS=str(args.shards),
        DB_CONN_MAX_AGE="600",
        DJANGO_SETTINGS_MODULE="fleet.settings",
    )
    if not env.get("SECRET_KEY"):
        env["SECRET_KEY"] = secrets.token_urlsafe(50)
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return env


def register(count: int, endpoints: list[tuple[str, str, int, str]]) -> list[int]:
    """The Sparks in the inventory, their current ports, their host keys accepted.

    The first pair goes through the product's lab import; the other pairs are
    bulk copies of its rows (Spark, ports, twins, cable), because importing
    10,000 Sparks one by one takes tens of minutes on a busy machine and is not
    what is measured here. Host keys are written as accepted in bulk for the
    same reason (the simulator knows its own keys).
    """
    from django.db import transaction
    from django.utils import timezone

    from inventory.models import Cable, CableEnd, Port, Spark, Twin
    from simfleet.management.commands.simulate import register as lab_register
    from simfleet.simulator import make_nodes
    from telemetry.models import NodeState

    nodes = make_nodes(count)
    by_name = {name: (port, key) for name, _, port, key in endpoints}
    existing = set(Spark.objects.filter(name__in=[n.name for n in nodes]).values_list("name", flat=True))
    if len(existing) != count:
        t = time.perf_counter()
        first, second = nodes[0], nodes[1]
        if first.name not in existing:
            for node in (first, second):  # where it really listens (a node that is not serving says port 0)
                node.port = by_name[node.name][0]
            lab_register([first, second])
            existing |= {first.name, second.name}
        tpl_a, tpl_b = Spark.objects.get(name=first.name), Spark.objects.get(name=second.name)
        tpl_ports = {sp.pk: list(Port.objects.filter(spark=sp).prefetch_related("twins")) for sp in (tpl_a, tpl_b)}
        tpl_cable = Cable.objects.get(ends__port__spark=tpl_a, ends__port__name="p0")
        todo = [(nodes[i], nodes[i + 1]) for i in range(0, count - 1, 2) if nodes[i].name not in existing]
        with transaction.atomic():
            sparks = []
            for a, b in todo:
                for node, tpl in ((a, tpl_a), (b, tpl_b)):
                    sparks.append(
                        Spark(name=node.name, hardware_id=tpl.hardware_id, ssh_host="127.0.0.1", ssh_port=22,
                              ssh_user=tpl.ssh_user, status=tpl.status)
                    )  # fmt: skip
            Spark.objects.bulk_create(sparks, batch_size=2000)
            made = {sp.name: sp for sp in Spark.objects.filter(name__in=[sp.name for sp in sparks])}
            ports, twins_of = [], []
            for a, b in todo:
                for node, tpl in ((a, tpl_a), (b, tpl_b)):
                    for tp in tpl_ports[tpl.pk]:
                        port = Port(spark=made[node.name], name=tp.name, number=tp.number, speed_gbps=tp.speed_gbps,
                                    breakout=tp.breakout)  # fmt: skip
                        ports.append(port)
                        twins_of.append((port, list(tp.twins.all())))
            Port.objects.bulk_create(ports, batch_size=2000)
            Twin.objects.bulk_create(
                [
                    Twin(port=port, name=t.name, rdma=t.rdma, pcie_domain=t.pcie_domain)
                    for port, ts in twins_of
                    for t in ts
                ],
                batch_size=4000,
            )  # fmt: skip
            p0 = {p.spark.name: p for p in ports if p.name == "p0" and p.spark is not None}
            cables = [
                Cable(type_id=tpl_cable.type_id, length_m=tpl_cable.length_m, coded_for=tpl_cable.coded_for)
                for _ in todo
            ]
            Cable.objects.bulk_create(cables, batch_size=2000)
            CableEnd.objects.bulk_create(
                [CableEnd(cable=c, position=pos, port=p0[n.name]) for c, (a, b) in zip(cables, todo, strict=True)
                 for pos, n in ((0, a), (1, b))],
                batch_size=4000,
            )  # fmt: skip
        took = time.perf_counter() - t
        print(f"  registered {2 * len(todo)} Sparks (bulk copies of one imported pair) in {took:.1f} s")
    sparks_list = list(Spark.objects.filter(name__in=list(by_name)))
    for spark in sparks_list:
        spark.ssh_port = by_name[spark.name][0]
        spark.ssh_host = "127.0.0.1"
    with transaction.atomic():
        Spark.objects.bulk_update(sparks_list, ["ssh_port", "ssh_host"], batch_size=2000)
        accepted = dict(NodeState.objects.filter(spark__in=sparks_list).values_list("spark_id", "host_key"))
        now = timezone.now()
        states = [
            NodeState(spark=sp, host_key=by_name[sp.name][1], key_status=NodeState.KeyStatus.OK,
                      host_key_accepted_at=now, host_key_accepted_by="bench")
            for sp in sparks_list
            if accepted.get(sp.pk) != by_name[sp.name][1]
        ]  # fmt: skip
        NodeState.objects.filter(spark__in=[st.spark for st in states]).delete()
        NodeState.objects.bulk_create(states, batch_size=2000)
        # A key accepted before but left in question by an earlier run (a Spark polled while
        # nobody served its port, so another simulated Spark answered there) is accepted again.
        NodeState.objects.filter(spark__in=sparks_list).exclude(key_status=NodeState.KeyStatus.OK).update(
            key_status=NodeState.KeyStatus.OK, presented_key=""
        )
    if states:
        print(f"  accepted {len(states)} host keys")
    order = {n.name: i for i, n in enumerate(nodes)}
    return [s.pk for s in sorted(sparks_list, key=lambda s: order[s.name])]


def activate(all_ids: list[int], size: int) -> list[int]:
    from inventory.models import Spark

    ids = all_ids[:size]
    Spark.objects.filter(pk__in=ids).update(status=Spark.Status.ACTIVE)
    # Every other Spark of the database too: an earlier run may have registered a larger fleet,
    # whose Sparks nobody serves now (they would be polled, and fail, in every round).
    Spark.objects.exclude(pk__in=ids).update(status=Spark.Status.MAINTENANCE)
    return ids


def wait_ready(workers: Workers, count: int) -> None:
    from fleet.celery import app

    deadline = time.time() + 90
    while time.time() < deadline:
        if len(app.control.ping(timeout=1.0) or []) >= count:
            return
    raise SystemExit("the workers did not answer within 90 s (see var/bench/worker*.log)")


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,2500,5000,10000")
    parser.add_argument("--workers", type=int, default=1, help="worker instances (celery worker processes)")
    parser.add_argument("--concurrency", type=int, default=2, help="prefork children per worker (one per core)")
    parser.add_argument(
        "--shards", type=int, default=0,
        help="FLEET_POLL_SHARDS: N single-process workers, each owning its chunks (instead of --workers/--concurrency)",
    )  # fmt: skip
    parser.add_argument("--sim-procs", type=int, default=4, help="processes serving the simulated fleet")
    parser.add_argument("--warm-rounds", type=int, default=2)
    parser.add_argument("--interval", type=int, default=60, help="FLEET_POLL_INTERVAL_S")
    parser.add_argument("--chunk", type=int, default=250, help="FLEET_POLL_CHUNK")
    parser.add_argument("--ssh-concurrency", type=int, default=128, help="FLEET_SSH_CONCURRENCY")
    parser.add_argument("--database", default=DEFAULT_DB)
    parser.add_argument("--broker", default=DEFAULT_BROKER)
    parser.add_argument("--skip-floor", action="store_true")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    biggest = sizes[-1]
    _raise_nofile()

    var = ROOT / "var" / "bench"
    var.mkdir(parents=True, exist_ok=True)
    multiproc_dir = tempfile.mkdtemp(prefix="fleet-metrics-")
    env = setup_django(args, var, multiproc_dir)

    import asyncssh

    from simfleet.simulator import make_nodes
    from telemetry.keys import client_key_ensure

    public = client_key_ensure(var / "fleet_ssh_key")
    names = [n.name for n in make_nodes(biggest)]
    per = math.ceil(len(names) / args.sim_procs / 2) * 2  # keep cabled pairs in one process
    ctx = multiprocessing.get_context("spawn")
    sims = []
    t = time.perf_counter()
    for i in range(0, len(names), per):
        ours, theirs = ctx.Pipe()
        proc = ctx.Process(
            target=_serve, args=(names[i : i + per], biggest, public, str(var / "host-keys"), theirs), daemon=True
        )
        proc.start()
        sims.append((proc, ours))
    endpoints: list[tuple[str, str, int, str]] = []
    workers: Workers | None = None
    rounds: list[Round] = []
    floors: dict[int, tuple[float, float, float, float]] = {}
    try:
        for _, pipe in sims:
            if not pipe.poll(600):
                raise SystemExit("a simulator process did not start within 600 s")
            endpoints.extend(pipe.recv())
        print(f"simulated fleet: {len(endpoints)} Sparks in {len(sims)} processes, {time.perf_counter() - t:.1f} s")
        all_ids = register(biggest, endpoints)
        order = {name: i for i, name in enumerate(names)}
        endpoints.sort(key=lambda e: order[e[0]])
        load = os.getloadavg()
        from django.utils import timezone

        began = timezone.now()
        for size in sizes:
            ids = activate(all_ids, size)
            queues = queues_for(args)
            every_queue = ",".join(sorted(set(",".join(queues).split(","))))
            subprocess.run(  # noqa: S603
                [sys.executable, "-m", "celery", "-A", "fleet", "purge", "-f", "-Q", every_queue],
                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
            )  # fmt: skip
            workers = Workers(queues, 1 if args.shards else args.concurrency, env)
            wait_ready(workers, len(queues))
            timeout = 3 * args.interval + size / 50
            for kind in ["cold"] + ["warm"] * args.warm_rounds:
                r = one_round(size, kind, ids, workers, multiproc_dir, timeout)
                rounds.append(r)
                print(
                    f"  {size:>6} {kind}: {r.wall_s:6.1f} s, ok {r.ok}/{size},"
                    f" worker CPU {r.cpu_ms_per_node:.2f} ms/node"
                    f" (main processes {r.main_cpu_s * 1000 / r.size:.2f}),"
                    f" chunks {r.chunks}, db active {r.db_active_s:.1f} s, store {r.store_s:.1f} s,"
                    f" ssh {r.ssh_s:.1f} s, worker RSS {r.rss_mb:.0f} MB",
                    flush=True,
                )
            workers.stop()
            workers = None
            if not args.skip_floor:
                floors[size] = floor_shards(
                    endpoints[:size], str(var / "fleet_ssh_key"), args.ssh_concurrency, floor_processes(args),
                    args.chunk,
                )  # fmt: skip
                print(
                    f"  {size:>6} floor warm: {floors[size][0]:.1f} s, {floors[size][1] * 1000 / size:.2f} ms/node;"
                    f" opening: {floors[size][2]:.1f} s, {floors[size][3] * 1000 / size:.2f} ms/node",
                    flush=True,
                )
        load_after = os.getloadavg()
    finally:
        if workers is not None:
            workers.stop()
        for _proc, pipe in sims:
            with _suppress():
                pipe.send("stop")
        for proc, _ in sims:
            proc.join(30)
            if proc.is_alive():
                proc.terminate()
        shutil.rmtree(multiproc_dir, ignore_errors=True)

    report(args, rounds, floors, load, load_after, asyncssh.__version__)
    stored_weight(began)


def stored_weight(since: Any) -> None:
    """What the polls this run stored weigh: their row data (``pg_column_size``, without
    indexes and page overhead: ``bench/retention.py`` weighs whole partitions) and their
    twin sets, and a Spark's day of such rows at one poll every 30 s."""
    from django.db import connection

    from telemetry.models import NodeSample, TwinSet

    with connection.cursor() as cur:
        cur.execute(
            f"SELECT count(*), coalesce(avg(pg_column_size(s.*)), 0), count(DISTINCT s.twin_set_id) "  # noqa: S608
            f"FROM {NodeSample._meta.db_table} s WHERE s.at >= %s",
            [since],
        )
        rows, per_row, sets = cur.fetchone()
        cur.execute(f"SELECT coalesce(avg(pg_column_size(t.*)), 0) FROM {TwinSet._meta.db_table} t")  # noqa: S608
        (per_set,) = cur.fetchone()
    print(
        f"polls stored in this run: {rows:,} rows of {float(per_row):.0f} bytes of row data on average "
        f"({float(per_row) * 2880 / 1e6:.2f} MB per Spark per day at one poll every 30 s, before indexes), "
        f"pointing at {sets:,} twin sets of {float(per_set):.0f} bytes"
    )


def report(
    args: argparse.Namespace, rounds: list[Round], floors: dict[int, tuple[float, float, float, float]],
    load: tuple[float, ...], load_after: tuple[float, ...], asyncssh_version: str,
) -> None:  # fmt: skip
    print()
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs, "
        f"asyncssh {asyncssh_version}"
    )
    layout = (
        f"{args.shards} single-process workers, one poll shard each (FLEET_POLL_SHARDS={args.shards})"
        if args.shards
        else f"{args.workers} worker x {args.concurrency} prefork processes on one queue"
    )
    print(
        f"broker {args.broker.split('://')[0]}, PostgreSQL; {layout}, chunk {args.chunk}, "
        f"SSH concurrency {args.ssh_concurrency} per process, interval "
        f"{args.interval} s, simulated fleet in {args.sim_procs} processes on the same machine"
    )
    print(f"load average before {load[0]:.1f}, after {load_after[0]:.1f} (1 min)")
    head = (
        f"{'Sparks':>7} {'round':<6}{'tick->stored s':>15}{'nodes/s':>9}{'ok':>7}{'worker CPU ms/node':>19}"
        f"{'msgs':>6}{'DB active s':>12}{'DB ms/Spark':>12}{'store s':>9}{'RSS MB':>8}"
    )
    print(head)
    for r in rounds:
        print(
            f"{r.size:>7} {r.kind:<6}{r.wall_s:>15.1f}{r.size / r.wall_s:>9.0f}{r.ok:>7}{r.cpu_ms_per_node:>19.2f}"
            f"{r.chunks + 1:>6}{r.db_active_s:>12.1f}{r.db_active_s * 1000 / r.size:>12.2f}{r.store_s:>9.1f}"
            f"{r.rss_mb:>8.0f}"
        )
    print(
        "baseline (bare asyncssh loop, warm, one process per poll shard holding its Sparks, all at once; median of"
        " three passes; opening = the pass that connects):"
    )
    for size, (wall, cpu, open_wall, open_cpu) in floors.items():
        warm = [r for r in rounds if r.size == size and r.kind == "warm"]
        if not warm:
            continue
        # The last warm round is the steady state; the first after a start still fills
        # the per-Spark memories (parse, verdicts, packed twins) and is shown beside it.
        median = statistics.median(r.cpu_ms_per_node for r in warm) / (cpu * 1000 / size)
        ratio = warm[-1].cpu_ms_per_node / (cpu * 1000 / size)
        print(
            f"{size:>7} floor {wall:>15.1f}{size / wall:>9.0f}{'':>7}{cpu * 1000 / size:>19.2f}"
            f"   product warm / floor: CPU per node {ratio:.2f}x in the last warm round"
            f" (goal 1.5x: {'met' if ratio <= 1.5 else 'NOT met'}), {median:.2f}x over all warm rounds"
        )
        print(
            f"{size:>7} open  {open_wall:>15.1f}{size / open_wall:>9.0f}{'':>7}{open_cpu * 1000 / size:>19.2f}"
            f"   a key exchange costs the client {(open_cpu - cpu) * 1000 / size:.2f} ms of CPU"
        )
    for r in rounds:
        if r.kind == "cold":
            fits = r.wall_s <= args.interval and r.ok == r.size
            print(
                f"first round at {r.size:,}: {r.wall_s:.1f} s, {r.ok:,} polled "
                f"(within the {args.interval} s interval: {'met' if fits else 'NOT met'})"
            )
    last = {r.size: r for r in rounds if r.kind == "warm"}
    worst_db = max((r.db_active_s * 1000 / r.size for r in last.values()), default=0.0)
    worst_any = max((r.db_active_s * 1000 / r.size for r in rounds if r.kind == "warm"), default=0.0)
    print(
        f"PostgreSQL active per Spark, last warm round of each size, worst: {worst_db:.2f} ms "
        f"(goal 0.3 ms: {'met' if worst_db <= 0.3 else 'NOT met'}); any warm round: {worst_any:.2f} ms"
    )
    warm = [r for r in rounds if r.kind == "warm"]
    if warm:
        biggest = max(r.size for r in warm)
        per_node = statistics.median(r.cpu_ms_per_node for r in warm if r.size == biggest) / 1000
        capacity = int(2 * 60 / per_node)
        within = [r.size for r in warm if r.wall_s <= 60]
        print(
            f"one 2-core worker box, 60 s interval: {capacity:,} Sparks at full use of both cores "
            f"(2 x 60 s / {per_node * 1000:.2f} ms worker CPU per node at {biggest:,}); "
            f"largest size stored within 60 s in this run: {max(within) if within else 'none'}"
        )
        goal = [r for r in warm if r.size >= 10_000]
        if goal:
            last = goal[-1]
            met = last.wall_s <= 60 and last.ok == last.size
            first_ok = next((i for i, r in enumerate(goal) if r.wall_s <= 60 and r.ok == r.size), None)
            print(
                f"goal 10,000 Sparks every 60 s, steady state (last warm round): {'met' if met else 'NOT met'}"
                f" ({last.wall_s:.1f} s, {last.ok:,} polled)"
                + (f"; first round within 60 s: warm round {first_ok + 1}" if first_ok is not None else "")
            )


if __name__ == "__main__":
    main()
