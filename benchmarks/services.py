"""Writes of benchmark records: entered by hand, uploaded (vllm bench serve
JSON or console, llama-bench JSON), or run over SSH on a booked group.

Every record keeps the group's topology at the time (kind, node names,
slowest link), the model, the engine and the collective backend actually
used. Input is checked field by field (numbers must be numbers, not strings)
and nothing is stored when anything is wrong.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from core.actor import Actor
from inventory.models import NodeGroup
from placement.errors import PlacementError
from placement.models import LlmModel
from placement.perfmodel import compute_ceiling_tps, known_formats, variant_spec
from placement.quants import canonical_quantization
from placement.selectors import groupspec_for, live_group_or_error, model_get

from .errors import BenchmarkError
from .models import BenchmarkRun
from .parsers import (
    BenchResult,
    parse_llama_bench_json,
    parse_sglang_bench_jsonl,
    parse_sglang_bench_text,
    parse_vllm_bench_json,
    parse_vllm_bench_text,
)

Errors = list[tuple[str, str]]
NUMBERS = ("prefill_tps", "decode_tps", "ttft_ms", "tpot_ms")
WHOLE = {
    "tp": 1024,
    "pp": 1024,
    "copies": 1024,
    "concurrency": 100_000,
    "input_len": 4_194_304,
    "output_len": 4_194_304,
}
FORMATS = ("auto", "vllm-json", "vllm-console", "llama-bench-json", "sglang-jsonl", "sglang-console")
KINDS = [k for k, _ in NodeGroup.Kind.choices]
ACCEPTED = {
    "source",
    "reference",
    "group",
    "nodes",
    "topology_kind",
    "node_count",
    "model",
    "engine",
    "engine_version",
    "backend",
    "quantization",
    "mode",
    "checkpoint",
    "speculative",
    "acceptance_length",
    "acceptance_rate",
    "tp",
    "pp",
    "copies",
    "concurrency",
    "input_len",
    "output_len",
    *NUMBERS,
    "measured_at",
    "notes",
    "derived",
}


# The least a figure may be when given, and why: a TPOT of 1e-320 ms once made one
# stream's speed infinite and every plan answer 500 (the calibration took its log).
FLOORS = {
    "tpot_ms": (0.05, "below 0.05 ms a token: faster than 20,000 tok/s for one stream, which no Spark decodes"),
    "ttft_ms": (0.05, "below 0.05 ms to the first token, which no engine answers in"),
}

# a record's time may run this far ahead of the app's clock (two machines' clocks)
CLOCK_SKEW = timedelta(minutes=5)


def _number(data: dict[str, Any], key: str, errors: Errors, *, required: bool = False) -> float | None:
    value = data.get(key)
    if value is None or value == "":
        if required:
            errors.append((key, "required"))
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        errors.append((key, f"must be a number, not {type(value).__name__} {value!r}"[:120]))
        return None
    if not math.isfinite(value) or value < 0 or value > 1e9:
        errors.append((key, f"must be a number from 0 to 1e9, got {value!r}"))
        return None
    if key in FLOORS and value == 0:
        return None  # not measured: vLLM prints a TPOT of 0 for a run of one output token
    if key in FLOORS and value < FLOORS[key][0]:
        errors.append((key, f"{value!r} is {FLOORS[key][1]}"[:160]))
        return None
    return float(value)


def _whole(data: dict[str, Any], key: str, errors: Errors, *, default: int | None = None) -> int | None:
    value: object = data.get(key)
    if value is None or value == "":
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= WHOLE[key]:
        errors.append((key, f"must be a whole number from 1 to {WHOLE[key]:,}, got {value!r}"[:120]))
        return default
    return value


def _text(data: dict[str, Any], key: str, errors: Errors, limit: int) -> str:
    value = data.get(key) or ""
    if not isinstance(value, str):
        errors.append((key, "must be text"))
        return ""
    if len(value) > limit:
        errors.append((key, f"at most {limit} characters"))
    return value.strip()


def _choice(data: dict[str, Any], key: str, errors: Errors, choices: list[str], default: str) -> str:
    value = data.get(key) or default
    if value not in choices:
        errors.append((key, f"one of {', '.join(choices)}"))
        return default
    return str(value)


def _format(data: dict[str, Any], model: LlmModel | None, errors: Errors) -> str:
    """The weights' format that ran, as the catalogue spells it (any case
    given): blank, or a format the model has a variant of."""
    value = data.get("quantization") or ""
    if not isinstance(value, str):
        errors.append(("quantization", "must be text: the weights' format that ran, such as nvfp4 or Q4_K_M"))
        return ""
    name = canonical_quantization(value)
    if not name or model is None:
        return name
    spec = model.spec()
    if variant_spec(spec, name) is None:
        known = ", ".join(known_formats(spec))
        errors.append(("quantization", f"{model.name} has no {name!r} variant; one of {known} (or blank: not stated)"))
        return ""
    return name


# a Hugging Face repository id (org/name, as the Hub allows them) or an absolute path on the nodes
_CHECKPOINT = re.compile(r"(?:[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}|/[A-Za-z0-9._/-]{1,199})")
CHECKPOINT_WORDS = (
    "a Hugging Face repository (org/name, such as RedHatAI/Qwen3.6-35B-A3B-NVFP4) or an absolute path on the "
    "nodes; blank: not stated"
)


def _checkpoint(data: dict[str, Any], errors: Errors) -> str:
    """The checkpoint that ran, as given: a repository id or a path, nothing else."""
    value = data.get("checkpoint") or ""
    if not isinstance(value, str) or len(value) > 200 or (value and not _CHECKPOINT.fullmatch(value)):
        errors.append(("checkpoint", f"must be {CHECKPOINT_WORDS}"))
        return ""
    return value


def _mode(data: dict[str, Any], errors: Errors) -> str:
    value = data.get("mode") or ""
    if value not in BenchmarkRun.Mode.values:
        errors.append(
            ("mode", "graphs (CUDA graphs, the engines' default) or eager (--enforce-eager); blank: not known")
        )
        return ""
    return str(value)


SPECULATIVE_WORDS = (
    "the speculative decoding the run used: one of mtp, eagle, eagle3, nextn, dflash, ngram, draft (a draft "
    "model) or unnamed (any case); blank or none: none"
)


def _speculative(data: dict[str, Any], errors: Errors) -> dict[str, Any]:
    """The speculative decoding a run used, and vLLM's acceptance figures of
    it: a method the record knows (any case), an acceptance length of at
    least the verified token (at most 64) and a rate in percent; figures
    without a method are refused (they belong to a speculative run)."""
    value = data.get("speculative") or ""
    method = value.strip().lower() if isinstance(value, str) else None
    method = "" if method == "none" else method
    if method is None or method not in BenchmarkRun.Speculative.values:
        errors.append(("speculative", f"must be {SPECULATIVE_WORDS}"))
        method = ""
    out: dict[str, Any] = {"speculative": method}
    for key, low, high, words in (
        ("acceptance_length", 1, 64, "tokens a verification step kept, the verified one included: 1 to 64"),
        ("acceptance_rate", 0, 100, "the share of draft tokens accepted, in percent: 0 to 100"),
    ):
        number = data.get(key)
        if number is None or number == "":
            out[key] = None
            continue
        if isinstance(number, bool) or not isinstance(number, int | float) or not low <= number <= high:
            errors.append((key, f"must be {words}, got {number!r}"[:160]))
            out[key] = None
            continue
        out[key] = float(number)
        if not method:
            errors.append((key, "belongs to a run with speculative decoding: name its method in speculative"))
    return out


def _when(value: Any, errors: Errors, key: str = "measured_at") -> datetime:
    if value is None or value == "":
        return timezone.now()
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    parsed = None
    if isinstance(value, str):
        try:
            parsed = parse_datetime(value.strip()) or datetime.strptime(value.strip(), "%Y%m%d-%H%M%S")
        except ValueError:
            parsed = None
    if parsed is None:
        errors.append((key, f"not a date and time: {value!r}"[:120]))
        return timezone.now()
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _where(data: dict[str, Any], source: str, errors: Errors) -> dict[str, Any]:
    """Group snapshot (measured) or topology kind and node count (published)."""
    group_id = data.get("group")
    if source == BenchmarkRun.Source.PUBLISHED and group_id not in (None, ""):
        errors.append(
            (
                "group",
                "a published figure was not measured on a group of this lab: give topology_kind and node_count instead",
            )
        )
        return {}
    if group_id in (None, ""):
        if source == BenchmarkRun.Source.MEASURED:
            errors.append(("group", "required for a run measured here: the group it ran on"))
            return {}
        kind = _choice(data, "topology_kind", errors, KINDS, "single")
        count = data.get("node_count")
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 1024:
            errors.append(("node_count", "a published figure needs its node count (1 to 1,024)"))
            count = 1
        return {
            "group": None,
            "group_name": "",
            "topology_kind": kind,
            "group_nodes": [],
            "nodes": [],
            "node_count": count,
            "link_gbps": None,
        }
    try:
        group = live_group_or_error(group_id)
        planned = groupspec_for(group)
    except PlacementError as exc:
        errors.extend(exc.errors)
        return {}
    members = [n.name for n in planned.spec.nodes]
    used = data.get("nodes") or members
    if not isinstance(used, list | tuple) or not all(isinstance(n, str) for n in used):
        errors.append(("nodes", "a list of Spark names"))
        return {}
    for key, given, actual in (
        ("node_count", data.get("node_count"), len(used)),
        ("topology_kind", data.get("topology_kind"), planned.spec.kind),
    ):
        if given not in (None, "") and given != actual:
            errors.append(
                (
                    key,
                    f"{given!r} is not what the run had on {group.name} ({actual!r}): "
                    "a run measured here takes both from its group and nodes; leave it out",
                )
            )
    stray = [n for n in used if n not in members]
    if stray or len(set(used)) != len(used):
        errors.append(
            (
                "nodes",
                f"must be distinct Sparks of {group.name} ({', '.join(members)}); "
                f"not: {', '.join(stray) or 'a repeated name'}",
            )
        )
    return {
        "group": group,
        "group_name": group.name,
        "topology_kind": planned.spec.kind,
        "group_nodes": members,
        "nodes": list(used),
        "node_count": len(used),
        "link_gbps": planned.spec.link_gbps,
    }


def _fields(data: dict[str, Any], errors: Errors) -> dict[str, Any]:
    source = _choice(data, "source", errors, list(BenchmarkRun.Source.values), BenchmarkRun.Source.MEASURED)
    fields: dict[str, Any] = {"source": source}
    try:
        model: LlmModel | None = model_get(data.get("model"))
    except PlacementError as exc:
        errors.extend(exc.errors)
        model = None
    fields.update(model=model, model_name=model.slug if model else "")
    fields.update(_where(data, source, errors))
    fields["engine"] = _choice(data, "engine", errors, list(BenchmarkRun.Engine.values), "vllm")
    fields["backend"] = _choice(data, "backend", errors, list(BenchmarkRun.Backend.values), "unknown")
    fields["quantization"] = _format(data, model, errors)
    fields["mode"] = _mode(data, errors)
    fields["checkpoint"] = _checkpoint(data, errors)
    fields.update(_speculative(data, errors))
    fields["engine_version"] = _text(data, "engine_version", errors, 120)
    fields["reference"] = _text(data, "reference", errors, 2000)
    fields["notes"] = _text(data, "notes", errors, 2000)
    if source == BenchmarkRun.Source.PUBLISHED and not fields["reference"]:
        errors.append(("reference", "a published figure needs its reference"))
    for key in NUMBERS:
        fields[key] = _number(data, key, errors, required=key == "decode_tps")
    count = fields.get("node_count") or 1
    fields["concurrency"] = _whole(data, "concurrency", errors, default=1)
    fields["input_len"] = _whole(data, "input_len", errors)
    fields["output_len"] = _whole(data, "output_len", errors)
    # several copies behind a router, measured together: the layout is one copy's
    fields["copies"] = _whole(data, "copies", errors, default=1)
    copies = fields["copies"] or 1
    fields["pp"] = _whole(data, "pp", errors, default=1)
    # not given: one copy's share of the nodes after its pipeline stages (the node count for one copy
    # without pipeline stages)
    fields["tp"] = _whole(data, "tp", errors, default=max(1, count // (copies * (fields["pp"] or 1))))
    if (fields["tp"] or 1) * (fields["pp"] or 1) > count:
        errors.append(("tp", f"tp x pp ({fields['tp']} x {fields['pp']}) exceeds the {count} node(s) used"))
    elif copies > 1 and (fields["tp"] or 1) * (fields["pp"] or 1) * copies > count:
        errors.append(
            (
                "copies",
                f"{copies} copies of tp x pp ({fields['tp']} x {fields['pp']}) need more than the {count} node(s) used",
            )
        )
    if count == 1 and fields["backend"] not in ("none", "unknown"):
        errors.append(("backend", "a one-node run uses no collective backend: none"))
    if fields["backend"] == "rocenante" and fields.get("topology_kind") not in (None, "switched"):
        errors.append(("backend", "RoCEnante runs only on a switched group"))
    fields["measured_at"] = _when(data.get("measured_at"), errors)
    if fields["measured_at"] > timezone.now() + CLOCK_SKEW:
        errors.append(
            (
                "measured_at",
                f"{fields['measured_at'].astimezone(UTC):%Y-%m-%d %H:%M} UTC is in the future: "
                "a run is recorded once it has run",
            )
        )
    decode = fields.get("decode_tps")
    if decode is not None and decode <= 0:
        errors.append(("decode_tps", "must be above 0 tok/s: a run that decoded nothing has no speed to record"))
    elif decode is not None and model is not None and decode > (ceiling := compute_ceiling_tps(model.spec(), count)):
        errors.append(
            (
                "decode_tps",
                f"{decode:,.0f} tok/s is more than {count} Spark{'s' if count > 1 else ''} can compute for "
                f"{model.slug} ({ceiling:,.0f} at most: each token multiplies its {model.active_params_b:g} billion "
                "active weights, at 1 PFLOP a Spark, the published peak): give the decode speed of the output "
                "tokens alone",
            )
        )
    fields["derived"] = [str(d) for d in data.get("derived", ())]
    return fields


def benchmark_create(*, actor: Actor, data: dict[str, Any]) -> BenchmarkRun:
    """A record from fields (the form and POST /api/benchmarks)."""
    errors: Errors = [(k, "not a benchmark field") for k in sorted(set(data) - ACCEPTED)]
    fields = _fields(data, errors)
    if errors:
        raise BenchmarkError(errors)
    if fields["node_count"] == 1 and fields["backend"] == "unknown":
        fields["backend"] = "none"
    return BenchmarkRun.objects.create(
        **fields, status=BenchmarkRun.Status.DONE, created_by=actor.known_user, created_by_name=actor.username
    )


def parse_upload(text: Any, fmt: str, path: str = "content") -> BenchResult:
    """One BenchResult from an uploaded file, or PlacementError naming the field."""
    if fmt not in FORMATS:
        raise BenchmarkError(f"one of {', '.join(FORMATS)}", "format")
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if isinstance(text, str):
        text = text.removeprefix("\ufeff")  # a byte-order mark, as some editors save UTF-8
    if not isinstance(text, str) or not text.strip():
        raise BenchmarkError("empty: upload the JSON vllm bench serve, llama-bench or sglang.bench_serving wrote", path)
    if fmt == "auto":
        stripped = text.lstrip()
        fmt = (
            "sglang-jsonl"
            if stripped.startswith("{") and '"total_output_tokens_retokenized"' in text[:4000]
            else "llama-bench-json"
            if stripped.startswith("[") or '"n_prompt"' in text[:4000]
            else "vllm-json"
            if stripped.startswith("{")
            else "sglang-console"
            if "Total generated tokens (retokenized):" in text
            else "vllm-console"
        )
    parsers: dict[str, Callable[[str], BenchResult | Errors]] = {
        "vllm-json": parse_vllm_bench_json,
        "llama-bench-json": parse_llama_bench_json,
        "vllm-console": parse_vllm_bench_text,
        "sglang-jsonl": parse_sglang_bench_jsonl,
        "sglang-console": parse_sglang_bench_text,
    }
    result = parsers[fmt](text)
    if isinstance(result, list):
        raise BenchmarkError([(path if key in ("file", "") else f"{path}.{key}", message) for key, message in result])
    return result


def result_fields(result: BenchResult, model: LlmModel | None) -> dict[str, Any]:
    """A parsed result as record fields (what the file says; the caller adds
    the rest): a server that drafted tokens is recorded as speculative
    decoding whose method is not named, with its acceptance figures."""
    engine = "llama.cpp" if result.engine == "llama.cpp" else "sglang" if result.engine == "sglang" else "vllm"
    notes = list(result.notes)
    if result.model and model is not None and result.model not in (model.slug, model.hf_repo, model.name):
        notes.append(f"the file names the model {result.model!r}")
    fields: dict[str, Any] = {
        k: getattr(result, k) for k in (*NUMBERS, "input_len", "output_len", "acceptance_length", "acceptance_rate")
    }
    fields.update(
        engine=engine,
        engine_version=result.engine_version or "",
        derived=list(result.derived),
        notes="; ".join(notes),
        measured_at=result.measured_at,
    )
    if result.concurrency is not None:
        fields["concurrency"] = result.concurrency
    if result.speculative:
        fields["speculative"] = BenchmarkRun.Speculative.UNNAMED  # the file shows drafting, not its method
    return {k: v for k, v in fields.items() if v is not None}


def benchmark_upload(
    *, actor: Actor, text: Any, fmt: str = "auto", data: dict[str, Any], path: str = "content"
) -> BenchmarkRun:
    """A record from an uploaded result file plus what the file cannot say
    (group, model, backend; concurrency when the run did not cap it; the
    speculative method, where vLLM's file shows the server drafted tokens
    without naming how: "unnamed" when the form names none; the
    weights' format, unless llama-bench's model_type names it; the
    checkpoint, unless the file's model is a repository or a path, as vLLM's
    model_id is, and the form names none)."""
    result = parse_upload(text, fmt, path)
    try:
        model: LlmModel | None = model_get(data.get("model"))
    except PlacementError:
        model = None  # reported again, with the other fields, below
    merged = {**{k: v for k, v in data.items() if v not in (None, "")}, **result_fields(result, model)}
    if result.concurrency is None and data.get("concurrency") in (None, ""):
        raise BenchmarkError("the file does not say (max_concurrency not set): give the concurrency", "concurrency")
    if data.get("concurrency") not in (None, "") and result.concurrency is None:
        merged["concurrency"] = data["concurrency"]
    named = _file_format(result, model, data.get("quantization"))
    if named is not None:
        merged["quantization"], why = named
        if why:
            merged["notes"] = "; ".join(x for x in (merged.get("notes", ""), why) if x)
    said = data.get("speculative")
    if result.speculative and isinstance(said, str) and said.strip().lower() == "none":
        raise BenchmarkError(
            f"the file shows the server drafted tokens ({result.speculative_sign}): name the method, or leave it "
            "blank to record it as unnamed",
            "speculative",
        )
    if result.speculative and said:
        merged["speculative"] = said  # the method the form names, where the file says only that it drafted
    if not data.get("checkpoint") and result.model and _CHECKPOINT.fullmatch(result.model):
        merged["checkpoint"] = result.model  # the repository (or path) the file says the engine served
    if data.get("notes"):
        merged["notes"] = "; ".join(x for x in (str(data["notes"]), merged.get("notes", "")) if x)
    return benchmark_create(actor=actor, data=merged)


def _file_format(result: BenchResult, model: LlmModel | None, given: Any) -> tuple[str, str] | None:
    """The format an uploaded file names (llama-bench's model_type), as the
    record's ``quantization`` and a note: None when the file names none or
    the model is not known (the fields' own checks speak then). A format the
    form gives otherwise is refused, naming both; one the model has no
    variant of is recorded as not stated, and the note says which."""
    if result.quantization is None or model is None:
        return None
    if isinstance(given, str) and given.strip():
        if canonical_quantization(given) != result.quantization:
            raise BenchmarkError(
                f"the file says the weights are {result.quantization} ({result.model}); leave the format blank or "
                f"give {result.quantization}",
                "quantization",
            )
        return None
    if variant_spec(model.spec(), result.quantization) is None:
        return "", (
            f"the file names the format {result.quantization}, which {model.name} has no variant of in the "
            "catalogue: recorded as not stated"
        )
    return result.quantization, ""
