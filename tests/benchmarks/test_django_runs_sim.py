"""A benchmark run against the simulated fleet: the head node of a group is a
fake Spark (simfleet.simulator) that answers placement's fixed benchmark
command with `vllm bench serve` output; the run goes through the API, the
Celery task, SSH with the host key telemetry accepted, and the parser."""

from __future__ import annotations

import pytest

from benchmarks.models import BenchmarkRun
from inventory.models import NodeGroup
from simfleet.simulator import SimNode
from tests.benchmarks.test_django_runs import start, tasks_inline  # noqa: F401 - fixture
from tests.telemetry import django_sim
from tests.telemetry.django_sim import sim_lab

fleet_key = django_sim.fleet_key
pytestmark = pytest.mark.django_db


def test_a_run_on_the_simulated_fleet_is_measured_and_stored(api_admin, fleet_key, tmp_path, settings, tasks_inline):  # noqa: F811
    nodes = [
        SimNode("bench-a", cabled_ports={"p0": ("bench-b", "p0")}),
        SimNode("bench-b", cabled_ports={"p0": ("bench-a", "p0")}),
    ]
    with sim_lab(nodes, fleet_key, tmp_path, settings) as fleet:
        group = NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name="bench-a")
        response = start(api_admin, group, concurrency=4, input_len=128, output_len=128, num_prompts=8)
        assert response.status_code == 202, response.content
        assert fleet.stats("bench-a").execs == 1  # the head node (first by name) ran it
        assert fleet.stats("bench-b").execs == 0
    run = BenchmarkRun.objects.get(pk=response.json()["id"])
    assert run.status == "done", run.error
    assert run.engine_version == "0.11.1" and run.concurrency == 4 and run.nodes == ["bench-a", "bench-b"]
    # the simulated head's server answered the run's questions as vLLM does
    assert run.engine == "vllm" and "named itself 'vllm' (GET /v1/models); the version is its own" in run.notes
    assert run.notes.endswith(
        "its layout is assumed to be the whole group's (tp 2 on 2 Sparks): vLLM does not report its own"
    )
    assert 150 < run.decode_tps < 260 and 15 < run.tpot_ms < 25  # aggregate of 4 streams near 55 tok/s each
    assert run.topology_kind == "direct" and run.source == "measured"


@pytest.mark.parametrize(
    ("head", "why", "said"),
    [
        (
            SimNode("bench-a", faults={"no-docker"}, cabled_ports={"p0": ("bench-b", "p0")}),
            "the benchmark client could not start: neither vllm nor docker is on the fleet user's PATH on bench-a; "
            "install vLLM there, or Docker with the launch image nvcr.io/nvidia/vllm:26.05-py3",
            "exited with status 127: sh: 1: docker: not found",
        ),
        (
            SimNode("bench-a", software={"image_digest": "absent"}, cabled_ports={"p0": ("bench-b", "p0")}),
            "the benchmark client could not start: the launch image nvcr.io/nvidia/vllm:26.05-py3 is not on "
            "bench-a, and a run never pulls it; run `docker pull nvcr.io/nvidia/vllm:26.05-py3` there (or install "
            "vLLM on bench-a itself)",
            "exited with status 125: docker: Error response from daemon: No such image: "
            "nvcr.io/nvidia/vllm:26.05-py3.\nSee 'docker run --help'.",
        ),
        (
            SimNode("bench-a", faults={"docker-denied"}, cabled_ports={"p0": ("bench-b", "p0")}),
            "the benchmark client could not start: the fleet's SSH user may not use Docker on bench-a; add it to "
            "the docker group there (or install vLLM on bench-a itself)",
            "exited with status 126: docker: permission denied while trying to connect",
        ),
        (
            SimNode("bench-a", faults={"docker-down"}, cabled_ports={"p0": ("bench-b", "p0")}),
            "the benchmark client could not start: Docker's daemon does not answer on bench-a; start it there "
            "(or install vLLM on bench-a itself)",
            "exited with status 125: docker: Cannot connect to the Docker daemon",
        ),
    ],
    ids=["no-docker", "no-image", "docker-denied", "docker-down"],
)
def test_a_head_node_that_cannot_start_the_client_fails_the_run_saying_why(
    api_admin,
    fleet_key,
    tmp_path,
    settings,
    tasks_inline,  # noqa: F811
    head,
    why,
    said,  # noqa: F811
):
    """A head node with neither its own vLLM nor a usable Docker with the
    launch image: the shell or Docker refuses at once, and the run fails
    saying what to install or pull, with their own words after it. The same
    head with vLLM on its PATH measures (the last case)."""
    settings.FLEET_VLLM_IMAGE = "nvcr.io/nvidia/vllm:26.05-py3"
    nodes = [head, SimNode("bench-b", cabled_ports={"p0": ("bench-a", "p0")})]
    with sim_lab(nodes, fleet_key, tmp_path, settings) as fleet:
        group = NodeGroup.objects.get(auto=True, retired_at__isnull=True, members__spark__name="bench-a")
        failed = start(api_admin, group, concurrency=1, input_len=64, output_len=32, num_prompts=2)
        assert failed.status_code == 202, failed.content
        fleet.set_software("bench-a", {**head.software, "vllm": "/home/fleet/.local/bin/vllm"})
        measured = start(api_admin, group, concurrency=1, input_len=64, output_len=32, num_prompts=2)
    run = BenchmarkRun.objects.get(pk=failed.json()["id"])
    assert run.status == "failed" and run.decode_tps is None
    assert run.error.startswith(f"{why} ({said}")
    assert run.error.endswith(")")
    assert BenchmarkRun.objects.get(pk=measured.json()["id"]).status == "done"
