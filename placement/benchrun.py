"""A benchmark run over SSH: the fixed command, one exec on the group's head
node, and the reading of what it printed.

The command is a constant template: only whole numbers checked here and the
model's slug and Hugging Face name (both passed through ``shlex.quote``) are
put into it, so a run can never become arbitrary command execution. The SSH
side follows ``telemetry.poller``: the fleet's key only (no agent, no
~/.ssh/config), and the host key must be the one an admin accepted; without
an accepted key nothing is sent. Output is read up to a bound.
"""

from __future__ import annotations

import asyncio
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass

import asyncssh

from .benchparse import BenchResult, parse_vllm_bench_text

SERVE_URL = "http://127.0.0.1:8000"  # launch.SERVE_PORT on the head node
LIMITS = {"concurrency": (1, 256), "input_len": (1, 131_072), "output_len": (1, 16_384), "num_prompts": (1, 1000)}
_VERSION = re.compile(r"^\s*v?(\d+\.\d+[\w.+-]*)\s*$")
_SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]{0,99}$")
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$")
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
        f"vllm bench serve --backend vllm --base-url {SERVE_URL} --model {q(spec.model_ref)} "
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


@dataclass(frozen=True)
class Target:
    host: str
    port: int
    user: str


@dataclass(frozen=True)
class Outcome:
    output: str
    error: str  # "" when the command ran and exited 0


async def _run(
    target: Target,
    command: str,
    *,
    client_keys: list[str],
    accepted_key: str,
    connect_timeout: float,
    timeout: float,
    max_bytes: int,
    on_output: Callable[[str], None] | None = None,
) -> Outcome:
    known = asyncssh.import_known_hosts(f"* {accepted_key}\n")  # only this node's accepted key
    options = asyncssh.SSHClientConnectionOptions(
        client_keys=[asyncssh.read_private_key(p) for p in client_keys],
        agent_path=None,
        config=None,
        preferred_auth="publickey",
        password_auth=False,
        kbdint_auth=False,
        gss_auth=False,
        host_based_auth=False,
        connect_timeout=connect_timeout,
    )
    async with asyncssh.connect(
        target.host, target.port, username=target.user, known_hosts=known, options=options
    ) as conn:
        process = await conn.create_process(command, encoding=None)
        chunks, size = [], 0
        try:
            async with asyncio.timeout(timeout):
                while size < max_bytes:
                    data = await process.stdout.read(65536)
                    if not data:
                        break
                    chunks.append(data)
                    size += len(data)
                    if on_output is not None:
                        # in a thread: the callback may write to the database, which
                        # Django refuses from inside an event loop
                        await asyncio.to_thread(on_output, b"".join(chunks).decode(errors="replace"))
                status = await process.wait() if size < max_bytes else None
        except TimeoutError:
            process.close()
            return Outcome(b"".join(chunks).decode(errors="replace"), f"timed out after {timeout:g} s")
        text = b"".join(chunks)[:max_bytes].decode(errors="replace")
        if status is None:
            process.close()
            return Outcome(text, f"output exceeded {max_bytes} bytes: read stopped")
        if status.exit_status not in (0, None):
            stderr = (status.stderr or b"")[-300:]
            stderr_text = stderr.decode(errors="replace") if isinstance(stderr, bytes) else str(stderr)
            return Outcome(text, f"exited with status {status.exit_status}: {stderr_text.strip()}")
        return Outcome(text, "")


def run_command(
    target: Target,
    command: str,
    *,
    client_keys: list[str],
    accepted_key: str,
    connect_timeout: float = 10.0,
    timeout: float = 1800.0,
    max_bytes: int = 1_000_000,
    on_output: Callable[[str], None] | None = None,
) -> Outcome:
    """Run ``command`` once on ``target``; every failure is an Outcome error, never an exception.
    ``on_output`` gets the output so far after each chunk (progress)."""
    try:
        asyncssh.import_public_key(accepted_key)
    except (asyncssh.KeyImportError, ValueError):
        return Outcome("", "the accepted host key is not a valid OpenSSH public key")
    try:
        return asyncio.run(
            _run(
                target,
                command,
                client_keys=client_keys,
                accepted_key=accepted_key,
                connect_timeout=connect_timeout,
                timeout=timeout,
                max_bytes=max_bytes,
                on_output=on_output,
            )
        )
    except asyncssh.HostKeyNotVerifiable:
        return Outcome("", "host key mismatch: the node presented another key than the accepted one; nothing run")
    except asyncssh.PermissionDenied:
        return Outcome("", "authentication refused: the fleet key is not authorised on the head node")
    except (OSError, asyncssh.Error, TimeoutError) as exc:
        reason = getattr(exc, "reason", "") or getattr(exc, "strerror", "") or str(exc) or type(exc).__name__
        return Outcome("", f"could not reach the head node: {reason}")
