"""A simulated inference engine: an OpenAI-compatible HTTP server on loopback
that answers as vLLM's does, for the simulated Sparks to start on a launch script.

It serves ``GET /v1/models``, ``POST /v1/completions`` and
``POST /v1/chat/completions`` (streamed as server-sent events, ``data: {...}``
chunks then ``data: [DONE]``, or one JSON answer with its usage),
``GET /metrics`` in vLLM's Prometheus names (``vllm:num_requests_running``,
``vllm:num_requests_waiting``, ``vllm:generation_tokens_total``,
``vllm:prompt_tokens_total``, ``vllm:time_to_first_token_seconds``,
``vllm:gpu_cache_usage_perc``, each labelled with ``model_name``) and
``GET /health``.

Tokens come out of one decode loop, as from a continuously batching engine:
every step gives one token to each running stream, and a step takes
``1 / per_stream_tps(decode_tps, streams)`` seconds, so one stream alone
decodes at ``decode_tps`` and each added stream slows every stream a little
(the batch reads the weights once but its attention and sampling grow).
At most ``max_streams`` run at once (vLLM's ``max_num_seqs``); the others wait.
A request's first token comes after its prompt is read (``prefill_tps``).

Faults (``ENGINE_FAULTS``): ``die-after`` (the engine stops answering
``die_after`` seconds after it started, as a crashed engine: the port refuses
and open streams are cut), ``hang`` (connections are accepted and never
answered), ``no-model`` (``/v1/models`` lists no model, as an engine still
loading or serving another name).

The server is aiohttp's and runs inside the caller's asyncio loop (the
simulator's, beside its asyncssh servers). It binds to loopback only.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import itertools
import json
import socket
import time
from collections import deque
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

ENGINE_FAULTS = frozenset({"die-after", "hang", "no-model"})
# whose server a simulated engine stands for: its /v1/models owned_by and identity endpoint
SERVER_KINDS = frozenset({"vllm", "sglang"})
VLLM_VERSION = "0.11.1"
SGLANG_VERSION = "0.5.6"
STREAM_SLOWDOWN = 0.04  # each stream beyond the first slows every stream by this fraction
CATCH_UP_S = 1.0
DEFAULT_MAX_TOKENS = 16  # OpenAI's and vLLM's default for /v1/completions
DEFAULT_CHAT_MAX_TOKENS = 128
# vLLM's buckets for vllm:time_to_first_token_seconds (vllm/v1/metrics/loggers.py)
TTFT_BUCKETS = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
    160.0,
    640.0,
    2560.0,
)
_WORDS = ("the", " Spark", " serves", " tokens", " at", " its", " predicted", " rate", ",", " steadily", ".")
_RUNNING: dict[int, SimEngine] = {}


def per_stream_tps(decode_tps: float, streams: int) -> float:
    """Tokens per second of each of ``streams`` streams decoding together."""
    return decode_tps / (1.0 + STREAM_SLOWDOWN * max(streams - 1, 0))


def running_on(port: int) -> SimEngine | None:
    """The engine of this process listening on loopback ``port``, if any."""
    return _RUNNING.get(port)


def count_tokens(text: str) -> int:
    """The simulated tokenizer: one token per whitespace-separated word (at least one)."""
    return max(1, len(text.split()))


def _check_loopback(host: str) -> None:
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ValueError(f"a simulated engine binds to a loopback address only, not {host!r}")


@dataclass(eq=False)
class _Request:
    prompt_tokens: int
    max_tokens: int
    arrived: float
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    ready_at: float = 0.0  # when its prompt is read and it starts decoding
    generated: int = 0
    first_token_at: float | None = None
    cancelled: bool = False


class _Stats(Collector):
    """vLLM's /metrics series from the engine's own figures, read at each scrape."""

    def __init__(self, engine: SimEngine) -> None:
        self._engine = engine

    def collect(self) -> Iterable[Metric]:
        e = self._engine
        labels = ["model_name", "engine"]
        values = [e.model, "0"]

        def gauge(name: str, doc: str, value: float) -> GaugeMetricFamily:
            metric = GaugeMetricFamily(name, doc, labels=labels)
            metric.add_metric(values, value)
            return metric

        def counter(name: str, doc: str, value: float) -> CounterMetricFamily:
            metric = CounterMetricFamily(name, doc, labels=labels)
            metric.add_metric(values, value)
            return metric

        yield gauge("vllm:num_requests_running", "Number of requests in model execution batches.", e.running_count)
        yield gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", e.waiting_count)
        yield gauge("vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", e.cache_usage)
        yield counter("vllm:prompt_tokens", "Number of prefill tokens processed.", e.prompt_tokens_total)
        yield counter("vllm:generation_tokens", "Number of generation tokens processed.", e.generation_tokens_total)
        yield counter("vllm:request_success", "Count of successfully processed requests.", e.requests_finished)
        ttft = HistogramMetricFamily(
            "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", labels=labels
        )
        cumulative = list(itertools.accumulate(e.ttft_counts))
        buckets = [(repr(le), float(n)) for le, n in zip(TTFT_BUCKETS, cumulative[:-1], strict=True)]
        buckets.append(("+Inf", float(cumulative[-1])))
        ttft.add_metric(values, buckets, e.ttft_sum)
        yield ttft


class SimEngine:
    """One simulated engine serving ``model`` (the name clients ask for) at
    ``decode_tps`` tokens per second for a single stream."""

    def __init__(
        self,
        model: str,
        decode_tps: float,
        *,
        fault: str | None = None,
        die_after: float | None = None,
        max_model_len: int = 32768,
        max_streams: int = 256,
        prefill_tps: float | None = None,
        server: str = "vllm",
        speculative: str | None = None,
    ) -> None:
        if server not in SERVER_KINDS:
            raise ValueError(f"server: unknown {server!r}; one of {sorted(SERVER_KINDS)}")
        if not model:
            raise ValueError("model: a served model needs a name")
        if not decode_tps > 0:
            raise ValueError(f"decode_tps: must be positive, got {decode_tps!r}")
        if fault is None and die_after is not None:
            fault = "die-after"
        if fault is not None and fault not in ENGINE_FAULTS:
            raise ValueError(f"fault: unknown {fault!r}; one of {sorted(ENGINE_FAULTS)}")
        if fault == "die-after" and (die_after is None or die_after < 0):
            raise ValueError("die_after: the die-after fault needs a number of seconds")
        self.model = model
        self.server = server  # whose identity it answers with: vLLM's (/version) or SGLang's (/get_server_info)
        self.speculative = speculative  # SGLang's --speculative-algorithm it reports (None: none)
        self.decode_tps = float(decode_tps)
        self.fault = fault
        self.die_after = die_after
        self.max_model_len = max_model_len
        self.max_streams = max_streams
        self.prefill_tps = prefill_tps if prefill_tps is not None else 40.0 * self.decode_tps
        self.port: int | None = None
        self.started_at: float | None = None
        self.dead = False
        self.prompt_tokens_total = 0
        self.generation_tokens_total = 0
        self.requests_finished = 0
        self.ttft_counts = [0] * (len(TTFT_BUCKETS) + 1)
        self.ttft_sum = 0.0
        self._waiting: deque[_Request] = deque()
        self._running: list[_Request] = []
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._death: asyncio.TimerHandle | None = None
        self._runner: web.AppRunner | None = None
        self._ids = itertools.count(1)
        self._registry = CollectorRegistry(auto_describe=False)
        self._registry.register(_Stats(self))

    # ----------------------------------------------------------------- figures

    @property
    def running_count(self) -> int:
        return len(self._running)

    @property
    def waiting_count(self) -> int:
        return len(self._waiting)

    @property
    def cache_usage(self) -> float:
        """The KV cache's share held by running requests (prompt and tokens so far), 0 to 1."""
        held = sum(r.prompt_tokens + r.generated for r in self._running)
        return min(1.0, held / float(self.max_model_len * max(self.max_streams, 1)))

    def metrics_text(self) -> str:
        return generate_latest(self._registry).decode()

    # ----------------------------------------------------------------- serving

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Listen on ``host:port`` (0: any free port); returns the port.
        OSError when the port is taken, ValueError for a non-loopback host."""
        _check_loopback(host)
        if self._runner is not None:
            raise RuntimeError("this engine is already started")
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            # SO_REUSEADDR lets a restarted engine bind over its old connections
            # in TIME_WAIT; a port another socket listens on still refuses.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
        except OSError:
            sock.close()
            raise
        # Stopping cuts open requests after 50 ms (aiohttp reads a timeout of 0 as "wait for ever").
        runner = web.AppRunner(self._app(), handle_signals=False, access_log=None, shutdown_timeout=0.05)
        await runner.setup()
        site = web.SockSite(runner, sock)
        try:
            await site.start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner
        self.port = int(sock.getsockname()[1])
        self.started_at = time.monotonic()
        self._loop_task = asyncio.get_running_loop().create_task(self._decode_loop())
        if self.fault == "die-after" and self.die_after is not None:
            self._death = asyncio.get_running_loop().call_later(self.die_after, self._die)
        _RUNNING[self.port] = self
        return self.port

    async def stop(self) -> None:
        """Stop answering and free the port (open streams are cut)."""
        if self._death is not None:
            self._death.cancel()
            self._death = None
        if self.port is not None and _RUNNING.get(self.port) is self:
            del _RUNNING[self.port]
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop_task
            self._loop_task = None
        for request in [*self._running, *self._waiting]:
            request.cancelled = True
            request.queue.put_nowait(None)
        self._running.clear()
        self._waiting.clear()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    def _die(self) -> None:
        self.dead = True
        self._death = None
        task = asyncio.get_running_loop().create_task(self.stop())
        _PENDING.add(task)
        task.add_done_callback(_PENDING.discard)

    def _app(self) -> web.Application:
        app = web.Application(middlewares=[self._hang_middleware])
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/completions", self._completions)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/health", self._health)
        if self.server == "vllm":
            app.router.add_get("/version", self._version)
        else:
            app.router.add_get("/get_server_info", self._server_info)
        return app

    @web.middleware
    async def _hang_middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if self.fault == "hang":
            await asyncio.Event().wait()  # never answers; cut when the engine stops
        response: web.StreamResponse = await handler(request)
        return response

    async def _health(self, request: web.Request) -> web.Response:
        return web.Response(status=200)

    async def _metrics(self, request: web.Request) -> web.Response:
        return web.Response(body=self.metrics_text().encode(), content_type="text/plain", charset="utf-8")

    async def _version(self, request: web.Request) -> web.Response:
        return web.json_response({"version": VLLM_VERSION})  # vLLM's GET /version

    async def _server_info(self, request: web.Request) -> web.Response:
        # a few of the server arguments SGLang's GET /get_server_info gives, and its version
        return web.json_response(
            {
                "model_path": self.model,
                "tp_size": 1,
                "pp_size": 1,
                "dp_size": 1,
                "disable_cuda_graph": False,
                "speculative_algorithm": self.speculative,
                "internal_states": [{}],
                "version": SGLANG_VERSION,
            }
        )

    async def _models(self, request: web.Request) -> web.Response:
        data = []
        if self.fault != "no-model":
            data.append(
                {
                    "id": self.model,
                    "object": "model",
                    "created": int(time.time()),
                    "owned_by": self.server,  # vLLM's and SGLang's own word for themselves
                    "root": self.model,
                    "parent": None,
                    "max_model_len": self.max_model_len,
                }
            )
        return web.json_response({"object": "list", "data": data})

    # ----------------------------------------------------------------- generation

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        return await self._generate(request, chat=False)

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        return await self._generate(request, chat=True)

    async def _generate(self, request: web.Request, *, chat: bool) -> web.StreamResponse:
        body, problem = await _read_body(request)
        if problem is None:
            assert body is not None
            problem = self._check(body, chat=chat)
        if problem is not None:
            status, message = problem
            return _error(status, message)
        assert body is not None
        prompt_tokens = _prompt_tokens(body, chat=chat)
        default = DEFAULT_CHAT_MAX_TOKENS if chat else DEFAULT_MAX_TOKENS
        max_tokens = int(body.get("max_tokens") or body.get("max_completion_tokens") or default)
        if prompt_tokens + max_tokens > self.max_model_len:
            return _error(
                400,
                f"This model's maximum context length is {self.max_model_len} tokens. However, you requested "
                f"{prompt_tokens + max_tokens} tokens ({prompt_tokens} in the messages, {max_tokens} in the "
                "completion). Please reduce the length of the messages or completion.",
            )
        job = self._submit(prompt_tokens, max_tokens)
        ident = f"{'chatcmpl' if chat else 'cmpl'}-{next(self._ids):08x}"
        shape = _Shape(ident=ident, model=self.model, chat=chat, created=int(time.time()))
        if body.get("stream"):
            options = body.get("stream_options") or {}
            usage = bool(isinstance(options, dict) and options.get("include_usage"))
            return await self._stream(request, job, shape, usage=usage)
        text = "".join([token async for token in _tokens(job)])
        if job.cancelled:
            raise web.HTTPServiceUnavailable()
        return web.json_response(shape.whole(text, job))

    def _check(self, body: dict[str, Any], *, chat: bool) -> tuple[int, str] | None:
        if body.get("model") != self.model:
            return 404, f"The model `{body.get('model')}` does not exist."
        if chat:
            messages = body.get("messages")
            if not isinstance(messages, list) or not messages:
                return 400, "messages: a chat completion needs a non-empty list of messages"
        elif not isinstance(body.get("prompt"), (str, list)):
            return 400, "prompt: a completion needs a prompt"
        for name in ("max_tokens", "max_completion_tokens"):
            value = body.get(name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                return 400, f"{name} must be at least 1, got {value!r}"
        return None

    async def _stream(self, request: web.Request, job: _Request, shape: _Shape, *, usage: bool) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        try:
            if shape.chat:
                await response.write(_sse(shape.chunk(None, role=True)))
            async for token in _tokens(job):
                await response.write(_sse(shape.chunk(token)))
            if job.cancelled:
                return response  # cut, as a crashed engine's stream
            await response.write(_sse(shape.chunk("", finish="length")))
            if usage:
                await response.write(_sse(shape.usage_chunk(job)))
            await response.write(b"data: [DONE]\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            job.cancelled = True  # the client left: the loop drops the request
            raise
        return response

    def _submit(self, prompt_tokens: int, max_tokens: int) -> _Request:
        job = _Request(prompt_tokens=prompt_tokens, max_tokens=max_tokens, arrived=time.monotonic())
        self._waiting.append(job)
        self._wake.set()
        return job

    def _admit(self, now: float) -> None:
        while self._waiting and len(self._running) < self.max_streams:
            job = self._waiting.popleft()
            if job.cancelled:
                continue
            job.ready_at = now + job.prompt_tokens / self.prefill_tps
            self.prompt_tokens_total += job.prompt_tokens
            self._running.append(job)

    async def _decode_loop(self) -> None:
        """One step after another while any request runs: each decoding stream gets a token per step."""
        loop = asyncio.get_running_loop()
        deadline = loop.time()
        while True:
            if not self._running and not self._waiting:
                self._wake.clear()
                await self._wake.wait()
                deadline = loop.time()
            now = time.monotonic()
            self._admit(now)
            self._running = [r for r in self._running if not r.cancelled]
            decoding = [r for r in self._running if r.ready_at <= now]
            if decoding:
                # Steps keep to the clock: a loop that ran late (a busy machine) makes up
                # to CATCH_UP_S of lost steps at once, so the rate over a run stays the engine's.
                step = 1.0 / per_stream_tps(self.decode_tps, len(decoding))
                deadline = max(deadline + step, loop.time() - CATCH_UP_S)
            else:
                first = min((r.ready_at for r in self._running), default=now)
                deadline = loop.time() + max(first - now, 0.001)
            await asyncio.sleep(max(deadline - loop.time(), 0.0))
            now = time.monotonic()
            for job in decoding:
                self._emit(job, now)
            self._running = [r for r in self._running if r.generated < r.max_tokens and not r.cancelled]

    def _emit(self, job: _Request, now: float) -> None:
        if job.cancelled:
            return
        if job.first_token_at is None:
            job.first_token_at = now
            ttft = now - job.arrived
            self.ttft_sum += ttft
            index = next((i for i, le in enumerate(TTFT_BUCKETS) if ttft <= le), len(TTFT_BUCKETS))
            self.ttft_counts[index] += 1
        job.queue.put_nowait(_WORDS[job.generated % len(_WORDS)])
        job.generated += 1
        self.generation_tokens_total += 1
        if job.generated >= job.max_tokens:
            self.requests_finished += 1
            job.queue.put_nowait(None)


_PENDING: set[asyncio.Task[None]] = set()


@dataclass(frozen=True)
class _Shape:
    """The JSON an OpenAI-compatible answer has, completion or chat."""

    ident: str
    model: str
    chat: bool
    created: int

    def _head(self, obj: str) -> dict[str, Any]:
        return {"id": self.ident, "object": obj, "created": self.created, "model": self.model}

    def chunk(self, token: str | None, *, role: bool = False, finish: str | None = None) -> dict[str, Any]:
        if self.chat:
            delta: dict[str, Any] = {"role": "assistant", "content": ""} if role else {"content": token}
            choice: dict[str, Any] = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            return {**self._head("chat.completion.chunk"), "choices": [choice]}
        choice = {"index": 0, "text": token, "logprobs": None, "finish_reason": finish, "stop_reason": None}
        return {**self._head("text_completion"), "choices": [choice], "usage": None}

    def usage_chunk(self, job: _Request) -> dict[str, Any]:
        obj = "chat.completion.chunk" if self.chat else "text_completion"
        return {**self._head(obj), "choices": [], "usage": _usage(job)}

    def whole(self, text: str, job: _Request) -> dict[str, Any]:
        if self.chat:
            message = {"role": "assistant", "content": text, "tool_calls": []}
            choice: dict[str, Any] = {"index": 0, "message": message, "logprobs": None, "finish_reason": "length"}
            return {**self._head("chat.completion"), "choices": [choice], "usage": _usage(job)}
        choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": "length", "stop_reason": None}
        return {**self._head("text_completion"), "choices": [choice], "usage": _usage(job)}


def _usage(job: _Request) -> dict[str, int]:
    return {
        "prompt_tokens": job.prompt_tokens,
        "total_tokens": job.prompt_tokens + job.generated,
        "completion_tokens": job.generated,
    }


def _sse(data: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


def _error(status: int, message: str) -> web.Response:
    kind = {400: "BadRequestError", 404: "NotFoundError"}.get(status, "InternalServerError")
    body = {"object": "error", "message": message, "type": kind, "param": None, "code": status}
    return web.json_response(body, status=status)


async def _read_body(request: web.Request) -> tuple[dict[str, Any] | None, tuple[int, str] | None]:
    try:
        body = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None, (400, "the body is not JSON")
    if not isinstance(body, dict):
        return None, (400, "the body must be a JSON object")
    return body, None


def _prompt_tokens(body: dict[str, Any], *, chat: bool) -> int:
    if chat:
        parts = []
        for message in body.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, list):
                parts.extend(str(p.get("text", "")) for p in content if isinstance(p, dict))
        return count_tokens(" ".join(parts))
    prompt = body.get("prompt")
    if isinstance(prompt, list):
        # a list of token ids, as vllm bench serve may send
        if all(isinstance(t, int) for t in prompt):
            return max(1, len(prompt))
        return count_tokens(" ".join(map(str, prompt)))
    return count_tokens(str(prompt))


async def _tokens(job: _Request) -> AsyncIterator[str]:
    while True:
        token = await job.queue.get()
        if token is None:
            return
        yield token
