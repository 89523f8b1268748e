"""The benchmarks app's own runner against a simulated engine: its fixed
command sent over SSH to a simulated head node is measured for real against
the engine at its --base-url, and the runner's reader gets the engine's rate."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from benchmarks.command import BenchSpec, bench_command, bench_problems, read_output
from simfleet.engine import SimEngine, per_stream_tps
from simfleet.simulator import SimFleet, SimNode
from telemetry.remote import Target, run_command


class Background:
    """A simulated head node and an engine served by an asyncio loop in a thread, as `manage.py simulate` does."""

    def __init__(self, client_key, tmp_path: Path, decode_tps: float) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.fleet = SimFleet([SimNode("head")], authorized_client_key=client_key.public, host_key_dir=tmp_path / "hk")
        self.engine = SimEngine("qwen3-32b", decode_tps)
        self.endpoint = self.call(self.fleet.start())[0]
        self.port = self.call(self.engine.start())

    def call(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=60)

    def close(self) -> None:
        self.call(self.engine.stop())
        self.call(self.fleet.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


@pytest.fixture
def head(client_key, tmp_path):
    running = Background(client_key, tmp_path, decode_tps=100.0)
    yield running
    running.close()


def bench_output(head, client_key, port: int, **sizes) -> str:
    """What the fixed benchmark command printed over SSH on the simulated head, measuring the engine at ``port``."""
    spec = BenchSpec("qwen3-32b", "Qwen/Qwen3-32B-FP8", base_url=f"http://127.0.0.1:{port}", **sizes)
    outcome = run_command(
        Target(head.endpoint.host, head.endpoint.port, "fleet"),
        bench_command(spec),
        client_keys=[client_key.path],
        accepted_key=head.endpoint.host_key,
        timeout=60,
    )
    assert outcome.error == ""
    return outcome.output


def run_bench(head, client_key, **sizes) -> object:
    return read_output(bench_output(head, client_key, head.port, **sizes), model="qwen3-32b")


@pytest.mark.parametrize("streams", [1, 4])
def test_the_runner_measures_the_engine_at_its_decode_rate(head, client_key, streams):
    # 120 tokens a request (over a second at these rates): a short request's rate is mostly the jitter
    # of a busy machine's scheduler, which the whole suite beside it makes
    result = run_bench(head, client_key, concurrency=streams, input_len=64, output_len=120, num_prompts=2 * streams)
    expected = per_stream_tps(100.0, streams)  # 100 tok/s alone, 89.3 each of four
    print(f"streams={streams} each={result.stream_decode_tps:.2f} all={result.decode_tps:.2f} expected {expected:.2f}")
    assert result.engine_version == "0.11.1"
    assert result.concurrency == streams
    assert result.stream_decode_tps == pytest.approx(expected, rel=0.05)
    # all streams together, less the first tokens' wait: within 10% of streams x each one's rate
    assert result.decode_tps == pytest.approx(streams * expected, rel=0.10)
    assert result.decode_tps < streams * expected
    assert head.engine.generation_tokens_total == 2 * streams * 120


def test_a_base_url_with_anything_but_an_address_and_port_is_refused():
    for url in (
        "http://127.0.0.1:8000; rm -rf /",
        "https://x:1",
        "http://x",
        "http://x:0",
        "http://x:99999",
        "ftp://x:1",
    ):
        problems = bench_problems(BenchSpec("m", "m", base_url=url))
        assert [field for field, _ in problems] == ["base_url"], url
    assert bench_problems(BenchSpec("m", "m", base_url="http://spark-01.lab:8001")) == []
    command = bench_command(BenchSpec("m", "m"))
    assert "--base-url http://127.0.0.1:8000 " in command  # the launch scripts' port on the head node by default


def test_the_runner_asks_a_simulated_sglang_server_what_it_is(client_key, tmp_path):
    """The questions before the benchmark go to the engine for real: one that
    stands for SGLang names itself so and gives its version and speculative
    algorithm; one that stands for vLLM gives its version."""
    from benchmarks.command import read_server
    from simfleet.engine import SGLANG_VERSION, VLLM_VERSION, SimEngine

    running = Background(client_key, tmp_path, decode_tps=100.0)
    try:
        sglang = SimEngine("qwen3-32b", 100.0, server="sglang", speculative="EAGLE3")
        port = running.call(sglang.start())
        for url_port, expected in (
            (port, ("sglang", SGLANG_VERSION, "graphs", "eagle3")),
            (running.port, ("vllm", VLLM_VERSION, "", "")),
        ):
            said = read_server(bench_output(running, client_key, url_port, num_prompts=1))
            assert (said.engine, said.version, said.mode, said.speculative) == expected
        running.call(sglang.stop())
    finally:
        running.close()
