"""Benchmark result parsers: vLLM JSON and console summary, llama-bench JSON,
sglang.bench_serving JSONL."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.parsers import (
    BenchResult,
    llama_ftype,
    parse_llama_bench_json,
    parse_sglang_bench_jsonl,
    parse_sglang_bench_text,
    parse_vllm_bench_json,
    parse_vllm_bench_text,
)

VLLM_JSON = {
    "date": "20261020-101500",
    "backend": "vllm",
    "model_id": "openai/gpt-oss-120b",
    "tokenizer_id": "openai/gpt-oss-120b",
    "num_prompts": 10,
    "request_rate": "inf",
    "burstiness": 1.0,
    "max_concurrency": 1,
    "duration": 21.5,
    "completed": 10,
    "total_input_tokens": 1280,
    "total_output_tokens": 1280,
    "request_throughput": 0.46,
    "output_throughput": 59.53,
    "total_token_throughput": 119.06,
    "mean_ttft_ms": 88.4,
    "median_ttft_ms": 86.1,
    "std_ttft_ms": 4.2,
    "p99_ttft_ms": 99.0,
    "mean_tpot_ms": 16.2,
    "median_tpot_ms": 16.1,
    "p99_tpot_ms": 17.0,
    "mean_itl_ms": 16.2,
}

VLLM_TEXT = """\
Maximum request concurrency: 1
100%|██████████| 10/10 [00:21<00:00,  2.15s/it]
============ Serving Benchmark Result ============
Successful requests:                     10
Benchmark duration (s):                  21.50
Total input tokens:                      1280
Total generated tokens:                  1280
Request throughput (req/s):              0.46
Output token throughput (tok/s):         59.53
Total Token throughput (tok/s):          119.06
---------------Time to First Token----------------
Mean TTFT (ms):                          88.40
Median TTFT (ms):                        86.10
P99 TTFT (ms):                           99.00
-----Time per Output Token (excl. 1st token)------
Mean TPOT (ms):                          16.20
Median TPOT (ms):                        16.10
P99 TPOT (ms):                           17.00
---------------Inter-token Latency----------------
Mean ITL (ms):                           16.20
==================================================
"""

LLAMA_BENCH = [
    {
        "build_commit": "a1b2c3d",
        "build_number": 6500,
        "model_type": "gpt-oss 20B MXFP4 MoE",
        "model_size": 12109566560,
        "n_prompt": 2048,
        "n_gen": 0,
        "avg_ts": 3610.4,
        "stddev_ts": 12.0,
        "test_time": "2026-10-20T10:00:00Z",
    },
    {
        "build_commit": "a1b2c3d",
        "build_number": 6500,
        "model_type": "gpt-oss 20B MXFP4 MoE",
        "n_prompt": 512,
        "n_gen": 0,
        "avg_ts": 3200.0,
    },
    {
        "build_commit": "a1b2c3d",
        "build_number": 6500,
        "model_type": "gpt-oss 20B MXFP4 MoE",
        "n_prompt": 0,
        "n_gen": 32,
        "avg_ts": 79.74,
        "stddev_ts": 0.43,
    },
]


def test_vllm_json_good():
    r = parse_vllm_bench_json(json.dumps(VLLM_JSON))
    assert isinstance(r, BenchResult)
    assert (r.decode_tps, r.ttft_ms, r.tpot_ms, r.concurrency) == (59.53, 88.4, 16.2, 1)
    assert (r.input_len, r.output_len, r.engine, r.model) == (128, 128, "vllm", "openai/gpt-oss-120b")
    assert r.prefill_tps == pytest.approx(128 / 0.0884)
    assert set(r.derived) == {"input_len", "output_len", "prefill_tps"}
    assert r.stream_decode_tps == pytest.approx(1000 / 16.2)
    assert r.measured_at == "20261020-101500"


def test_vllm_json_prefers_random_lengths_and_reads_a_version():
    r = parse_vllm_bench_json(
        json.dumps({**VLLM_JSON, "random_input_len": 1024, "random_output_len": 64, "vllm_version": "0.19.1"})
    )
    assert (r.input_len, r.output_len, r.engine_version) == (1024, 64, "0.19.1")
    assert "input_len" not in r.derived


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"output_throughput": "59.5"}, "output_throughput"),
        ({"mean_ttft_ms": None}, "mean_ttft_ms"),
        ({"mean_tpot_ms": True}, "mean_tpot_ms"),
        ({"max_concurrency": 0}, "max_concurrency"),
        ({"completed": 0}, "completed"),
        ({"completed": 2.5}, "completed"),
        ({"total_input_tokens": -1}, "total_input_tokens"),
        ({"model_id": ["a"]}, "model_id"),
    ],
)
def test_vllm_json_bad_fields_are_named(change, field):
    errors = parse_vllm_bench_json(json.dumps({**VLLM_JSON, **change}))
    assert isinstance(errors, list) and field in [f for f, _ in errors]


def test_vllm_json_missing_required_field():
    data = dict(VLLM_JSON)
    del data["mean_tpot_ms"]
    assert parse_vllm_bench_json(json.dumps(data)) == [("mean_tpot_ms", "missing")]


@pytest.mark.parametrize("text", ["", "not json", "[1, 2]", '{"foo": 1}'])
def test_vllm_json_not_a_result(text):
    errors = parse_vllm_bench_json(text)
    assert isinstance(errors, list) and errors[0][0] == "file"


def test_vllm_unlimited_concurrency_is_noted():
    r = parse_vllm_bench_json(json.dumps({**VLLM_JSON, "max_concurrency": None}))
    assert r.concurrency is None and r.notes


def test_vllm_text_good():
    r = parse_vllm_bench_text(VLLM_TEXT, model="openai/gpt-oss-120b", engine_version="0.19.1")
    assert isinstance(r, BenchResult)
    assert (r.decode_tps, r.ttft_ms, r.tpot_ms, r.concurrency) == (59.53, 88.4, 16.2, 1)
    assert (r.input_len, r.output_len, r.model, r.engine_version) == (128, 128, "openai/gpt-oss-120b", "0.19.1")


def test_vllm_text_errors_name_the_console_label():
    errors = parse_vllm_bench_text(VLLM_TEXT.replace("16.20\n", "n/a\n", 1))
    assert errors == [("Mean TPOT (ms)", "expected a number, got a string: 'n/a'")]
    missing = parse_vllm_bench_text("\n".join(x for x in VLLM_TEXT.splitlines() if "Mean TTFT" not in x))
    assert missing == [("Mean TTFT (ms)", "missing")]
    assert parse_vllm_bench_text("hello")[0][0] == "file"


# what `vllm bench serve --save-result` adds when the server drafted tokens (vLLM's
# benchmarks/serve.py: the spec_decode_* figures of the benchmark window)
SPEC_DECODE = {
    "spec_decode_acceptance_rate": 61.5,
    "spec_decode_acceptance_length": 2.85,
    "spec_decode_num_drafts": 4490,
    "spec_decode_draft_tokens": 13470,
    "spec_decode_accepted_tokens": 8284,
    "spec_decode_per_position_acceptance_rates": [0.82, 0.61, 0.41],
}

SPEC_TEXT = """\
---------------Speculative Decoding---------------
Acceptance rate (%):                     61.50
Acceptance length:                       2.85
Drafts:                                  4490
Draft tokens:                            13470
Accepted tokens:                         8284
Per-position acceptance (%):
  Position 0:                            82.00
==================================================
"""


def test_a_vllm_result_of_a_server_drafting_tokens_says_so_with_its_acceptance():
    """vLLM's file and console summary carry the speculative figures when the
    server drafted tokens; a plain run's carry none."""
    plain = parse_vllm_bench_json(json.dumps(VLLM_JSON))
    assert (plain.speculative, plain.acceptance_length, plain.acceptance_rate) == (False, None, None)
    drafted = parse_vllm_bench_json(json.dumps({**VLLM_JSON, **SPEC_DECODE}))
    assert (drafted.speculative, drafted.acceptance_length, drafted.acceptance_rate) == (True, 2.85, 61.5)
    text = VLLM_TEXT.replace("==================================================\n", "") + SPEC_TEXT
    console = parse_vllm_bench_text(text)
    assert (console.speculative, console.acceptance_length, console.acceptance_rate) == (True, 2.85, 61.5)
    assert console.decode_tps == 59.53
    # a file that names only the draft count still says the server drafted
    counted = parse_vllm_bench_json(json.dumps({**VLLM_JSON, "spec_decode_num_drafts": 10}))
    assert (counted.speculative, counted.acceptance_length) == (True, None)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"spec_decode_acceptance_length": 0.5}, "expected at least 1 (the verified token), got 0.5"),
        ({"spec_decode_acceptance_rate": 150}, "expected a percentage from 0 to 100, got 150.0"),
        ({"spec_decode_acceptance_rate": "61%"}, "expected a number, got a string: '61%'"),
    ],
)
def test_a_vllm_results_bad_acceptance_figures_are_named(change, message):
    key = next(iter(change))
    assert parse_vllm_bench_json(json.dumps({**VLLM_JSON, **SPEC_DECODE, **change})) == [(key, message)]


def test_llama_bench_good():
    r = parse_llama_bench_json(json.dumps(LLAMA_BENCH))
    assert isinstance(r, BenchResult)
    assert (r.prefill_tps, r.decode_tps, r.input_len, r.output_len) == (3610.4, 79.74, 2048, 32)
    assert r.engine == "llama.cpp" and r.engine_version == "a1b2c3d (build 6500)"
    assert r.model == "gpt-oss 20B MXFP4 MoE" and r.concurrency == 1 and r.quantization == "MXFP4_MOE"
    assert r.tpot_ms == pytest.approx(1000 / 79.74) and "tpot_ms" in r.derived


def test_llama_bench_jsonl():
    text = "\n".join(json.dumps(x) for x in LLAMA_BENCH)
    r = parse_llama_bench_json(text)
    assert isinstance(r, BenchResult) and r.decode_tps == 79.74


@pytest.mark.parametrize(
    ("records", "field"),
    [
        ([{**LLAMA_BENCH[0], "avg_ts": "3610"}], "record 1.avg_ts"),
        ([{**LLAMA_BENCH[0], "n_prompt": None}], "record 1.n_prompt"),
        ([{k: v for k, v in LLAMA_BENCH[2].items() if k != "n_gen"}], "record 1.n_gen"),
        ([LLAMA_BENCH[0], {**LLAMA_BENCH[2], "model_type": "llama 8B Q4_K"}], "model_type"),
        ([{**LLAMA_BENCH[0], "n_prompt": 128, "n_gen": 128}], "file"),
        ([], "file"),
        (["row"], "record 1"),
    ],
)
def test_llama_bench_bad_inputs_are_named(records, field):
    errors = parse_llama_bench_json(json.dumps(records))
    assert isinstance(errors, list) and field in [f for f, _ in errors], errors


def test_llama_bench_not_json():
    assert parse_llama_bench_json("| model | size |")[0][0] == "file"


@given(st.text(max_size=200))
def test_parsers_never_raise(text):
    for parse in (
        parse_vllm_bench_json,
        parse_llama_bench_json,
        parse_vllm_bench_text,
        parse_sglang_bench_jsonl,
        parse_sglang_bench_text,
    ):
        result = parse(text)
        assert isinstance(result, (BenchResult, list))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
VLLM_KEYS = sorted(VLLM_JSON) + ["random_input_len", "random_output_len", "vllm_version"]
LLAMA_KEYS = ["n_prompt", "n_gen", "avg_ts", "n_depth", "model_type", "build_commit", "build_number", "test_time"]


@given(st.dictionaries(st.sampled_from(VLLM_KEYS), json_values))
def test_vllm_json_with_any_values_never_raises(data):
    assert isinstance(parse_vllm_bench_json(json.dumps({**VLLM_JSON, **data})), (BenchResult, list))


@given(st.lists(st.dictionaries(st.sampled_from(LLAMA_KEYS), json_values), max_size=4))
def test_llama_bench_with_any_values_never_raises(records):
    assert isinstance(parse_llama_bench_json(json.dumps(records)), (BenchResult, list))


def test_huge_integers_are_errors_not_crashes():
    errors = parse_vllm_bench_json(json.dumps({**VLLM_JSON, "output_throughput": 10**400}))
    assert [f for f, _ in errors] == ["output_throughput"]
    errors = parse_llama_bench_json(json.dumps([{**LLAMA_BENCH[0], "n_prompt": 10**400}]))
    assert [f for f, _ in errors] == ["record 1.n_prompt"]


@pytest.mark.parametrize(
    ("model_type", "fmt"),
    [
        ("gpt-oss 20B MXFP4 MoE", "MXFP4_MOE"),
        ("qwen3moe 30B.A3B Q4_K - Medium", "Q4_K_M"),
        ("llama 8B Q2_K - Small", "Q2_K_S"),
        ("llama 8B Q2_K - Medium", "Q2_K"),
        ("llama 8B IQ3_S mix - 3.66 bpw", "IQ3_M"),
        ("llama 8B IQ3_S - 3.4375 bpw", "IQ3_S"),
        ("qwen3 8B BF16", "bf16"),
        ("qwen3 8B F16", "F16"),
        ("llama 8B Q4_1", None),
        ("qwen3-8b-q4_k_m.gguf", None),
        ("", None),
        (None, None),
    ],
)
def test_llama_bench_names_its_file_type_and_the_catalogue_reads_it(model_type, fmt):
    """llama.cpp's file-type names (llama_model_ftype_name) end llama-bench's model_type."""
    assert llama_ftype(model_type) == fmt


# One line of what `python -m sglang.bench_serving --output-file` appends: its result's keys, in its order
# (python/sglang/bench_serving.py, benchmark()), for a random-dataset run at 4 streams, lengths drawn from
# 50% to 100% of 1024 and 256 (random_range_ratio 0.5).
SGLANG_LINE = {
    "backend": "sglang-oai",
    "dataset_name": "random",
    "request_rate": "inf",
    "max_concurrency": 4,
    "sharegpt_output_len": None,
    "random_input_len": 1024,
    "random_output_len": 256,
    "random_range_ratio": 0.5,
    "duration": 30.2,
    "completed": 40,
    "total_input_tokens": 30760,
    "total_output_tokens": 7680,
    "total_output_tokens_retokenized": 7675,
    "request_throughput": 1.32,
    "input_throughput": 1018.5,
    "output_throughput": 254.3,
    "mean_e2e_latency_ms": 2990.0,
    "median_e2e_latency_ms": 2950.0,
    "std_e2e_latency_ms": 120.0,
    "p99_e2e_latency_ms": 3300.0,
    "mean_ttft_ms": 310.0,
    "median_ttft_ms": 300.0,
    "std_ttft_ms": 20.0,
    "p99_ttft_ms": 380.0,
    "mean_tpot_ms": 14.0,
    "median_tpot_ms": 13.9,
    "std_tpot_ms": 0.8,
    "p99_tpot_ms": 16.0,
    "mean_itl_ms": 14.0,
    "median_itl_ms": 13.8,
    "std_itl_ms": 2.0,
    "p95_itl_ms": 16.5,
    "p99_itl_ms": 18.0,
    "concurrency": 3.96,
    "accept_length": None,
}


def test_an_sglang_line_is_read_with_the_requests_average_lengths():
    result = parse_sglang_bench_jsonl(json.dumps(SGLANG_LINE) + "\n")
    assert isinstance(result, BenchResult), result
    assert (result.engine, result.decode_tps, result.ttft_ms, result.tpot_ms, result.concurrency) == (
        "sglang",
        254.3,
        310.0,
        14.0,
        4,
    )
    # 30760 / 40 and 7680 / 40: what the requests asked for, not the random lengths' upper bounds
    assert (result.input_len, result.output_len) == (769, 192)
    assert result.prefill_tps == pytest.approx(769 / 0.31)
    assert result.derived == ("input_len", "output_len", "prefill_tps")
    assert (result.speculative, result.acceptance_length, result.notes) == (False, None, ())
    assert (result.engine_version, result.model) == (None, None)  # the file names neither


def test_an_sglang_file_of_several_runs_reads_its_last_line_and_says_so():
    first = {**SGLANG_LINE, "max_concurrency": 1, "output_throughput": 70.0}
    text = json.dumps(first) + "\n\n" + json.dumps(SGLANG_LINE) + "\n"
    result = parse_sglang_bench_jsonl(text)
    assert isinstance(result, BenchResult)
    assert (result.concurrency, result.decode_tps) == (4, 254.3)
    assert result.notes == ("the file holds 2 results, one a line: its last, the newest, was read",)


def test_an_sglang_line_of_a_drafting_server_carries_its_acceptance_length():
    result = parse_sglang_bench_jsonl(json.dumps({**SGLANG_LINE, "accept_length": 2.71}))
    assert isinstance(result, BenchResult)
    assert (result.speculative, result.acceptance_length, result.acceptance_rate) == (True, 2.71, None)
    assert result.speculative_sign == "SGLang's accept_length"


@pytest.mark.parametrize(
    ("change", "errors"),
    [
        ({"backend": "vllm-chat"}, None),  # its vLLM backend measured a vLLM server
        ({"backend": "lmdeploy"}, ["backend"]),
        ({"accept_length": 0.5}, ["accept_length"]),
        ({"output_throughput": "254"}, ["output_throughput"]),
        ({"completed": 0}, ["completed"]),
        ({"mean_tpot_ms": None}, ["mean_tpot_ms"]),
        ({"max_concurrency": None}, None),
    ],
)
def test_an_sglang_lines_fields_are_checked_by_name(change, errors):
    result = parse_sglang_bench_jsonl(json.dumps({**SGLANG_LINE, **change}))
    if errors is None:
        assert isinstance(result, BenchResult), result
    else:
        assert [f for f, _ in result] == errors, result


def test_an_sglang_line_names_its_server_and_an_uncapped_run_says_so():
    vllm = parse_sglang_bench_jsonl(json.dumps({**SGLANG_LINE, "backend": "vllm"}))
    assert isinstance(vllm, BenchResult) and vllm.engine == "vllm"
    uncapped = parse_sglang_bench_jsonl(json.dumps({**SGLANG_LINE, "max_concurrency": None}))
    assert isinstance(uncapped, BenchResult) and uncapped.concurrency is None
    assert uncapped.notes == ("max_concurrency not set: requests were not capped, concurrency unknown",)
    refused = parse_sglang_bench_jsonl(json.dumps({**SGLANG_LINE, "backend": "trt"}))
    assert refused == [
        (
            "backend",
            "'trt' measured a server this app does not record; one of sglang, sglang-native, sglang-oai, "
            "sglang-oai-chat, vllm, vllm-chat",
        )
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("{}\n{oops", "line 2 is not JSON (column 2: Expecting property name enclosed in double quotes)"),
        ("[1, 2]", "line 1: expected one JSON object as sglang.bench_serving writes"),
        (
            json.dumps(VLLM_JSON),
            "not a sglang.bench_serving result: no total_output_tokens_retokenized or accept_length",
        ),
    ],
)
def test_what_is_not_an_sglang_line_is_refused_as_a_file(text, message):
    assert parse_sglang_bench_jsonl(text) == [("file", message)]


SGLANG_KEYS = sorted(SGLANG_LINE)


@given(st.dictionaries(st.sampled_from(SGLANG_KEYS), json_values))
def test_sglang_jsonl_with_any_values_never_raises(data):
    assert isinstance(parse_sglang_bench_jsonl(json.dumps({**SGLANG_LINE, **data})), (BenchResult, list))


# The summary sglang.bench_serving prints for SGLANG_LINE's run, line for line as its format strings write it
# ("{:<40} {:<10}"), with the "Accept length" line it prints when the server drafted tokens.
SGLANG_TEXT = """\
============ Serving Benchmark Result ============
Backend:                                 sglang-oai
Traffic request rate:                    inf
Max request concurrency:                 4
Successful requests:                     40
Benchmark duration (s):                  30.20
Total input tokens:                      30760
Total generated tokens:                  7680
Total generated tokens (retokenized):    7675
Request throughput (req/s):              1.32
Input token throughput (tok/s):          1018.50
Output token throughput (tok/s):         254.30
Total token throughput (tok/s):          1272.80
Concurrency:                             3.96
Accept length:                           2.71
----------------End-to-End Latency----------------
Mean E2E Latency (ms):                   2990.00
Median E2E Latency (ms):                 2950.00
---------------Time to First Token----------------
Mean TTFT (ms):                          310.00
Median TTFT (ms):                        300.00
P99 TTFT (ms):                           380.00
---------------Inter-Token Latency----------------
Mean ITL (ms):                           14.00
Median ITL (ms):                         13.80
P95 ITL (ms):                            16.50
P99 ITL (ms):                            18.00
Max ITL (ms):                            40.00
==================================================
"""


def test_an_sglang_summary_is_read_as_its_line_with_tpot_from_its_latencies():
    result = parse_sglang_bench_text(SGLANG_TEXT)
    assert isinstance(result, BenchResult), result
    assert (result.engine, result.decode_tps, result.ttft_ms, result.concurrency) == ("sglang", 254.3, 310.0, 4)
    assert (result.input_len, result.output_len) == (769, 192)
    # (2990 - 310) / (7680 / 40 - 1): the summary prints no TPOT
    assert result.tpot_ms == pytest.approx(2680 / 191)
    assert result.derived == ("input_len", "output_len", "prefill_tps", "tpot_ms")
    assert (result.speculative, result.acceptance_length, result.speculative_sign) == (
        True,
        2.71,
        "SGLang's accept_length",
    )
    plain = parse_sglang_bench_text(SGLANG_TEXT.replace("Accept length:                           2.71\n", ""))
    assert isinstance(plain, BenchResult) and (plain.speculative, plain.acceptance_length) == (False, None)
    # a version that prints its mean TPOT is read as printed
    printed = parse_sglang_bench_text(SGLANG_TEXT + "Mean TPOT (ms):                          13.50\n")
    assert isinstance(printed, BenchResult) and printed.tpot_ms == 13.5 and "tpot_ms" not in printed.derived


def test_an_sglang_summary_without_a_cap_says_so_and_its_errors_name_the_console_labels():
    uncapped = parse_sglang_bench_text(
        SGLANG_TEXT.replace(
            "Max request concurrency:                 4", "Max request concurrency:                 not set"
        )
    )
    assert isinstance(uncapped, BenchResult) and uncapped.concurrency is None
    assert uncapped.notes == ("max_concurrency not set: requests were not capped, concurrency unknown",)
    broken = parse_sglang_bench_text(SGLANG_TEXT.replace("254.30", "n/a").replace("Mean E2E", "Mean end"))
    assert broken == [
        ("Output token throughput (tok/s)", "expected a number, got a string: 'n/a'"),
        ("Mean TPOT (ms)", "missing"),
    ]
    assert parse_sglang_bench_text(VLLM_TEXT) == [
        ("file", "no sglang.bench_serving summary found (no 'Total generated tokens (retokenized)')")
    ]
