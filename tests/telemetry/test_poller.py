"""The poller against real simulated Sparks over real SSH on 127.0.0.1."""

import asyncio
import threading
import time

import asyncssh
import pytest

from simfleet.simulator import SimFleet, SimNode
from telemetry.poll_script import POLL_SCRIPT
from telemetry.poller import ConnectionPool, Target, fetch_host_key, poll_nodes, poll_nodes_sync


def _poll(running, targets=None, **kwargs):
    kwargs.setdefault("client_keys", [running.client_key.path])
    kwargs.setdefault("known_hosts", running.accepted())
    return poll_nodes(targets if targets is not None else running.targets(), **kwargs)


def test_healthy_node_gives_a_full_sample(run_fleet):
    async def body(running):
        (result,) = await _poll(running)
        return result, running.fleet.stats("a")

    result, stats = run_fleet([SimNode("a", cabled_ports={"p0": ("b", "p0")})], body)
    assert (result.name, result.reachable, result.error, result.host_key_status) == ("a", True, "", "ok")
    assert result.at.tzinfo is not None and result.duration_ms > 0
    assert result.sample.errors == ()
    assert result.sample.memory.used_bytes > 0
    assert all(t.up for t in result.sample.twins_of("p0"))
    assert (stats.connections, stats.auths, stats.execs) == (1, 1, 1)


def test_hung_node_times_out_alone_and_healthy_nodes_in_the_same_call_get_samples(run_fleet):
    nodes = [SimNode(f"ok{i}", memory_gb=64 if i % 2 else 128) for i in range(6)] + [SimNode("hung", faults={"hung"})]
    finished = {}

    async def body(running):
        start = time.monotonic()

        def record(result):
            finished[result.name] = time.monotonic() - start

        results = await _poll(running, command_timeout=1.5, on_result=record)
        return results, time.monotonic() - start

    results, elapsed = run_fleet(nodes, body)
    by_name = {r.name: r for r in results}
    assert [r.name for r in results] == [n.name for n in nodes]  # one result per target, in order
    hung = by_name["hung"]
    assert hung.sample is None and hung.reachable
    assert hung.error.startswith("command timed out after 1.5 s")
    assert 1.4 <= hung.duration_ms / 1000 < 3.0
    assert elapsed < 4.0
    for i in range(6):
        ok = by_name[f"ok{i}"]
        assert ok.error == "" and ok.sample is not None
        # never someone else's data: each node reports its own memory size
        expected_gb = 64 if i % 2 else 128
        assert abs(ok.sample.memory.total_bytes / 1e9 - expected_gb * 1.02) < 3
        assert finished[f"ok{i}"] < 1.2  # did not wait for the hung node


def test_node_that_accepts_tcp_but_never_speaks_ssh_times_out_at_connect(run_fleet):
    async def body(running):
        async def silent(reader, writer):
            await asyncio.sleep(30)

        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        known = running.accepted() | {"mute": running.endpoints["a"].host_key}
        try:
            return await _poll(
                running,
                [*running.targets(), Target("mute", "127.0.0.1", port, "fleet")],
                known_hosts=known,
                connect_timeout=1.0,
            )
        finally:
            server.close()

    ok, mute = run_fleet([SimNode("a")], body)
    assert ok.sample is not None
    assert (mute.reachable, mute.sample, mute.error) == (False, None, "connect timed out after 1 s")
    assert mute.duration_ms < 2500


def test_node_closing_mid_output_records_an_error(run_fleet):
    async def body(running):
        return await _poll(running)

    mid, ok = run_fleet([SimNode("mid", faults={"close-mid-output"}), SimNode("ok")], body)
    assert mid.reachable and mid.error.startswith("connection lost after ")
    assert mid.sample is not None and "output: truncated (end marker missing)" in mid.sample.errors
    assert ok.error == "" and ok.sample.errors == ()


def test_huge_output_is_read_only_up_to_the_bound(run_fleet):
    async def body(running):
        return await _poll(running, max_output_bytes=200_000)

    (huge,) = run_fleet([SimNode("huge", faults={"huge-output"})], body)
    assert huge.error == "output exceeded 200000 bytes: read stopped"
    assert huge.duration_ms < 3000  # stopped at the bound, did not drain 10 MB


def test_changed_host_key_is_a_mismatch_and_no_command_runs(run_fleet):
    async def body(running):
        results = await _poll(running)
        accepted = running.endpoints["moved"].host_key
        return results, running.fleet.stats("moved"), running.fleet.endpoint("moved").host_key, accepted

    (result,), stats, new_key, accepted = run_fleet([SimNode("moved", faults={"host-key-changed"})], body)
    assert result.host_key_status == "mismatch" and result.sample is None
    assert result.host_key == new_key and new_key != accepted  # the key to review is returned
    assert stats.connections == 1 and stats.auths == 0 and stats.execs == 0


def test_unknown_key_is_fetched_without_authenticating(run_fleet):
    async def body(running):
        results = await _poll(running, known_hosts={"new": None})
        return results, running.fleet.stats("new"), running.endpoints["new"].host_key

    (result,), stats, key = run_fleet([SimNode("new")], body)
    assert (result.host_key_status, result.host_key, result.sample) == ("unknown", key, None)
    assert result.reachable and result.error == "host key not accepted yet: no command run"
    assert stats.auths == 0 and stats.execs == 0


def test_invalid_accepted_key_is_treated_as_unknown(run_fleet):
    async def body(running):
        return await _poll(running, known_hosts={"a": "ssh-ed25519 not-base64!"})

    (result,) = run_fleet([SimNode("a")], body)
    assert result.host_key_status == "unknown"
    assert result.error.startswith("the accepted host key is not a valid OpenSSH public key")


def test_connection_refused(run_fleet):
    async def body(running):
        return await _poll(running)

    (result,) = run_fleet([SimNode("dead", faults={"down"})], body)
    assert (result.reachable, result.sample, result.error) == (False, None, "connection refused")


def test_garbage_output_is_reachable_with_parse_errors(run_fleet):
    async def body(running):
        return await _poll(running)

    (result,) = run_fleet([SimNode("junk", faults={"garbage"})], body)
    assert result.reachable and result.error == ""
    assert result.sample.memory is None and result.sample.twins is None
    assert any(e.startswith("meminfo:") for e in result.sample.errors)


def test_slow_node_answers_within_the_timeout_and_times_out_beyond_it(run_fleet):
    async def body(running):
        within = await _poll(running, command_timeout=2.0)
        beyond = await _poll(running, command_timeout=0.2)
        return within[0], beyond[0]

    within, beyond = run_fleet([SimNode("slow", faults={"slow"})], body, slow_s=0.5)
    assert within.error == "" and within.sample is not None and within.duration_ms >= 500
    assert beyond.error.startswith("command timed out after 0.2 s")


def test_key_not_authorised_is_reported(run_fleet, tmp_path):
    other = asyncssh.generate_private_key("ssh-ed25519")
    path = tmp_path / "other"
    path.write_bytes(other.export_private_key())

    async def body(running):
        return await _poll(running, client_keys=[str(path)])

    (result,) = run_fleet([SimNode("a")], body)
    assert result.reachable and result.sample is None
    assert result.error.startswith("authentication refused")


def test_pool_reuses_one_connection_and_reopens_a_dropped_one(run_fleet):
    async def body(running):
        pool = ConnectionPool()
        first = await _poll(running, pool=pool)
        second = await _poll(running, pool=pool)
        reused = running.fleet.stats("a").connections, running.fleet.stats("a").execs
        running.fleet.set_faults("a", {"down"})  # drops the pooled connection
        running.fleet.set_faults("a", set())
        await running.fleet.settle()
        third = await _poll(running, pool=pool)
        stats = running.fleet.stats("a")
        await pool.close()
        return first[0], second[0], third[0], reused, (stats.connections, stats.execs)

    first, second, third, reused, after = run_fleet([SimNode("a")], body)
    assert first.sample and second.sample and third.sample and third.error == ""
    assert reused == (1, 2)  # one connection over two polls
    assert after == (2, 3)  # the dropped connection was re-opened, once


def test_unknown_command_gets_127(run_fleet):
    async def body(running):
        ep = running.endpoints["a"]
        async with asyncssh.connect(
            ep.host,
            ep.port,
            username="x",
            client_keys=[running.client_key.path],
            known_hosts=asyncssh.import_known_hosts(f"* {ep.host_key}\n"),
            config=None,
            agent_path=None,
        ) as conn:
            bad = await conn.run("rm -rf /", check=False)
            good = await conn.run(POLL_SCRIPT, check=False)
        return bad, good

    bad, good = run_fleet([SimNode("a")], body)
    assert bad.exit_status == 127 and "command not found" in bad.stderr
    assert good.exit_status == 0 and "@@fleet:end" in good.stdout


def test_fetch_host_key_matches_the_presented_key(run_fleet):
    async def body(running):
        (target,) = running.targets()
        return await fetch_host_key(target), running.endpoints["a"].host_key, running.fleet.stats("a").auths

    fetched, expected, auths = run_fleet([SimNode("a")], body)
    assert fetched == expected and auths == 0


def test_duplicate_target_names_are_refused(client_key):
    targets = [Target("a", "127.0.0.1", 1), Target("a", "127.0.0.1", 2)]
    with pytest.raises(ValueError, match="unique"):
        asyncio.run(poll_nodes(targets, client_keys=[client_key.path], known_hosts={}))


def test_poll_nodes_sync_from_plain_code(client_key):
    """A Celery task calls the sync wrapper; the fleet runs in its own thread and loop here."""
    ready = threading.Event()
    stop = threading.Event()
    endpoints = {}

    def serve():
        async def main():
            fleet = SimFleet([SimNode("a"), SimNode("b")], authorized_client_key=client_key.public)
            endpoints.update({e.name: e for e in await fleet.start()})
            ready.set()
            while not stop.is_set():
                await asyncio.sleep(0.02)
            await fleet.stop()

        asyncio.run(main())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        assert ready.wait(10)
        targets = [Target(n, e.host, e.port, "fleet") for n, e in endpoints.items()]
        results = poll_nodes_sync(
            targets, client_keys=[client_key.path], known_hosts={n: e.host_key for n, e in endpoints.items()}
        )
    finally:
        stop.set()
        thread.join(10)
    assert [(r.name, r.error) for r in results] == [("a", ""), ("b", "")]


def test_new_connections_wait_for_their_connect_time_and_pooled_ones_do_not(run_fleet):
    nodes = [SimNode(f"n{i}") for i in range(4)]

    async def body(running):
        pool = ConnectionPool()
        names = [n.name for n in nodes]
        start = time.time() + 0.2
        slots = {name: start + i * 0.3 for i, name in enumerate(names)}
        cold = await _poll(running, pool=pool, connect_at=slots)
        later = {name: time.time() + 30 for name in names}  # would wait 30 s if it applied
        began = time.monotonic()
        warm = await _poll(running, pool=pool, connect_at=later)
        warm_s = time.monotonic() - began
        await pool.close()
        return cold, slots, warm, warm_s

    cold, slots, warm, warm_s = run_fleet(nodes, body)
    for result in cold:
        assert result.error == "" and result.sample is not None
        assert result.at.timestamp() >= slots[result.name] - 0.01  # not before its slot
    assert all(r.error == "" and r.sample is not None for r in warm)
    assert warm_s < 5  # open connections are polled at once


def test_the_pool_freezes_its_long_lived_objects_after_connections_change(run_fleet):
    import gc

    nodes = [SimNode(f"g{i}") for i in range(3)]

    async def body(running):
        pool = ConnectionPool()
        pool.gc_freeze_after = 3
        settled = []
        original = pool.gc_settle

        def spy() -> bool:
            settled.append(original())
            return settled[-1]

        pool.gc_settle = spy  # type: ignore[method-assign]
        gc.unfreeze()
        await _poll(running, pool=pool)  # three new connections: collect and freeze
        frozen = gc.get_freeze_count()
        await _poll(running, pool=pool)  # nothing changed: no collection
        pool.discard("g0")
        await _poll(running, pool=pool)  # one dropped, one reopened: under the threshold
        pool.discard("g1")
        await _poll(running, pool=pool)  # two more: reclaim and freeze again
        await pool.close()
        gc.unfreeze()
        return settled, frozen

    settled, frozen = run_fleet(nodes, body)
    assert settled == [True, False, False, True]
    assert frozen > 0
