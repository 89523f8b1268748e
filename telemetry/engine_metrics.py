"""Live figures of a serving engine from its Prometheus ``/metrics`` text.

Reads vLLM's and SGLang's own names (plain data in, plain data out: no
Django, no network):

============================  ===============================  ==============================
figure                        vLLM                             SGLang
============================  ===============================  ==============================
requests running              ``vllm:num_requests_running``    ``sglang:num_running_reqs``
requests waiting              ``vllm:num_requests_waiting``    ``sglang:num_queue_reqs``
generated tokens (counter)    ``vllm:generation_tokens_total`` ``sglang:generation_tokens_total``
prompt tokens (counter)       ``vllm:prompt_tokens_total``     ``sglang:prompt_tokens_total``
============================  ===============================  ==============================

(vLLM: docs.vllm.ai "Production Metrics"; SGLang: docs.sglang.ai
"Production Metrics".) An engine with several label sets (data-parallel
engines, several served names) is summed, or only ``model``'s series are read
when a model name is given. Tokens per second come from two readings of the
generated-tokens counter (``tokens_per_second``): a counter that went down
means the engine restarted in between, and gives no figure.
"""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

ENGINES = ("vllm", "sglang")
_NAMES = {
    "vllm": {
        "running": "vllm:num_requests_running",
        "waiting": "vllm:num_requests_waiting",
        "generation": "vllm:generation_tokens_total",
        "prompt": "vllm:prompt_tokens_total",
    },
    "sglang": {
        "running": "sglang:num_running_reqs",
        "waiting": "sglang:num_queue_reqs",
        "generation": "sglang:generation_tokens_total",
        "prompt": "sglang:prompt_tokens_total",
    },
}
MAX_TEXT = 4 * 1024 * 1024  # an engine's /metrics is tens of kB; more is not read


@dataclass(frozen=True)
class EngineReading:
    """One scrape of one engine. A figure the text does not carry is None."""

    engine: str  # "vllm" or "sglang"
    running: float | None
    waiting: float | None
    generation_tokens_total: float | None
    prompt_tokens_total: float | None


def parse_engine_metrics(text: str, *, model: str | None = None) -> EngineReading | None:
    """The reading in ``text``, or None when it is not an engine's metrics
    (not Prometheus text, too long, or no vLLM or SGLang series)."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        return None
    sums: dict[str, float] = {}
    try:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if model is not None and sample.labels.get("model_name", model) != model:
                    continue
                sums[sample.name] = sums.get(sample.name, 0.0) + float(sample.value)
    except (ValueError, TypeError, IndexError):
        return None
    for engine in ENGINES:
        names = _NAMES[engine]
        if any(name in sums for name in names.values()):
            return EngineReading(
                engine=engine,
                running=sums.get(names["running"]),
                waiting=sums.get(names["waiting"]),
                generation_tokens_total=sums.get(names["generation"]),
                prompt_tokens_total=sums.get(names["prompt"]),
            )
    return None


def tokens_per_second(earlier: EngineReading, later: EngineReading, seconds: float) -> float | None:
    """Generated tokens per second between two readings ``seconds`` apart, or
    None when either lacks the counter, the time is not positive, the engine
    changed, or the counter went down (the engine restarted in between)."""
    a, b = earlier.generation_tokens_total, later.generation_tokens_total
    if a is None or b is None or earlier.engine != later.engine or not seconds > 0 or b < a:
        return None
    return (b - a) / seconds
