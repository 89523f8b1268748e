"""Time Prometheus's two service-discovery lists on labs of 1,024 Sparks and more, with their query counts.

Each lab is the mix bench/topology_page.py builds, per 1,024 Sparks: 80
switched groups of 8 on CRS804s with breakout cables, 70 rings of 4, 50
direct pairs, 4 lone Sparks (every fifth Spark 64 GB), imported through the
product's lab import into a fresh SQLite database in a temporary directory.
Servings are made through the ORM, one per 8 Sparks, on the largest groups
first (a group of 8: TP4 x 2 copies behind a router; of 4: TP4 on 4 nodes;
of 2: two one-node copies behind a router), each with its nodes, its ports
and steps of the size a real start leaves (scripts as serving writes them,
the engine's last log lines); and as many stopped servings before them.

Both lists are fetched through Django's test client as Prometheus asks
(no session, ``Authorization: Bearer`` with the metrics token set): the
time is the server's, no network. Query counts are taken first on the
17-Spark demo lab, then at each size: they must not grow. The baselines,
measured in the same run at each size, are the least each list must do:
one read of the same rows as plain values and ``json.dumps`` of as many
entries of the same shape; and the refused answer (no token), which is the
request's own cost.

    .venv/bin/python bench/discovery.py [--repeats N] [--sizes 1024,5120]
"""

from __future__ import annotations

import json
import logging
import os
import platform
import secrets
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from common import django_client, import_mixed_lab, lab_sizes_args, median_seconds  # noqa: E402 - bench/ is the script's own folder

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SPARKS_URL = "/metrics/spark-targets?port=9100"
SERVINGS_URL = "/metrics/serving-targets"
BASE_PORT = 8000  # FLEET_SERVE_PORT's default: engines, then the router and its metrics, on a node
MODELS = ("llama-3.3-70b", "qwen3-32b", "gpt-oss-120b", "llama-3.1-8b", "qwen3-235b-a22b", "gpt-oss-20b")


def filler(size: int, line: str) -> str:
    """``size`` characters of text in lines like ``line``: what a step's script or output weighs."""
    return ((line + "\n") * (size // (len(line) + 1) + 1))[:size]


# What a real start leaves in a serving's steps, per step: (script, output) characters. The scripts
# are the sizes serving writes (tests/serving/test_sim.py's plans, measured); the outputs: Docker's
# word that the image is there, hf download's last 20 lines, the container id, and the engine's last
# 30 log lines while it loaded (ENGINE_LOG_LINES), which its wait step keeps.
NODE_STEPS = (("image", 391, 177), ("weights", 1365, 1600), ("engine", 1000, 65))
WAIT_STEP = ("wait for the engine", 0, 3900)
ROUTER_STEPS = (("router", 353, 17), ("wait for the router", 0, 36))


def steps_for(instances: list[list[str]], router: bool) -> list[dict[str, str]]:
    def step(node: str, label: str, script: int, output: int) -> dict[str, str]:
        return {
            "node": node,
            "label": label,
            "script": filler(script, "docker run -d --name spark-fleet-serving --gpus all vllm serve"),
            "status": "done",
            "output": filler(output, "INFO 12-06 10:00:00 [loader.py:123] Loading weights took 41.20 seconds"),
        }

    nodes = [n for names in instances for n in names]
    steps = [step(n, label, s, o) for label, s, o in NODE_STEPS for n in nodes]
    steps += [step(names[0], *WAIT_STEP) for names in instances]
    steps += [step(nodes[0], *s) for s in ROUTER_STEPS] if router else []
    return steps


def shape(names: list[str]) -> tuple[str, list[list[str]]]:
    """The plan a group of these Sparks serves: its label and instances."""
    n = len(names)
    if n >= 8:
        copies = n // 4
        return f"TP4 x {copies} copies on {4 * copies} nodes", [names[4 * i : 4 * i + 4] for i in range(copies)]
    if n >= 4:
        return "TP4 on 4 nodes", [names[:4]]
    if n >= 2:
        return "2 one-node copies", [[names[0]], [names[1]]]
    return "1 node", [names[:1]]


def make_servings(count: int) -> tuple[int, int]:
    """``count`` servings in the 'serving' status on the largest auto groups (and a stopped one
    before each, its rows no longer live), through the ORM; (servings, mean bytes of a serving's steps)."""
    from django.contrib.auth.models import User

    from inventory.models import NodeGroup, NodeGroupMember
    from placement.models import LlmModel
    from serving.models import Serving, ServingNode, ServingPort

    owner = User.objects.get(username="bench")
    models = list(LlmModel.objects.filter(slug__in=MODELS).order_by("slug"))
    members: dict[int, list[Any]] = {}
    for m in NodeGroupMember.objects.filter(group__auto=True, group__retired_at__isnull=True).select_related("spark"):
        members.setdefault(m.group_id, []).append(m.spark)
    groups = {g.pk: g for g in NodeGroup.objects.filter(pk__in=members)}
    chosen = sorted(members, key=lambda pk: (-len(members[pk]), groups[pk].name))[:count]
    taken: set[tuple[str, int]] = set()

    def take(host: str) -> int:
        """The first free port on ``host`` from BASE_PORT up, as serving hands them out."""
        port = BASE_PORT
        while (host, port) in taken:
            port += 1
        taken.add((host, port))
        return port

    steps_bytes = 0
    assert models, f"none of {MODELS} in the catalogue"
    for index, pk in enumerate(chosen):
        sparks = {s.name: s for s in members[pk]}
        label, instances = shape(sorted(sparks))
        used = [n for names in instances for n in names]
        first = sparks[used[0]]
        engines = [(sparks[names[0]], "engine") for names in instances]
        router = [(first, "router"), (first, "metrics")] if len(instances) > 1 else []
        ports = [(s, take(s.ssh_host), kind) for s, kind in engines + router]
        for status, live in ((Serving.Status.STOPPED, False), (Serving.Status.SERVING, True)):
            model = models[(2 * index + live) % len(models)]
            steps = steps_for(instances, bool(router))
            steps_bytes += len(json.dumps(steps)) if live else 0
            serving = Serving.objects.create(
                model=model,
                quantization=model.quantization,
                group=groups[pk],
                group_name=groups[pk].name,
                plan={
                    "label": label,
                    "nodes": used,
                    "instances": instances,
                    "ports": [port for _, port, kind in ports if kind == "engine"],
                    "router_port": ports[-2][1] if router else None,
                },
                launcher="vllm-container",
                owner=owner,
                owner_name=owner.username,
                status=status,
                steps=steps,
                endpoints=[
                    {"node": s.name, "url": f"http://{s.ssh_host}:{p}/v1"} for s, p, k in ports if k == "engine"
                ],
            )
            ServingNode.objects.bulk_create([ServingNode(serving=serving, spark=sparks[n], live=live) for n in used])
            ServingPort.objects.bulk_create(
                ServingPort(serving=serving, spark=s, host=s.ssh_host, port=port, kind=kind, live=live)
                for s, port, kind in ports
            )
    return len(chosen), steps_bytes // max(1, len(chosen))


def baselines() -> dict[str, Callable[[], object]]:
    """The least each list must do: read its rows as plain values and write as many entries as JSON."""
    from inventory.models import Spark
    from serving.models import ServingPort

    def sparks() -> str:
        rows = Spark.objects.filter(status=Spark.Status.ACTIVE).values_list("name", "ssh_host", "hardware__slug")
        return json.dumps(
            [{"targets": [f"{h}:9100"], "labels": {"node": n, "group": "", "hardware": w}} for n, h, w in rows]
        )

    def servings() -> str:
        # the live ports' own columns, no join: the labels' values stand in for the joined names
        rows = ServingPort.objects.filter(live=True, kind__in=["engine", "metrics"]).values_list(
            "host", "port", "kind", "spark_id", "serving_id"
        )
        return json.dumps(
            [
                {
                    "targets": [f"{h}:{p}"],
                    "labels": dict.fromkeys(("model", "quantization", "group", "plan"), str(s))
                    | {"serving": str(s), "node": str(n), "kind": k},
                }
                for h, p, k, n, s in rows
            ]
        )

    return {"spark-targets": sparks, "serving-targets": servings}


def main() -> None:
    args, counts = lab_sizes_args(__doc__.splitlines()[0])

    # The token as deploy sets it (the environment), so the lists are guarded as in a lab.
    token = "sfm_bench-" + secrets.token_hex(16)
    os.environ["FLEET_METRICS_TOKEN"] = token
    os.environ.pop("FLEET_METRICS_TOKEN_FILE", None)
    django_client("bench-discovery-", "member")  # Django on a fresh database; a user to own the servings

    import yaml
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from core.actor import Actor
    from inventory.labio import lab_import
    from inventory.models import Spark
    from serving.models import Serving

    prometheus = Client()  # no session: Prometheus sends the token and nothing else
    auth = {"Authorization": f"Bearer {token}"}
    urls = {"spark-targets": SPARKS_URL, "serving-targets": SERVINGS_URL}
    base = baselines()

    def scrape(url: str) -> Any:
        response = prometheus.get(url, headers=auth)
        assert response.status_code == 200, (url, response.status_code, response.content[:200])
        return response

    def measured(url: str) -> tuple[int, int, int]:
        """(queries, entries, bytes) of one scrape."""
        with CaptureQueriesContext(connection) as ctx:
            response = scrape(url)
        return len(ctx), len(json.loads(response.content)), len(response.content)

    logging.getLogger("django.request").setLevel(logging.ERROR)  # not a warning per refused request
    refused = prometheus.get(SPARKS_URL)
    assert refused.status_code == 401, refused.status_code  # the token guards it: the bench measures the guarded list

    demo = yaml.safe_load((ROOT / "labs" / "demo.yaml").read_text())
    lab_import(actor=Actor(source="import"), data=demo)
    make_servings(17 // 8)
    small = {name: measured(url)[0] for name, url in urls.items()}

    print(f"python {platform.python_version()} on {platform.machine()}, SQLite, {args.repeats} repeats, median")
    print(f"token: FLEET_METRICS_TOKEN set, sent as Authorization: Bearer (no token: {refused.status_code})")
    per_size: dict[int, dict[str, int]] = {}
    for count in counts:
        imported = import_mixed_lab(count, Serving)
        servings, steps_bytes = make_servings(count // 8)
        large = {name: measured(url) for name, url in urls.items()}
        per_size[count] = {name: q for name, (q, _, _) in large.items()}

        timed = {name: median_seconds(partial(scrape, url), args.repeats) for name, url in urls.items()}
        floor = {name: median_seconds(fn, args.repeats) for name, fn in base.items()}
        request = median_seconds(lambda: prometheus.get(SPARKS_URL), args.repeats)
        Serving.objects.filter(status=Serving.Status.SERVING).update(steps=[])
        no_steps = median_seconds(lambda: scrape(SERVINGS_URL), args.repeats)

        print()
        print(
            f"lab: {count} Sparks, {Spark.objects.filter(status=Spark.Status.ACTIVE).count()} active; "
            f"imported in {imported:.1f} s"
        )
        print(
            f"servings: {servings} serving (and {servings} stopped), steps {steps_bytes / 1024:.0f} KB each on average"
        )
        at = f"at {count:,}"
        print(
            f"{'list':22} {'server time':>12} {'baseline':>10} {'x baseline':>10} "
            f"{'queries at 17':>14} {at:>9} {'targets':>8} {'size':>8}"
        )
        for name in urls:
            _, entries, size = large[name]
            print(
                f"{name:22} {timed[name] * 1000:9.1f} ms {floor[name] * 1000:7.1f} ms "
                f"{timed[name] / floor[name]:9.2f}x {small[name]:>14} {large[name][0]:>9} {entries:>8,} "
                f"{size / 1024:5.0f} KB"
            )
        print(f"refused (no token):    {request * 1000:9.1f} ms  (the request's own cost)")
        print(
            f"serving-targets, its servings' steps emptied: {no_steps * 1000:.1f} ms "
            f"({no_steps / floor['serving-targets']:.2f}x baseline)"
        )
        met = "met" if max(timed.values()) < 1.0 else "MISSED"
        print(f"goal:  each list well under 1 s (Prometheus asks every 30 / 60 s, gives up at that): {met}")

    print()
    for name in urls:
        seen = [small[name]] + [per_size[c][name] for c in counts]
        sizes = ", ".join(f"{c:,}: {per_size[c][name]}" for c in counts)
        print(f"queries of {name}: at 17: {small[name]}, {sizes}: {'constant' if len(set(seen)) == 1 else 'GROW'}")


if __name__ == "__main__":
    main()
