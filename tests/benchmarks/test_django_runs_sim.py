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
    assert 150 < run.decode_tps < 260 and 15 < run.tpot_ms < 25  # aggregate of 4 streams near 55 tok/s each
    assert run.topology_kind == "direct" and run.source == "measured"
