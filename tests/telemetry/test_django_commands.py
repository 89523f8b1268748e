"""Management commands (poll, hostkeys, simulate), the fleet key on disk, the
demo scenario and the group-page hooks."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from inventory.models import Spark
from simfleet.management.commands.simulate import Command as Simulate
from simfleet.simulator import SimEndpoint, SimNode, load_scenario, make_nodes
from telemetry.keys import client_key_ensure, fingerprint
from telemetry.models import Alert, NodeState
from telemetry.poll_round import poll_and_store
from tests.telemetry import django_sim
from tests.telemetry.django_sim import ids, sim_lab

fleet_key = django_sim.fleet_key
LABS = Path(__file__).resolve().parents[2] / "labs"


@pytest.mark.django_db
def test_poll_once_prints_a_line_per_node_and_a_summary(fleet_key, tmp_path, settings, capsys):
    nodes = [SimNode("spark-a", faults={"memory-pressure"}), SimNode("spark-b", faults={"down"})]
    with sim_lab(nodes, fleet_key, tmp_path, settings):
        call_command("poll", "--once")
        call_command("poll", "--once", "--node", "spark-a")
    out = capsys.readouterr().out
    assert "polled 2 Sparks, stored 2 samples" in out and "1 degraded, 1 down" in out
    assert "polled 1 Sparks, stored 1 samples" in out
    line = next(x for x in out.splitlines() if x.startswith("spark-b"))
    assert "down" in line and "connection refused" in line
    with pytest.raises(CommandError, match="no Spark named 'nope'"):
        call_command("poll", "--once", "--node", "nope")


@pytest.mark.django_db
def test_hostkeys_list_and_accept_by_name(fleet_key, tmp_path, settings, capsys):
    with sim_lab([SimNode("spark-a")], fleet_key, tmp_path, settings, accept=False) as fleet:
        poll_and_store(spark_ids=ids("spark-a"))
        call_command("hostkeys", "list")
        assert fingerprint(fleet.current_key("spark-a")) in capsys.readouterr().out
        call_command("hostkeys", "accept", "spark-a")
        poll_and_store(spark_ids=ids("spark-a"))
    assert NodeState.objects.get().status == "ok" and not Alert.objects.filter(ended_at=None).exists()
    with pytest.raises(CommandError, match="not both"):
        call_command("hostkeys", "accept", "spark-a", "--all")


@pytest.mark.django_db
def test_accept_all_never_accepts_a_changed_key(fleet_key, tmp_path, settings, capsys):
    with sim_lab([SimNode("spark-a", faults={"host-key-changed"})], fleet_key, tmp_path, settings):
        poll_and_store(spark_ids=ids("spark-a"))
        call_command("hostkeys", "accept", "--all")
    assert "1 changed keys need 'hostkeys accept NAME'" in capsys.readouterr().out
    assert NodeState.objects.get().key_status == "mismatch"


def test_client_key_is_made_once_private_and_reused(tmp_path):
    path = tmp_path / "var" / "fleet_ssh_key"
    public = client_key_ensure(path)
    assert public.startswith("ssh-ed25519 ") and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.with_suffix(".pub").read_text().strip() == public
    assert client_key_ensure(path) == public


@pytest.mark.django_db
def test_simulate_trusts_only_sparks_pointing_at_its_loopback_ports(import_lab):
    import_lab("demo.yaml")
    Spark.objects.filter(name="spark-02").update(ssh_host="10.0.0.2")  # a real node with a simulated name
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOoGJ2Eqy5bz9jsXvnHL3d64i6Vp7B53N2m8lbqNPYpb"
    endpoints = [
        SimEndpoint("spark-01", "127.0.0.1", 22201, key),
        SimEndpoint("spark-02", "127.0.0.1", 22202, key),
        SimEndpoint("spark-03", "127.0.0.1", 29999, key),
    ]
    assert Simulate()._trust(endpoints) == ["spark-01"]
    assert NodeState.objects.get(spark__name="spark-01").host_key == key


def test_simulate_refuses_bad_arguments():
    with pytest.raises(CommandError, match="--nodes"):
        call_command("simulate", "--nodes", "0")
    with pytest.raises(CommandError, match="--scenario"):
        call_command("simulate", "--scenario", "/nonexistent.yaml")


def test_demo_scenario_matches_the_demo_lab():
    nodes = {n.name: n for n in load_scenario(LABS / "demo-scenario.yaml")}
    lab = yaml.safe_load((LABS / "demo.yaml").read_text())
    assert {s["name"]: s["ssh"]["port"] for s in lab["sparks"]} == {n: x.port for n, x in nodes.items()}
    for cable in lab["cables"]:
        ends = cable["ends"]
        legs = ends[1:] if len(ends) == 3 else ends
        for end in legs:
            name, port = end.split(":")
            peer = ends[0] if len(ends) == 3 else next(e for e in ends if e != end)
            assert nodes[name].cabled_ports[port] == tuple(peer.split(":")), end
    assert nodes["spark-17"].faults == {"down"} and nodes["spark-16"].memory_gb == 64


@pytest.mark.django_db
def test_open_alerts_become_group_findings_and_memory_is_reported(fleet_key, tmp_path, settings):
    from topology.live import spark_states
    from topology.observed import alert_findings
    from topology.services import GROUP_FINDING_PROVIDERS

    assert alert_findings in GROUP_FINDING_PROVIDERS
    with sim_lab([SimNode("spark-a", faults={"memory-pressure"})], fleet_key, tmp_path, settings):
        poll_and_store(spark_ids=ids("spark-a"))
    (finding,) = alert_findings(None, ["spark-a"])
    assert (finding.code, finding.severity, finding.objects) == ("memory-pressure", "error", ("spark-a",))
    states = spark_states(["spark-a", "spark-zz"])  # the one state: measured usable memory
    assert set(states) == {"spark-a"} and states["spark-a"].usable_source == "measured"
    assert 0 < states["spark-a"].usable_gb < 0.1 * 130.7  # under memory pressure (PSI stalls, little left)


@pytest.mark.django_db
def test_simulate_register_puts_the_simulated_pairs_in_the_inventory():
    from inventory.models import Cable, NodeGroup
    from simfleet.management.commands.simulate import register

    nodes = make_nodes(4, topology="pairs")
    for index, node in enumerate(nodes, start=1):
        node.port = 23000 + index
    report = register(nodes)
    assert report.created == {"spark": 4, "switch": 0, "cable": 2}
    assert sorted(Spark.objects.values_list("ssh_host", "ssh_port")) == [("127.0.0.1", 23000 + i) for i in range(1, 5)]
    assert Cable.objects.count() == 2
    assert sorted(NodeGroup.objects.filter(auto=True).values_list("kind", flat=True)) == ["direct", "direct"]
    assert not register(nodes).changed  # idempotent: a restart registers nothing twice
