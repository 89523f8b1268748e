"""The simulated fleet: loopback only, realistic varying answers, faults, scenarios, scale."""

import asyncio
import socket
import time

import pytest

from simfleet.simulator import (
    FAULTS,
    SimFleet,
    SimNode,
    SparkModel,
    load_scenario,
    make_nodes,
    run_fleet,
)
from telemetry.parsers import parse_poll_output
from telemetry.poller import Target, fetch_host_key, poll_nodes


def test_refuses_any_bind_address_but_loopback(client_key):
    for host in ("0.0.0.0", "::", "192.168.1.10", "localhost"):
        with pytest.raises(ValueError, match="127.0.0.1 only"):
            SimFleet([SimNode("a")], authorized_client_key=client_key.public, host=host)


def test_rejects_unknown_faults_and_ports():
    with pytest.raises(ValueError, match="unknown fault"):
        SimNode("a", faults={"on-fire"})
    with pytest.raises(ValueError, match="p0 and p1"):
        SimNode("a", cabled_ports={"p2": ("b", "p0")})


def test_answers_vary_between_polls_like_a_live_node():
    model = SparkModel(SimNode("a"), {}, ["a"], seed=7)
    first, second = parse_poll_output(model.output()), parse_poll_output(model.output())
    assert first.errors == second.errors == ()
    assert first.memory.total_bytes == second.memory.total_bytes
    assert first.memory.available_bytes != second.memory.available_bytes
    assert (first.gpu, first.load1) != (second.gpu, second.load1)


def test_every_documented_fault_is_known():
    assert {"down", "hung", "slow", "garbage", "twin-down", "negotiated-100g", "same-subnet", "memory-pressure",
            "host-key-changed", "wrong-neighbour", "huge-output", "close-mid-output"} <= FAULTS  # fmt: skip


def test_scenario_from_dict_and_yaml(tmp_path):
    data = {
        "nodes": ["s1", {"name": "s2", "memory_gb": 64, "faults": ["slow"]}, "s3"],
        "cabling": [["s1:p0", "s2:p0"], ["s2:p1", "s3:p0"], ["s3:p1", "sw1:swp4"]],
    }
    nodes = {n.name: n for n in load_scenario(data)}
    assert nodes["s2"].memory_gb == 64 and nodes["s2"].faults == {"slow"}
    assert nodes["s1"].cabled_ports == {"p0": ("s2", "p0")}
    assert nodes["s2"].cabled_ports == {"p0": ("s1", "p0"), "p1": ("s3", "p0")}
    assert nodes["s3"].cabled_ports["p1"] == ("sw1", "swp4")
    path = tmp_path / "lab.yaml"
    path.write_text("nodes: [x, y]\ncabling:\n  - [x:p1, y:p1]\n")
    assert [n.cabled_ports for n in load_scenario(path)] == [{"p1": ("y", "p1")}, {"p1": ("x", "p1")}]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "'nodes' list"),
        ({"nodes": ["a", "a"]}, "duplicate name"),
        ({"nodes": [{"name": "a", "memory_gb": 96}]}, "memory_gb must be 64 or 128"),
        ({"nodes": ["a", "b"], "cabling": [["a:p0"]]}, "pair of ends"),
        ({"nodes": ["a", "b"], "cabling": [["a:p3", "b:p0"]]}, "not 'p3'"),
        ({"nodes": ["a", "b"], "cabling": [["a:p0", "b:p0"], ["a:p0", "b:p1"]]}, "already cabled"),
        ({"nodes": ["a"], "cabling": [["a-p0", "b:p0"]]}, "'node:port'"),
        ({"nodes": ["a"], "cabling": [["sw1:1", "sw2:2"]]}, "neither end is a node"),
    ],
)
def test_scenario_errors_name_the_entry(data, message):
    with pytest.raises(ValueError, match=message):
        load_scenario(data)


def test_make_nodes_topologies():
    pairs = make_nodes(4)
    assert pairs[0].cabled_ports == {"p0": ("spark-02", "p0")}
    ring = make_nodes(3, topology="ring")
    assert ring[0].cabled_ports == {"p1": ("spark-02", "p0"), "p0": ("spark-03", "p1")}
    switch = make_nodes(2, topology="switch")
    assert switch[1].cabled_ports == {"p0": ("sw1", "swp2")}
    assert make_nodes(1000)[999].name == "spark-1000"


def test_host_keys_persist_across_restarts_and_differ_per_node(client_key, tmp_path):
    async def start_once():
        fleet = SimFleet(make_nodes(3), authorized_client_key=client_key.public, host_key_dir=tmp_path)
        endpoints = await fleet.start()
        await fleet.stop()
        return [e.host_key for e in endpoints]

    first, again = asyncio.run(start_once()), asyncio.run(start_once())
    assert first == again and len(set(first)) == 3
    assert all(key.startswith("ssh-ed25519 ") for key in first)


def test_faults_change_at_run_time(run_fleet):
    async def body(running):
        target = running.targets("a")[0]
        first_key = await fetch_host_key(target)
        running.fleet.set_faults("a", {"host-key-changed"})
        changed_key = await fetch_host_key(target)
        running.fleet.set_faults("a", {"down"})
        down = await poll_nodes([target], client_keys=[running.client_key.path], known_hosts={"a": first_key})
        running.fleet.set_faults("a", set())
        await running.fleet.settle()
        back = await poll_nodes([target], client_keys=[running.client_key.path], known_hosts={"a": first_key})
        return first_key, changed_key, down[0], back[0]

    first_key, changed_key, down, back = run_fleet([SimNode("a")], body)
    assert first_key != changed_key
    assert down.error == "connection refused"
    assert back.error == "" and back.host_key == first_key  # same port, first key again


def _can_bind(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as asyncssh's listeners do
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_a_down_node_keeps_its_port_so_no_other_server_takes_it(run_fleet):
    # Test workers and a running demo share the machine: a node that is down
    # (from the start, or later) must come back on its own port, not find it taken.
    async def body(running):
        dead, live = running.targets("dead")[0], running.targets("live")[0]
        taken_while_dead = _can_bind(dead.port)
        running.fleet.set_faults("live", {"down"})
        taken_while_down = _can_bind(live.port)
        down = await poll_nodes([live], client_keys=[running.client_key.path], known_hosts=running.accepted())
        running.fleet.set_faults("live", set())
        await running.fleet.settle()
        return taken_while_dead, taken_while_down, down[0], live.port, running.fleet.endpoint("live").port

    taken_while_dead, taken_while_down, down, before, after = run_fleet(
        [SimNode("dead", faults={"down"}), SimNode("live")], body
    )
    assert not taken_while_dead and not taken_while_down
    assert down.error == "connection refused"
    assert before == after


def test_run_fleet_serves_until_cancelled(client_key):
    async def main():
        ready = asyncio.Event()
        seen = []

        def on_ready(endpoints):
            seen.extend(endpoints)
            ready.set()

        task = asyncio.create_task(
            run_fleet(make_nodes(2), authorized_client_key=client_key.public, ready_callback=on_ready)
        )
        await asyncio.wait_for(ready.wait(), 10)
        targets = [Target(e.name, e.host, e.port, "fleet") for e in seen]
        results = await poll_nodes(
            targets, client_keys=[client_key.path], known_hosts={e.name: e.host_key for e in seen}
        )
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        refused = await poll_nodes(
            targets[:1], client_keys=[client_key.path], known_hosts={seen[0].name: seen[0].host_key}
        )
        return results, refused

    results, refused = asyncio.run(main())
    assert [r.error for r in results] == ["", ""]
    assert refused[0].error == "connection refused"  # the servers really stopped


def test_a_thousand_nodes_start_quickly(client_key, tmp_path):
    async def main():
        fleet = SimFleet(make_nodes(1000), authorized_client_key=client_key.public, host_key_dir=tmp_path)
        start = time.monotonic()
        endpoints = await fleet.start()
        elapsed = time.monotonic() - start
        await fleet.stop()
        return endpoints, elapsed

    endpoints, elapsed = asyncio.run(main())
    assert len({e.port for e in endpoints}) == 1000
    assert all(e.host == "127.0.0.1" for e in endpoints)
    assert elapsed < 15  # about 2 s on 2 cores with fresh keys written to disk


def test_the_simulated_head_node_answers_only_the_fixed_benchmark_command():
    from benchmarks.command import BenchSpec, bench_command, read_server
    from simfleet.simulator import bench_answer
    from simfleet.software_answers import CONTAINER_BANNER

    node = SimNode("head-1", software={"vllm": "/usr/local/bin/vllm"})
    good = bench_command(BenchSpec("m", "org/M", 1, 64, 32, 5))
    out = bench_answer(good, node)
    assert out is not None and out.startswith("@@bench:version\n0.11.1\n@@bench:server\n")
    # without a vllm of its own the client runs in the launch image, whose banner comes first
    contained = bench_answer(good, SimNode("head-2"))
    assert contained is not None and contained.startswith(f"@@bench:version\n{CONTAINER_BANNER}0.11.1\n")
    assert f"@@bench:result\n{CONTAINER_BANNER}" in contained
    assert "Maximum request concurrency:             1" in out and "Total generated tokens:                  160" in out
    assert read_server(out).engine == "vllm"
    # anything added to the command is not the command: no answer
    assert bench_answer(good.replace("vc bench serve", "rm -rf /; vc bench serve"), node) is None
    assert bench_answer("vllm bench serve --max-concurrency 1", node) is None
    assert bench_answer("cat /etc/shadow", node) is None
