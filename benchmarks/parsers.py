"""Parsers for benchmark results users upload: one BenchResult, or named errors.

Owns the reading of five outputs: the JSON `vllm bench serve --save-result`
writes, the JSON list `llama-bench -o json` prints (also its JSONL form), the
console summary `vllm bench serve` prints, the JSONL `python -m
sglang.bench_serving --output-file` appends to (one line per run), and the
console summary that bench prints. Nothing is guessed: a missing
required field or a number given as a string is an error naming the field;
values computed rather than read (e.g. prefill speed from TTFT) are listed in
`BenchResult.derived`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, replace
from typing import Any

from core.validation import MAX_JSON_DEPTH, json_too_deep

Errors = list[tuple[str, str]]


@dataclass(frozen=True)
class BenchResult:
    """One measured run. Speeds in tokens/s, times in ms.

    decode_tps is the output throughput over all streams (vLLM's "Output token
    throughput"; llama-bench's tg speed, one stream). One stream's decode speed
    is 1000 / tpot_ms.
    """

    prefill_tps: float | None
    decode_tps: float | None
    ttft_ms: float | None
    tpot_ms: float | None
    concurrency: int | None
    input_len: int | None
    output_len: int | None
    engine: str
    engine_version: str | None
    model: str | None
    measured_at: str | None = None
    derived: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    quantization: str | None = None  # the weights' format the file names (llama-bench's model_type)
    # the server drafted tokens (vLLM's bench writes spec_decode_* figures then): its acceptance
    # length (tokens a verification step kept, the verified one included) and rate (percent)
    speculative: bool = False
    acceptance_length: float | None = None
    acceptance_rate: float | None = None
    speculative_sign: str = ""  # what in the file shows the drafting, in words

    @property
    def stream_decode_tps(self) -> float | None:
        return 1000.0 / self.tpot_ms if self.tpot_ms else None


def _number(
    data: dict[str, Any], key: str, errors: Errors, *, required: bool, integer: bool = False, allow_zero: bool = True
) -> float | None:
    if key not in data or data[key] is None:
        if required:
            errors.append((key, "missing"))
        return None
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        kind = "a string" if isinstance(value, str) else type(value).__name__
        errors.append((key, f"expected a number, got {kind}: {value!r}"[:120]))
        return None
    try:
        finite = math.isfinite(value)
    except OverflowError:  # JSON integers have no size limit
        finite = False
    if not finite or value < 0 or (value == 0 and not allow_zero):
        errors.append((key, f"expected a {'positive' if not allow_zero else 'non-negative'} number, got {value!r}"))
        return None
    if integer and float(value) != int(value):
        errors.append((key, f"expected a whole number, got {value!r}"))
        return None
    return float(value)


def _text(data: dict[str, Any], key: str, errors: Errors) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        errors.append((key, f"expected text, got {type(value).__name__}"))
        return None
    return str(value)


def _load_json(text: str) -> tuple[Any, Errors]:
    if not isinstance(text, str) or not text.strip():
        return None, [("file", "empty")]
    if json_too_deep(text):  # json.loads recurses: deep enough, it raises RecursionError
        return None, [("file", f"not a benchmark result: nested deeper than {MAX_JSON_DEPTH} levels")]
    try:
        return json.loads(text), []
    except json.JSONDecodeError as exc:
        return None, [("file", f"not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")]


# --- vLLM bench serve --save-result ------------------------------------------------


def parse_vllm_bench_json(text: str) -> BenchResult | Errors:
    """The file `vllm bench serve --save-result` writes (one JSON object)."""
    data, errors = _load_json(text)
    if errors:
        return errors
    if not isinstance(data, dict):
        return [("file", "expected one JSON object as written by `vllm bench serve --save-result`")]
    if "output_throughput" not in data and "mean_ttft_ms" not in data:
        return [("file", "not a vllm bench serve result: no output_throughput or mean_ttft_ms")]
    output_tps = _number(data, "output_throughput", errors, required=True)
    ttft = _number(data, "mean_ttft_ms", errors, required=True)
    tpot = _number(data, "mean_tpot_ms", errors, required=True)
    completed = _number(data, "completed", errors, required=False, integer=True)
    concurrency = _number(data, "max_concurrency", errors, required=False, integer=True, allow_zero=False)
    random_in = _number(data, "random_input_len", errors, required=False, integer=True)
    random_out = _number(data, "random_output_len", errors, required=False, integer=True)
    total_in = _number(data, "total_input_tokens", errors, required=False, integer=True)
    total_out = _number(data, "total_output_tokens", errors, required=False, integer=True)
    model = _text(data, "model_id", errors)
    backend = _text(data, "backend", errors)
    date = _text(data, "date", errors)
    version = _text(data, "vllm_version", errors) or _text(data, "version", errors)
    # vLLM's bench adds spec_decode_* figures when the server drafted tokens (speculative decoding)
    speculative = any(key.startswith("spec_decode_") for key in data)
    acceptance_length = _number(data, "spec_decode_acceptance_length", errors, required=False)
    acceptance_rate = _number(data, "spec_decode_acceptance_rate", errors, required=False)
    if acceptance_length is not None and acceptance_length < 1:
        errors.append(
            ("spec_decode_acceptance_length", f"expected at least 1 (the verified token), got {acceptance_length!r}")
        )
    if acceptance_rate is not None and acceptance_rate > 100:
        errors.append(("spec_decode_acceptance_rate", f"expected a percentage from 0 to 100, got {acceptance_rate!r}"))
    if completed == 0:
        errors.append(("completed", "no request completed"))
    if errors:
        return errors

    derived: list[str] = []
    input_len = int(random_in) if random_in is not None else _average(total_in, completed, "input_len", derived)
    output_len = int(random_out) if random_out is not None else _average(total_out, completed, "output_len", derived)
    return _serving_result(
        (output_tps, ttft, tpot),
        concurrency,
        (input_len, output_len),
        derived,
        [],
        engine=backend or "vllm",
        engine_version=version,
        model=model,
        measured_at=date,
        speculative=speculative,
        acceptance_length=acceptance_length,
        acceptance_rate=acceptance_rate,
        speculative_sign="vLLM's spec_decode_* figures" if speculative else "",
    )


def _average(total: float | None, completed: float | None, name: str, derived: list[str]) -> int | None:
    """A request's average length from a run's totals (``name`` noted as derived), or None."""
    if total is None or not completed:
        return None
    derived.append(name)
    return round(total / completed)


def _serving_result(
    figures: tuple[float | None, float | None, float | None],
    concurrency: float | None,
    lengths: tuple[int | None, int | None],
    derived: list[str],
    notes: list[str],
    **fields: Any,
) -> BenchResult:
    """A serving benchmark's result (vLLM's or SGLang's: output throughput,
    mean TTFT and TPOT), with prefill derived from the input length and TTFT."""
    output_tps, ttft, tpot = figures
    input_len, output_len = lengths
    prefill = None
    if input_len and ttft:
        # TTFT includes queueing and the first decode step: a lower bound of prefill speed
        prefill = input_len / (ttft / 1000.0)
        derived.append("prefill_tps")
    if concurrency is None:
        notes.append("max_concurrency not set: requests were not capped, concurrency unknown")
    return BenchResult(
        prefill_tps=prefill,
        decode_tps=output_tps,
        ttft_ms=ttft,
        tpot_ms=tpot,
        concurrency=int(concurrency) if concurrency is not None else None,
        input_len=input_len,
        output_len=output_len,
        derived=tuple(derived),
        notes=tuple(notes),
        **fields,
    )


# --- python -m sglang.bench_serving --output-file (JSONL) --------------------------

# The server each of sglang.bench_serving's client backends measures: SGLang's own
# (native /generate or its OpenAI API) or vLLM's; the other backends' servers are
# engines this app does not record.
SGLANG_BENCH_SERVERS = {
    "sglang": "sglang",
    "sglang-native": "sglang",
    "sglang-oai": "sglang",
    "sglang-oai-chat": "sglang",
    "vllm": "vllm",
    "vllm-chat": "vllm",
}


def parse_sglang_bench_jsonl(text: str) -> BenchResult | Errors:
    """A line `python -m sglang.bench_serving --output-file` appends: the
    file's last line (its newest run). Its figures are read as the vLLM
    file's (the bench was adapted from vLLM's); the lengths are the requests'
    averages (``total_*_tokens / completed``: its random lengths vary with
    ``random_range_ratio``); ``accept_length`` is the SGLang server's average
    speculative acceptance length, a number only when it drafted tokens."""
    if not isinstance(text, str) or not text.strip():
        return [("file", "empty")]
    lines = [line for line in text.splitlines() if line.strip()]
    if json_too_deep(lines[-1]):
        return [("file", f"line {len(lines)} is nested deeper than {MAX_JSON_DEPTH} levels")]
    try:
        data = json.loads(lines[-1])
    except json.JSONDecodeError as exc:
        return [("file", f"line {len(lines)} is not JSON (column {exc.colno}: {exc.msg})")]
    if not isinstance(data, dict):
        return [("file", f"line {len(lines)}: expected one JSON object as sglang.bench_serving writes")]
    if "total_output_tokens_retokenized" not in data and "accept_length" not in data:
        return [("file", "not a sglang.bench_serving result: no total_output_tokens_retokenized or accept_length")]
    errors: Errors = []
    backend = _text(data, "backend", errors) or "sglang"
    server = SGLANG_BENCH_SERVERS.get(backend)
    if server is None:
        known = ", ".join(SGLANG_BENCH_SERVERS)
        errors.append(("backend", f"{backend!r} measured a server this app does not record; one of {known}"[:200]))
    output_tps = _number(data, "output_throughput", errors, required=True)
    ttft = _number(data, "mean_ttft_ms", errors, required=True)
    tpot = _number(data, "mean_tpot_ms", errors, required=True)
    completed = _number(data, "completed", errors, required=True, integer=True)
    concurrency = _number(data, "max_concurrency", errors, required=False, integer=True, allow_zero=False)
    total_in = _number(data, "total_input_tokens", errors, required=False, integer=True)
    total_out = _number(data, "total_output_tokens", errors, required=False, integer=True)
    accept = _number(data, "accept_length", errors, required=False)
    if accept is not None and accept < 1:
        errors.append(("accept_length", f"expected at least 1 (the verified token), got {accept!r}"))
    if completed == 0:
        errors.append(("completed", "no request completed"))
    if errors:
        return errors
    derived: list[str] = []
    notes: list[str] = []
    if len(lines) > 1:
        notes.append(f"the file holds {len(lines)} results, one a line: its last, the newest, was read")
    lengths = (
        _average(total_in, completed, "input_len", derived),
        _average(total_out, completed, "output_len", derived),
    )
    return _serving_result(
        (output_tps, ttft, tpot),
        concurrency,
        lengths,
        derived,
        notes,
        engine=server or "sglang",
        engine_version=None,
        model=None,
        speculative=accept is not None,
        acceptance_length=accept,
        speculative_sign="SGLang's accept_length" if accept is not None else "",
    )


# --- llama-bench -o json / jsonl -----------------------------------------------------


def _llama_records(text: str) -> tuple[list[Any], Errors]:
    """The records of ``-o json`` (a list, or one object) or ``-o jsonl`` (one per line), and the errors."""
    data, errors = _load_json(text)
    if errors and isinstance(text, str) and text.strip():
        records: list[Any] = []
        for number, line in enumerate(text.strip().splitlines(), start=1):
            if json_too_deep(line):
                return [], [("file", f"line {number}: nested deeper than {MAX_JSON_DEPTH} levels")]
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                return [], errors if number == 1 else [("file", f"line {number}: not JSON")]
        data, errors = records, []
    if errors:
        return [], errors
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not data:
        return [], [("file", "expected the list of records `llama-bench -o json` prints")]
    return data, []


def _llama_row(record: dict[str, Any], where: str, errors: Errors) -> tuple[float, float, float, float | None] | None:
    """A record's sizes and speed (n_prompt, n_gen, avg_ts, n_depth); None (errors named) when one is bad."""
    row_errors: Errors = []
    n_prompt = _number(record, "n_prompt", row_errors, required=True, integer=True)
    n_gen = _number(record, "n_gen", row_errors, required=True, integer=True)
    avg_ts = _number(record, "avg_ts", row_errors, required=True, allow_zero=False)
    n_depth = _number(record, "n_depth", row_errors, required=False, integer=True)
    errors.extend((f"{where}.{key}", msg) for key, msg in row_errors)
    if row_errors or n_prompt is None or n_gen is None or avg_ts is None:
        return None
    return n_prompt, n_gen, avg_ts, n_depth


def _llama_meta(record: dict[str, Any], models: set[str], commits: set[str]) -> str | None:
    """The record's model and build, noted; its test time, if it says."""
    name = record.get("model_type") or record.get("model_filename")
    if isinstance(name, str) and name:
        models.add(name)
    commit = record.get("build_commit")
    if isinstance(commit, str) and commit:
        build = record.get("build_number")
        commits.add(f"{commit} (build {build})" if isinstance(build, int) else commit)
    return record["test_time"] if isinstance(record.get("test_time"), str) else None


# llama.cpp's names of its file types (``llama_model_ftype_name``), which end
# llama-bench's model_type ("qwen3moe 30B.A3B Q4_K - Medium"): the catalogue's
# format for each. Longest first, so "Q2_K - Small" is not read as "Q2_K".
_FTYPES = {
    "Q2_K - Small": "Q2_K_S",
    "Q2_K - Medium": "Q2_K",
    "Q3_K - Small": "Q3_K_S",
    "Q3_K - Medium": "Q3_K_M",
    "Q3_K - Large": "Q3_K_L",
    "Q4_K - Small": "Q4_K_S",
    "Q4_K - Medium": "Q4_K_M",
    "Q5_K - Small": "Q5_K_S",
    "Q5_K - Medium": "Q5_K_M",
    "IQ1_S - 1.5625 bpw": "IQ1_S",
    "IQ1_M - 1.75 bpw": "IQ1_M",
    "IQ2_XXS - 2.0625 bpw": "IQ2_XXS",
    "IQ2_XS - 2.3125 bpw": "IQ2_XS",
    "IQ2_S - 2.5 bpw": "IQ2_S",
    "IQ2_M - 2.7 bpw": "IQ2_M",
    "IQ3_XXS - 3.0625 bpw": "IQ3_XXS",
    "IQ3_XS - 3.3 bpw": "IQ3_XS",
    "IQ3_S - 3.4375 bpw": "IQ3_S",
    "IQ3_S mix - 3.66 bpw": "IQ3_M",
    "IQ4_NL - 4.5 bpw": "IQ4_NL",
    "IQ4_XS - 4.25 bpw": "IQ4_XS",
    "MXFP4 MoE": "MXFP4_MOE",
    "Q4_0": "Q4_0",
    "Q6_K": "Q6_K",
    "Q8_0": "Q8_0",
    "BF16": "bf16",
    "F16": "F16",
}


def llama_ftype(model_type: str | None) -> str | None:
    """The catalogue's format of a llama-bench model_type, from the llama.cpp
    file-type name it ends with; None when it names none the catalogue knows."""
    if not model_type:
        return None
    for name in sorted(_FTYPES, key=len, reverse=True):
        if model_type == name or model_type.endswith(f" {name}"):
            return _FTYPES[name]
    return None


def parse_llama_bench_json(text: str) -> BenchResult | Errors:
    """`llama-bench -o json` (a list of records) or `-o jsonl` (one per line).

    pp rows (n_prompt > 0, n_gen = 0) give prefill tok/s, tg rows (n_gen > 0,
    n_prompt = 0) decode tok/s; with several sizes the largest is kept.
    """
    data, errors = _llama_records(text)
    if errors:
        return errors

    pp: list[tuple[int, float]] = []
    tg: list[tuple[int, float]] = []
    models: set[str] = set()
    commits: set[str] = set()
    notes: list[str] = []
    date: str | None = None
    for i, record in enumerate(data):
        where = f"record {i + 1}"
        if not isinstance(record, dict):
            errors.append((where, "not an object"))
            continue
        row = _llama_row(record, where, errors)
        if row is None:
            continue
        n_prompt, n_gen, avg_ts, n_depth = row
        date = _llama_meta(record, models, commits) or date
        if n_depth:
            notes.append(f"{where}: measured at context depth {int(n_depth)}")
        if n_prompt > 0 and n_gen == 0:
            pp.append((int(n_prompt), avg_ts))
        elif n_gen > 0 and n_prompt == 0:
            tg.append((int(n_gen), avg_ts))
        else:
            notes.append(f"{where}: combined pp+tg test ignored")
    if errors:
        return errors
    if len(models) > 1:
        return [("model_type", f"several models in one file: {', '.join(sorted(models))}")]
    if not pp and not tg:
        return [("file", "no pp (prompt) or tg (generation) test found")]
    prompt = max(pp) if pp else None
    gen = max(tg) if tg else None
    derived = []
    tpot = None
    ttft = None
    if gen:
        tpot = 1000.0 / gen[1]
        derived.append("tpot_ms")
    if prompt:
        ttft = prompt[0] / prompt[1] * 1000.0
        derived.append("ttft_ms")
    return BenchResult(
        prefill_tps=prompt[1] if prompt else None,
        decode_tps=gen[1] if gen else None,
        ttft_ms=ttft,
        tpot_ms=tpot,
        concurrency=1,
        input_len=prompt[0] if prompt else None,
        output_len=gen[0] if gen else None,
        engine="llama.cpp",
        engine_version=", ".join(sorted(commits)) or None,
        model=next(iter(models)) if models else None,
        measured_at=date,
        derived=tuple(derived),
        notes=tuple(notes),
        quantization=llama_ftype(next(iter(models))) if models else None,
    )


# --- vLLM bench serve console summary ---------------------------------------------

_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9 .()/%-]*?)\s*:\s*(\S+)\s*$")
# console label -> field name used in error messages
_LABELS = {
    "Successful requests": "completed",
    "Maximum request concurrency": "max_concurrency",
    "Total input tokens": "total_input_tokens",
    "Total generated tokens": "total_output_tokens",
    "Output token throughput (tok/s)": "output_throughput",
    "Mean TTFT (ms)": "mean_ttft_ms",
    "Mean TPOT (ms)": "mean_tpot_ms",
    # the "Speculative Decoding" section vLLM prints when the server drafted tokens
    "Acceptance rate (%)": "spec_decode_acceptance_rate",
    "Acceptance length": "spec_decode_acceptance_length",
    "Drafts": "spec_decode_num_drafts",
}


def parse_vllm_bench_text(
    text: str, *, model: str | None = None, engine_version: str | None = None
) -> BenchResult | Errors:
    """The summary `vllm bench serve` prints ("Output token throughput (tok/s): 62.38"...).

    The console does not print the model or the version: pass them if known.
    """
    if not isinstance(text, str) or not text.strip():
        return [("file", "empty")]
    found: dict[str, str] = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if match and match.group(1) in _LABELS:
            found[_LABELS[match.group(1)]] = match.group(2)
    if "output_throughput" not in found and "mean_ttft_ms" not in found:
        return [("file", "no 'Serving Benchmark Result' summary found")]
    values: dict[str, float | str] = {}
    for key, raw in found.items():
        try:
            values[key] = float(raw)
        except ValueError:
            values[key] = raw  # reported below as "expected a number"
    as_json = dict(values)
    if model is not None:
        as_json["model_id"] = model
    if engine_version is not None:
        as_json["vllm_version"] = engine_version
    result = parse_vllm_bench_json(json.dumps(as_json))
    if isinstance(result, list):
        # name the console label the user sees next to the JSON key
        label_of = {v: k for k, v in _LABELS.items()}
        return [(label_of.get(key, key), msg) for key, msg in result]
    return result


# console label -> the key of its figure in sglang.bench_serving's JSONL
_SGLANG_LABELS = {
    "Backend": "backend",
    "Max request concurrency": "max_concurrency",
    "Successful requests": "completed",
    "Total input tokens": "total_input_tokens",
    "Total generated tokens": "total_output_tokens",
    "Total generated tokens (retokenized)": "total_output_tokens_retokenized",
    "Output token throughput (tok/s)": "output_throughput",
    "Accept length": "accept_length",
    "Mean E2E Latency (ms)": "mean_e2e_latency_ms",
    "Mean TTFT (ms)": "mean_ttft_ms",
    "Mean TPOT (ms)": "mean_tpot_ms",
}
_SGLANG_TEXT = ("backend",)  # read as text; every other figure as a number


def parse_sglang_bench_text(text: str) -> BenchResult | Errors:
    """The summary `python -m sglang.bench_serving` prints ("Output token
    throughput (tok/s): 254.30"...; "Max request concurrency: not set", a line
    not read, when uncapped), read as its JSONL line. Where it prints no mean TPOT, TPOT is
    derived from the mean end-to-end latency less the mean TTFT over the
    average output length less its first token (exact when every request
    asked for the same length)."""
    if not isinstance(text, str) or not text.strip():
        return [("file", "empty")]
    found: dict[str, Any] = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if match and match.group(1) in _SGLANG_LABELS:
            key, raw = _SGLANG_LABELS[match.group(1)], match.group(2)
            found[key] = raw
    if "total_output_tokens_retokenized" not in found:
        return [("file", "no sglang.bench_serving summary found (no 'Total generated tokens (retokenized)')")]
    for key, raw in found.items():
        if key in _SGLANG_TEXT:
            continue
        try:
            found[key] = float(raw)
        except ValueError:
            pass  # reported by the JSONL reader as "expected a number"
    derived: tuple[str, ...] = ()
    if "mean_tpot_ms" not in found:
        tpot = _tpot_of(found)
        if tpot is not None:
            found["mean_tpot_ms"], derived = tpot, ("tpot_ms",)
    found.setdefault("accept_length", None)
    result = parse_sglang_bench_jsonl(json.dumps(found))
    if isinstance(result, list):
        label_of = {v: k for k, v in _SGLANG_LABELS.items()}
        return [(label_of.get(key, key), msg) for key, msg in result]
    return replace(result, derived=(*result.derived, *derived)) if derived else result


def _tpot_of(found: dict[str, Any]) -> float | None:
    """Mean TPOT from the summary's mean E2E latency and TTFT and its average output length, or None."""
    figures = [found.get(k) for k in ("mean_e2e_latency_ms", "mean_ttft_ms", "total_output_tokens", "completed")]
    if not all(isinstance(v, float) and math.isfinite(v) for v in figures):
        return None
    e2e, ttft, total, completed = (float(v) for v in figures)  # type: ignore[arg-type]
    if not completed or total / completed <= 1 or e2e < ttft:
        return None
    return (e2e - ttft) / (total / completed - 1)
