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

import json
import re
import shlex
from dataclasses import dataclass
from typing import Any

from core.validation import json_too_deep
from placement.launch import DEFAULT_VLLM_IMAGE, LaunchSettings, shell_path
from telemetry import docker_start
from telemetry.remote import Outcome

from .parsers import BenchResult, parse_vllm_bench_text

SERVE_URL = "http://127.0.0.1:8000"  # launch.SERVE_PORT on the head node
LIMITS = {"concurrency": (1, 256), "input_len": (1, 131_072), "output_len": (1, 16_384), "num_prompts": (1, 1000)}
_VERSION = re.compile(r"^\s*v?(\d+\.\d+[\w.+-]*)\s*$")
_SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]{0,99}$")
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$")
_BASE_URL = re.compile(r"^http://[A-Za-z0-9][A-Za-z0-9.-]{0,252}:[0-9]{1,5}$")
_IMAGE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}$")
# The Hugging Face cache the launches mount: the client's tokenizer is read from
# it, as the server's weights are.
HF_CACHE = shell_path(LaunchSettings().hf_cache)
VERSION_MARK = "@@bench:version"
RESULT_MARK = "@@bench:result"
# What the server measured says it is, asked before the benchmark (curl's body
# after each mark, nothing when it does not answer): every OpenAI-compatible
# server lists its models, and the ``owned_by`` of vLLM's, SGLang's and
# llama.cpp's names the engine; vLLM gives its version at /version, SGLang its
# version and server arguments at /get_server_info (docs/operations.md).
SERVER_MARK = "@@bench:server"
SERVER_VERSION_MARK = "@@bench:server-version"
SERVER_INFO_MARK = "@@bench:server-info"
PROBES = ((SERVER_MARK, "/v1/models"), (SERVER_VERSION_MARK, "/version"), (SERVER_INFO_MARK, "/get_server_info"))
PROBE_BYTES = 65_536


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
    # where vLLM's client runs when the head node has no ``vllm`` on its PATH (NVIDIA's
    # playbooks and this app's launches run vLLM in a container): the launch image
    image: str = DEFAULT_VLLM_IMAGE


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
    if not isinstance(spec.image, str) or not _IMAGE.match(spec.image):
        problems.append(("image", "must be an image reference (FLEET_VLLM_IMAGE), nothing else"))
    return problems


def bench_command(spec: BenchSpec) -> str:
    """The one command a run executes (the version first, then the benchmark)."""
    problems = bench_problems(spec)
    if problems:
        raise ValueError("; ".join(f"{f}: {m}" for f, m in problems))
    q = shlex.quote
    probes = "".join(
        f"echo {mark}; curl -sf -m 5 {q(spec.base_url + path)} 2>/dev/null | head -c {PROBE_BYTES}; echo; "
        for mark, path in PROBES
    )
    # vLLM's client: the head node's own, else the one in the launch image (never pulled
    # here), on the host's network, with the cache and HF_TOKEN (passed from the node's
    # environment when set, never written into the command)
    client = (
        'vc() { if command -v vllm >/dev/null 2>&1; then vllm "$@"; else docker run --rm --pull never '
        f'--network host -e HF_TOKEN -v {HF_CACHE}:/root/.cache/huggingface {q(spec.image)} vllm "$@"; fi; }}; '
    )
    return (
        f"export LC_ALL=C; {client}"
        f"echo {VERSION_MARK}; vc --version 2>/dev/null || true; {probes}echo {RESULT_MARK}; "
        f"vc bench serve --backend vllm --base-url {q(spec.base_url)} --model {q(spec.model_ref)} "
        f"--served-model-name {q(spec.slug)} --dataset-name random "
        f"--random-input-len {spec.input_len} --random-output-len {spec.output_len} "
        f"--max-concurrency {spec.concurrency} --num-prompts {spec.num_prompts}"
    )


_CLIENT_FIX = {
    "absent": "neither vllm nor docker is on the fleet user's PATH on {head}; install vLLM there, or Docker with "
    "the launch image {image}",
    "image": "the launch image {image} is not on {head}, and a run never pulls it; run `docker pull {image}` there "
    "(or install vLLM on {head} itself)",
    "denied": "the fleet's SSH user may not use Docker on {head}; add it to the docker group there (or install "
    "vLLM on {head} itself)",
    "unreachable": "Docker's daemon does not answer on {head}; start it there (or install vLLM on {head} itself)",
}


def explain_failure(error: str, *, head: str, image: str) -> str:
    """A failed command's error with what it means for the client, when the
    shell or Docker said why it could not start (``telemetry.docker_start``;
    their own words kept after it): no ``docker`` either, the launch image
    absent (``--pull never``), Docker's socket refused to the fleet user or
    its daemon down."""
    fix = _CLIENT_FIX.get(docker_start.reading(Outcome.exit_status(error), error))
    if fix is None:
        return error
    return f"the benchmark client could not start: {fix.format(head=head, image=image)} ({error})"


def _sections(head: str) -> dict[str, str]:
    """What followed each mark before the result, by mark (a mark on a line of its own)."""
    marks = {VERSION_MARK, *(mark for mark, _ in PROBES)}
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in head.splitlines():
        if line.strip() in marks:
            current = sections.setdefault(line.strip(), [])
        elif current is not None:
            current.append(line)
    return {mark: "\n".join(lines).strip() for mark, lines in sections.items()}


def _version(text: str) -> str | None:
    for line in text.splitlines():
        match = _VERSION.match(line)
        if match:
            return match.group(1)
    return None


def read_output(text: str, *, model: str) -> BenchResult | list[tuple[str, str]]:
    """The version line and the console summary, as one BenchResult or errors
    (the client's version: what the server is, ``read_server`` says)."""
    head, found, body = text.partition(RESULT_MARK)
    version = _version(_sections(head).get(VERSION_MARK, "")) if found else None
    return parse_vllm_bench_text(body if found else text, model=model, engine_version=version)


# the engines a server's model list names itself by (``owned_by``), in vLLM's,
# SGLang's and llama.cpp's own sources (docs/operations.md)
OWNERS = {"vllm": "vllm", "sglang": "sglang", "llamacpp": "llama.cpp"}
# SGLang's --speculative-algorithm as /get_server_info gives it, as the records
# name it (SGLang reports NEXTN, its name for MTP, as EAGLE: recorded as EAGLE)
SGLANG_SPECULATIVE = {
    "EAGLE": "eagle",
    "EAGLE3": "eagle3",
    "NEXTN": "nextn",
    "FROZEN_KV_MTP": "mtp",
    "DFLASH": "dflash",
    "STANDALONE": "draft",
    "NGRAM": "ngram",
}


@dataclass(frozen=True)
class ServerSaid:
    """What the measured server said it is, before the benchmark."""

    engine: str | None  # the engine it named itself ("other": one this app does not know), None: it did not say
    named: str = ""  # its own word for itself (``owned_by``)
    version: str | None = None  # the server's own version, when it gave one
    mode: str = ""  # SGLang: "eager" under --disable-cuda-graph, else "graphs"; "": not said
    speculative: str = ""  # SGLang: its speculative algorithm as the records name it; "": none said
    layout: str = ""  # SGLang: its parallel sizes in words ("tp 2, pp 1, dp 1")
    sizes: tuple[int, int, int] | None = None  # SGLang: (tp, pp, dp) when it gave all three, each 1 or more


def _json(text: str) -> dict[str, Any]:
    if json_too_deep(text):
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def read_server(text: str) -> ServerSaid:
    """What the server at the benchmark's URL said it is (``PROBES``), from
    the command's output; a server that said nothing is ``engine=None``."""
    head, found, _ = text.partition(RESULT_MARK)
    if not found:
        return ServerSaid(None)
    sections = _sections(head)
    models = _json(sections.get(SERVER_MARK, "")).get("data")
    first = models[0] if isinstance(models, list) and models and isinstance(models[0], dict) else {}
    named = first.get("owned_by")
    if not isinstance(named, str) or not named.strip():
        return ServerSaid(None)
    named = named.strip()[:40]
    engine = OWNERS.get(named.lower(), "other")
    if engine == "vllm":
        version = _version(str(_json(sections.get(SERVER_VERSION_MARK, "")).get("version", "")))
        return ServerSaid(engine, named, version)
    if engine != "sglang":
        return ServerSaid(engine, named)
    info = _json(sections.get(SERVER_INFO_MARK, ""))
    graphs = info.get("disable_cuda_graph")
    algorithm = info.get("speculative_algorithm")
    speculative = ""
    if isinstance(algorithm, str) and algorithm.strip() and algorithm.strip().upper() != "NONE":
        speculative = SGLANG_SPECULATIVE.get(algorithm.strip().upper(), "unnamed")
    given = {key: info.get(key) for key in ("tp_size", "pp_size", "dp_size")}
    numbers = {k: v for k, v in given.items() if isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 1024}
    words = ", ".join(f"{k.removesuffix('_size')} {v}" for k, v in numbers.items())
    return ServerSaid(
        engine,
        named,
        _version(str(info.get("version", ""))),
        ("eager" if graphs else "graphs") if isinstance(graphs, bool) else "",
        speculative,
        words,
        (numbers["tp_size"], numbers["pp_size"], numbers["dp_size"]) if len(numbers) == 3 else None,
    )
