"""The benchmark a run executes over SSH: the fixed command and the reading of
what it printed (the exec itself is ``telemetry.remote.run_command``).

The command is a constant template: only whole numbers checked here and the
model's slug and Hugging Face name (both passed through ``shlex.quote``) are
put into it, so a run can never become arbitrary command execution. The SSH
side follows ``telemetry.poller``: the fleet's key only (no agent, no
~/.ssh/config), and the host key must be the one an admin accepted; without
an accepted key nothing is sent. Output is read up to a bound.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from .parsers import BenchResult, parse_vllm_bench_text

SERVE_URL = "http://127.0.0.1:8000"  # launch.SERVE_PORT on the head node
LIMITS = {"concurrency": (1, 256), "input_len": (1, 131_072), "output_len": (1, 16_384), "num_prompts": (1, 1000)}
_VERSION = re.compile(r"^\s*v?(\d+\.\d+[\w.+-]*)\s*$")
_SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]{0,99}$")
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$")
_BASE_URL = re.compile(r"^http://[A-Za-z0-9][A-Za-z0-9.-]{0,252}:[0-9]{1,5}$")
VERSION_MARK = "@@bench:version"
RESULT_MARK = "@@bench:result"


@dataclass(frozen=True)
class BenchSpec:
    """What one run measures (validated by ``bench_problems``)."""

    slug: str
    model_ref: str  # the tokenizer/model name vllm bench serve loads
    concurrency: int = 1
    input_len: int = 128
    output_len: int = 128
    num_prompts: int = 10
    base_url: str = SERVE_URL  # the OpenAI-compatible server measured (a serving's URL)


def bench_problems(spec: BenchSpec) -> list[tuple[str, str]]:
    problems = []
    for name, (low, high) in LIMITS.items():
        value = getattr(spec, name)
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            problems.append((name, f"must be a whole number from {low:,} to {high:,}"))
    if not _SLUG.match(spec.slug):
        problems.append(("model", "slug has characters a command line must not carry"))
    if not _REPO.match(spec.model_ref):
        problems.append(("model", "Hugging Face name has characters a command line must not carry"))
    match = _BASE_URL.match(spec.base_url) if isinstance(spec.base_url, str) else None
    if match is None or not 0 < int(spec.base_url.rsplit(":", 1)[1]) < 65536:
        problems.append(("base_url", "must be http://host:port (a server's address and port, nothing else)"))
    return problems


def bench_command(spec: BenchSpec) -> str:
    """The one command a run executes (the version first, then the benchmark)."""
    problems = bench_problems(spec)
    if problems:
        raise ValueError("; ".join(f"{f}: {m}" for f, m in problems))
    q = shlex.quote
    return (
        "export LC_ALL=C; "
        f"echo {VERSION_MARK}; vllm --version 2>/dev/null || true; echo {RESULT_MARK}; "
        f"vllm bench serve --backend vllm --base-url {q(spec.base_url)} --model {q(spec.model_ref)} "
        f"--served-model-name {q(spec.slug)} --dataset-name random "
        f"--random-input-len {spec.input_len} --random-output-len {spec.output_len} "
        f"--max-concurrency {spec.concurrency} --num-prompts {spec.num_prompts}"
    )


def read_output(text: str, *, model: str) -> BenchResult | list[tuple[str, str]]:
    """The version line and the console summary, as one BenchResult or errors."""
    version = None
    head, found, body = text.partition(RESULT_MARK)
    if found:
        for line in head.partition(VERSION_MARK)[2].splitlines():
            match = _VERSION.match(line)
            if match:
                version = match.group(1)
                break
    else:
        body = text
    return parse_vllm_bench_text(body, model=model, engine_version=version)
