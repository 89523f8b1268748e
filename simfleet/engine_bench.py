"""What ``vllm bench serve`` does against an OpenAI-compatible server, for the
simulated Sparks: the fixed benchmark command of the benchmarks app
(``benchmarks.command.bench_command``) sent to a node whose engine runs is
answered by really measuring that engine, not by made-up figures.

Like vLLM's client it sends ``num_prompts`` streamed completions of
``input_len`` prompt tokens and exactly ``output_len`` generated tokens
(``ignore_eos``), at most ``concurrency`` at once, and measures each one's
time to first token, its inter-token gaps and its latency; TPOT is
``(latency - ttft) / (output_len - 1)`` and the output throughput is all
generated tokens over the whole run's duration. ``bench_summary`` prints the
console summary vLLM prints, which ``benchmarks.parsers`` reads.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from dataclasses import dataclass, field

import aiohttp


@dataclass(frozen=True)
class BenchFigures:
    """One run's measurements (times in ms, speeds in tokens/s)."""

    completed: int
    concurrency: int
    duration_s: float
    input_tokens: int
    output_tokens: int
    ttft_ms: list[float]
    tpot_ms: list[float]
    itl_ms: list[float]

    @property
    def output_tps(self) -> float:
        return self.output_tokens / self.duration_s if self.duration_s > 0 else 0.0


@dataclass
class _One:
    ttft_ms: float = 0.0
    latency_ms: float = 0.0
    itl_ms: list[float] = field(default_factory=list)
    output_tokens: int = 0
    prompt_tokens: int = 0
    ok: bool = False


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def bench_summary(f: BenchFigures) -> str:
    """The console summary ``vllm bench serve`` prints."""
    duration = max(f.duration_s, 1e-9)
    lines = [
        "============ Serving Benchmark Result ============",
        f"Successful requests:                     {f.completed}",
        f"Maximum request concurrency:             {f.concurrency}",
        f"Benchmark duration (s):                  {f.duration_s:.2f}",
        f"Total input tokens:                      {f.input_tokens}",
        f"Total generated tokens:                  {f.output_tokens}",
        f"Request throughput (req/s):              {f.completed / duration:.2f}",
        f"Output token throughput (tok/s):         {f.output_tps:.2f}",
        f"Total Token throughput (tok/s):          {(f.input_tokens + f.output_tokens) / duration:.2f}",
        "---------------Time to First Token----------------",
        f"Mean TTFT (ms):                          {_mean(f.ttft_ms):.2f}",
        f"Median TTFT (ms):                        {_percentile(f.ttft_ms, 50):.2f}",
        f"P99 TTFT (ms):                           {_percentile(f.ttft_ms, 99):.2f}",
        "-----Time per Output Token (excl. 1st token)------",
        f"Mean TPOT (ms):                          {_mean(f.tpot_ms):.2f}",
        f"Median TPOT (ms):                        {_percentile(f.tpot_ms, 50):.2f}",
        f"P99 TPOT (ms):                           {_percentile(f.tpot_ms, 99):.2f}",
        "---------------Inter-token Latency----------------",
        f"Mean ITL (ms):                           {_mean(f.itl_ms):.2f}",
        f"Median ITL (ms):                         {_percentile(f.itl_ms, 50):.2f}",
        f"P99 ITL (ms):                            {_percentile(f.itl_ms, 99):.2f}",
        "==================================================",
    ]
    return "\n".join(lines) + "\n"


async def _one(session: aiohttp.ClientSession, url: str, payload: dict[str, object]) -> _One:
    out = _One()
    start = last = time.perf_counter()
    async with session.post(url, json=payload) as response:
        if response.status != 200:
            await response.read()
            return out
        async for raw in response.content:
            line = raw.decode().strip()
            if not line.startswith("data: "):
                continue
            data = line[len("data: ") :]
            if data == "[DONE]":
                out.ok = True
                break
            chunk = json.loads(data)
            if chunk.get("usage"):
                out.prompt_tokens = int(chunk["usage"]["prompt_tokens"])
                out.output_tokens = int(chunk["usage"]["completion_tokens"])
            if not any(c.get("text") for c in chunk.get("choices", [])):
                continue
            now = time.perf_counter()
            if out.ttft_ms == 0.0:
                out.ttft_ms = (now - start) * 1e3
            else:
                out.itl_ms.append((now - last) * 1e3)
            last = now
    out.latency_ms = (time.perf_counter() - start) * 1e3
    return out


async def run_bench(
    base_url: str,
    model: str,
    *,
    concurrency: int,
    num_prompts: int,
    input_len: int,
    output_len: int,
    timeout_s: float = 600.0,
) -> BenchFigures:
    """Measure the server at ``base_url`` as ``vllm bench serve --dataset-name random`` does."""
    url = base_url.rstrip("/") + "/v1/completions"
    prompt = " ".join(["word"] * input_len)
    payload: dict[str, object] = {
        "model": model,
        "prompt": prompt,
        "max_tokens": output_len,
        "ignore_eos": True,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    gate = asyncio.Semaphore(concurrency)
    timeout = aiohttp.ClientTimeout(total=timeout_s)
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:

        async def gated() -> _One:
            async with gate:
                return await _one(session, url, payload)

        start = time.perf_counter()
        results = await asyncio.gather(*(gated() for _ in range(num_prompts)))
        duration = time.perf_counter() - start
    done = [r for r in results if r.ok]
    return BenchFigures(
        completed=len(done),
        concurrency=concurrency,
        duration_s=duration,
        input_tokens=sum(r.prompt_tokens for r in done),
        output_tokens=sum(r.output_tokens for r in done),
        ttft_ms=[r.ttft_ms for r in done],
        tpot_ms=[(r.latency_ms - r.ttft_ms) / (r.output_tokens - 1) for r in done if r.output_tokens > 1],
        itl_ms=[gap for r in done for gap in r.itl_ms],
    )
