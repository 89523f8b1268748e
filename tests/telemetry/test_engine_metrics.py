"""Live figures from an engine's /metrics: vLLM's and SGLang's own names, read exactly."""

from __future__ import annotations

import pytest

from telemetry.engine_metrics import EngineReading, parse_engine_metrics, tokens_per_second

# vLLM 0.11 (V1 engine), two data-parallel engines serving one model
VLLM = """\
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="qwen3-32b"} 3.0
vllm:num_requests_running{engine="1",model_name="qwen3-32b"} 2.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="qwen3-32b"} 1.0
vllm:num_requests_waiting{engine="1",model_name="qwen3-32b"} 0.0
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="qwen3-32b"} 12000.0
vllm:generation_tokens_total{engine="1",model_name="qwen3-32b"} 8000.0
# HELP vllm:prompt_tokens_total Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{engine="0",model_name="qwen3-32b"} 5.5e+04
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.1",model_name="qwen3-32b"} 4.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="qwen3-32b"} 9.0
vllm:time_to_first_token_seconds_count{engine="0",model_name="qwen3-32b"} 9.0
vllm:time_to_first_token_seconds_sum{engine="0",model_name="qwen3-32b"} 2.5
"""

# SGLang's production metrics page (docs.sglang.ai), the series the page reads
SGLANG = """\
# HELP sglang:prompt_tokens_total Number of prefill tokens processed.
# TYPE sglang:prompt_tokens_total counter
sglang:prompt_tokens_total{model_name="meta-llama/Llama-3.1-8B-Instruct"} 8.128902e+06
# HELP sglang:generation_tokens_total Number of generation tokens processed.
# TYPE sglang:generation_tokens_total counter
sglang:generation_tokens_total{model_name="meta-llama/Llama-3.1-8B-Instruct"} 7.557572e+06
# HELP sglang:token_usage The token usage
# TYPE sglang:token_usage gauge
sglang:token_usage{model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.28
# HELP sglang:num_running_reqs The number of running requests
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="meta-llama/Llama-3.1-8B-Instruct"} 162.0
# HELP sglang:gen_throughput The generate throughput (token/s)
# TYPE sglang:gen_throughput gauge
sglang:gen_throughput{model_name="meta-llama/Llama-3.1-8B-Instruct"} 86.50814177726902
# HELP sglang:num_queue_reqs The number of requests in the waiting queue
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{model_name="meta-llama/Llama-3.1-8B-Instruct"} 2826.0
"""


def test_vllm_sums_its_engines():
    assert parse_engine_metrics(VLLM) == EngineReading(
        engine="vllm", running=5.0, waiting=1.0, generation_tokens_total=20000.0, prompt_tokens_total=55000.0
    )


def test_sglang_names():
    assert parse_engine_metrics(SGLANG) == EngineReading(
        engine="sglang", running=162.0, waiting=2826.0, generation_tokens_total=7557572.0, prompt_tokens_total=8128902.0
    )


def test_one_model_of_several_names():
    other = VLLM.replace('engine="1",model_name="qwen3-32b"', 'engine="1",model_name="other"')
    reading = parse_engine_metrics(other, model="qwen3-32b")
    assert (reading.running, reading.waiting, reading.generation_tokens_total) == (3.0, 1.0, 12000.0)
    assert parse_engine_metrics(other, model="absent") is None


def test_a_missing_series_is_none_not_zero():
    only_running = "\n".join(VLLM.splitlines()[:4]) + "\n"
    assert parse_engine_metrics(only_running) == EngineReading("vllm", 5.0, None, None, None)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "<html>502 Bad Gateway</html>",
        "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 3.0\n",  # not an engine
        'vllm:num_requests_running{model_name="m"} three\n',
        'vllm:num_requests_running{model_name="m} 1\n',
        "x" * (4 * 1024 * 1024 + 1),
    ],
)
def test_what_is_not_an_engines_metrics_gives_no_reading(text):
    assert parse_engine_metrics(text) is None


def test_tokens_per_second_from_two_readings():
    first = EngineReading("vllm", 2.0, 0.0, 1000.0, 10.0)
    later = EngineReading("vllm", 2.0, 0.0, 1450.0, 10.0)
    assert tokens_per_second(first, later, 5.0) == 90.0
    assert tokens_per_second(first, first, 5.0) == 0.0
    assert tokens_per_second(later, first, 5.0) is None  # the counter went down: a restart in between
    assert tokens_per_second(first, later, 0.0) is None
    assert tokens_per_second(first, EngineReading("sglang", 2.0, 0.0, 1450.0, 10.0), 5.0) is None
    assert tokens_per_second(first, EngineReading("vllm", 2.0, 0.0, None, None), 5.0) is None
