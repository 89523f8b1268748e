"""The simulated engine: an OpenAI-compatible server as vLLM answers, paced at
its decode rate, with vLLM's /metrics (checked by promtool) and its faults."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time

import aiohttp
import pytest

from simfleet.engine import ENGINE_FAULTS, SimEngine, per_stream_tps, running_on
from telemetry.engine_metrics import parse_engine_metrics
from tests.tools import tool

VLLM_NAMES = {
    "vllm:num_requests_running",
    "vllm:num_requests_waiting",
    "vllm:gpu_cache_usage_perc",
    "vllm:prompt_tokens_total",
    "vllm:generation_tokens_total",
    "vllm:request_success_total",
    "vllm:time_to_first_token_seconds",
}


def with_engine(body, *args, **kwargs):
    """Start a SimEngine(*args, **kwargs) on a free loopback port, await body(engine, base_url), stop it."""

    async def main():
        engine = SimEngine(*args, **kwargs)
        port = await engine.start()
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
                return await body(engine, f"http://127.0.0.1:{port}", session)
        finally:
            await engine.stop()

    return asyncio.run(main())


async def read_sse(response):
    """The JSON chunks of a server-sent event stream and whether it ended with [DONE]."""
    chunks, done = [], False
    async for raw in response.content:
        line = raw.decode().strip()
        if not line:
            continue
        assert line.startswith("data: "), line
        if line == "data: [DONE]":
            done = True
            continue
        chunks.append(json.loads(line[6:]))
    return chunks, done


def test_models_lists_the_served_model_as_vllm_does():
    async def body(engine, url, session):
        async with session.get(f"{url}/v1/models") as r:
            return r.status, await r.json()

    status, data = with_engine(body, "qwen3-32b", 40.0, max_model_len=40960)
    assert status == 200
    assert data["object"] == "list"
    assert [(m["id"], m["object"], m["owned_by"], m["max_model_len"]) for m in data["data"]] == [
        ("qwen3-32b", "model", "vllm", 40960)
    ]


def test_a_completion_without_streaming_is_one_json_with_its_usage():
    async def body(engine, url, session):
        async with session.post(
            f"{url}/v1/completions", json={"model": "m", "prompt": "one two three four", "max_tokens": 7}
        ) as r:
            return r.status, await r.json()

    status, data = with_engine(body, "m", 200.0)
    assert status == 200
    assert data["object"] == "text_completion" and data["model"] == "m"
    assert data["usage"] == {"prompt_tokens": 4, "completion_tokens": 7, "total_tokens": 11}
    assert data["choices"][0]["finish_reason"] == "length"
    assert len(data["choices"][0]["text"].split()) >= 6  # seven tokens, one of them punctuation at most


def test_a_chat_completion_streams_chunks_then_done_with_usage_when_asked():
    async def body(engine, url, session):
        payload = {
            "model": "m",
            "messages": [{"role": "user", "content": "say five words"}],
            "max_tokens": 5,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        async with session.post(f"{url}/v1/chat/completions", json=payload) as r:
            assert r.headers["Content-Type"].startswith("text/event-stream")
            return r.status, await read_sse(r)

    status, (chunks, done) = with_engine(body, "m", 200.0)
    assert status == 200 and done
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    contents = [c["choices"][0]["delta"]["content"] for c in chunks[1:6]]
    assert len(contents) == 5 and all(contents)
    assert chunks[6]["choices"][0]["finish_reason"] == "length"
    assert chunks[7]["choices"] == [] and chunks[7]["usage"] == {
        "prompt_tokens": 3,
        "completion_tokens": 5,
        "total_tokens": 8,
    }
    assert len(chunks) == 8


def test_bad_requests_answer_as_vllm_does_naming_what_is_wrong():
    async def body(engine, url, session):
        out = []
        for payload in (
            {"model": "other", "prompt": "x"},
            {"model": "m"},
            {"model": "m", "prompt": "x", "max_tokens": 0},
            {"model": "m", "prompt": "x", "max_tokens": 100},
        ):
            async with session.post(f"{url}/v1/completions", json=payload) as r:
                out.append((r.status, (await r.json())["message"]))
        async with session.post(f"{url}/v1/chat/completions", data=b"{not json") as r:
            out.append((r.status, (await r.json())["message"]))
        return out, engine.generation_tokens_total

    out, generated = with_engine(body, "m", 100.0, max_model_len=64)
    assert [status for status, _ in out] == [404, 400, 400, 400, 400]
    assert out[0][1] == "The model `other` does not exist."
    assert out[1][1].startswith("prompt:")
    assert out[2][1] == "max_tokens must be at least 1, got 0"
    assert "maximum context length is 64 tokens" in out[3][1]
    assert out[4][1] == "the body is not JSON"
    assert generated == 0


def test_one_stream_decodes_at_decode_tps_and_each_added_stream_slows_all_a_little():
    tokens = 40

    async def one(session, url):
        start, stamps = time.perf_counter(), []
        payload = {"model": "m", "prompt": "p", "max_tokens": tokens, "stream": True}
        async with session.post(f"{url}/v1/completions", json=payload) as r:
            async for raw in r.content:
                if raw.startswith(b"data: {") and b'"text":"' in raw and b'"text":""' not in raw:
                    stamps.append(time.perf_counter() - start)
        return (stamps[-1] - stamps[0]) / (len(stamps) - 1), len(stamps)

    async def body(engine, url, session):
        alone = await one(session, url)
        together = await asyncio.gather(*(one(session, url) for _ in range(4)))
        return alone, together

    alone, together = with_engine(body, "m", 100.0)
    assert alone[1] == tokens
    assert alone[0] == pytest.approx(1 / 100.0, rel=0.08)  # 10 ms a token
    expected = 1 / per_stream_tps(100.0, 4)  # 11.2 ms a token each
    assert per_stream_tps(100.0, 4) == pytest.approx(100.0 / 1.12)
    for gap, count in together:
        assert count == tokens
        assert gap == pytest.approx(expected, rel=0.08)


def test_metrics_count_running_waiting_and_tokens_and_promtool_reads_them():
    async def body(engine, url, session):
        payload = {"model": "m", "prompt": "a b c d e", "max_tokens": 30, "stream": True}

        async def one():
            async with session.post(f"{url}/v1/completions", json=payload) as r:
                return await read_sse(r)

        tasks = [asyncio.create_task(one()) for _ in range(3)]
        await asyncio.sleep(0.15)
        async with session.get(f"{url}/metrics") as r:
            busy = await r.text()
        results = await asyncio.gather(*tasks)
        async with session.get(f"{url}/metrics") as r:
            idle = await r.text()
        return busy, idle, results

    busy, idle, results = with_engine(body, "m", 100.0, max_streams=2)
    assert all(done for _, done in results)
    during = parse_engine_metrics(busy)
    after = parse_engine_metrics(idle)
    assert (during.engine, during.running, during.waiting) == ("vllm", 2.0, 1.0)
    assert (after.running, after.waiting, after.generation_tokens_total, after.prompt_tokens_total) == (
        0.0,
        0.0,
        90.0,
        15.0,
    )
    assert 'vllm:time_to_first_token_seconds_count{engine="0",model_name="m"} 3.0' in idle
    assert 'vllm:request_success_total{engine="0",model_name="m"} 3.0' in idle
    # promtool parses the text; its only remarks are the colons vLLM's own names carry
    check = subprocess.run([tool("promtool"), "check", "metrics"], input=idle, capture_output=True, text=True)
    remarks = (check.stdout + check.stderr).strip().splitlines()
    assert check.returncode == 3
    assert sorted(remarks) == sorted(f"{name} metric names should not contain ':'" for name in VLLM_NAMES)
    unreadable = idle.replace("} 3.0", "} three", 1)
    broken = subprocess.run([tool("promtool"), "check", "metrics"], input=unreadable, capture_output=True, text=True)
    assert broken.returncode == 1  # a text it cannot parse is an error, not a remark


def test_health_answers_and_the_engine_is_found_by_its_port():
    async def body(engine, url, session):
        async with session.get(f"{url}/health") as r:
            status = r.status
        return status, running_on(engine.port) is engine

    assert with_engine(body, "m", 10.0) == (200, True)


def test_binds_loopback_only_and_refuses_a_taken_port():
    async def main():
        for host in ("0.0.0.0", "192.168.1.10", "example.org"):
            with pytest.raises(ValueError, match="loopback"):
                await SimEngine("m", 10.0).start(host=host)
        first = SimEngine("m", 10.0)
        port = await first.start()
        try:
            with pytest.raises(OSError):
                await SimEngine("m", 10.0).start(port=port)
        finally:
            await first.stop()
        assert running_on(port) is None
        again = SimEngine("m", 10.0)
        assert await again.start(port=port) == port  # a stopped engine's port is free at once
        await again.stop()

    asyncio.run(main())


def test_unknown_faults_and_bad_rates_are_refused():
    assert ENGINE_FAULTS == {"die-after", "hang", "no-model"}
    with pytest.raises(ValueError, match="fault"):
        SimEngine("m", 10.0, fault="on-fire")
    with pytest.raises(ValueError, match="decode_tps"):
        SimEngine("m", 0.0)
    with pytest.raises(ValueError, match="die_after"):
        SimEngine("m", 10.0, fault="die-after")


def test_an_engine_that_dies_cuts_its_streams_and_refuses_connections():
    async def body(engine, url, session):
        payload = {"model": "m", "prompt": "p", "max_tokens": 1000, "stream": True}
        async with session.post(f"{url}/v1/completions", json=payload) as r:
            try:
                done = (await read_sse(r))[1]
            except aiohttp.ClientPayloadError:
                done = False
        await asyncio.sleep(0.05)
        with pytest.raises(aiohttp.ClientConnectorError):
            await session.get(f"{url}/v1/models")
        return done, engine.dead

    done, dead = with_engine(body, "m", 100.0, die_after=0.4)
    assert (done, dead) == (False, True)


def test_a_hung_engine_accepts_and_never_answers_and_no_model_lists_nothing():
    async def hung(engine, url, session):
        with pytest.raises(TimeoutError):
            async with session.get(f"{url}/v1/models", timeout=aiohttp.ClientTimeout(total=0.5)):
                pass
        return True

    assert with_engine(hung, "m", 10.0, fault="hang")

    async def empty(engine, url, session):
        async with session.get(f"{url}/v1/models") as r:
            return (await r.json())["data"]

    assert with_engine(empty, "m", 10.0, fault="no-model") == []
