"""Live figures of the engines a serving runs, read from each engine's own
``/metrics`` when a page asks (short timeouts, several engines at once): an
engine that does not answer gives "no answer", never an error page.

The reading is ``telemetry.engine_metrics``'s; tokens per second come from
this reading and the one before it, kept in Django's cache per engine URL
(a first look has no rate yet: it shows once the page refreshes).
"""

from __future__ import annotations

import http.client
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache

from telemetry.engine_metrics import MAX_TEXT, EngineReading, parse_engine_metrics, tokens_per_second

from .conf import metrics_timeout_s

KEEP_S = 120  # an earlier reading older than this gives no rate


@dataclass(frozen=True)
class EngineLive:
    node: str
    url: str  # the engine's OpenAI base URL (…/v1)
    answered: bool
    running: float | None = None
    waiting: float | None = None
    tps: float | None = None
    why: str = ""  # why there is no figure ("no answer: timed out")


@dataclass(frozen=True)
class ServingLive:
    engines: list[EngineLive]

    @property
    def answered(self) -> bool:
        return any(e.answered for e in self.engines)

    def _total(self, name: str) -> float | None:
        values = [getattr(e, name) for e in self.engines if getattr(e, name) is not None]
        return sum(values) if values else None

    @property
    def running(self) -> float | None:
        return self._total("running")

    @property
    def waiting(self) -> float | None:
        return self._total("waiting")

    @property
    def tps(self) -> float | None:
        return self._total("tps")


def metrics_url(engine_url: str) -> str:
    """The engine's /metrics from its OpenAI base URL (http://host:port/v1)."""
    base = engine_url.rstrip("/")
    return (base[: -len("/v1")] if base.endswith("/v1") else base) + "/metrics"


def _fetch(url: str, timeout: float) -> str:
    # Only URLs the serving recorded (http://<the Spark's address>:<port>/metrics) are read.
    with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310
        return str(response.read(MAX_TEXT + 1).decode("utf-8", errors="replace"))


def _one(endpoint: dict[str, Any], model: str | None, timeout: float) -> EngineLive:
    node, url = str(endpoint.get("node", "")), str(endpoint.get("url", ""))
    if not url.startswith("http://"):
        return EngineLive(node, url, False, why="no address")
    target = metrics_url(url)
    try:
        text = _fetch(target, timeout)
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        # refused, timed out, or something else on the port (not HTTP): the engine does not answer
        reason = getattr(exc, "reason", exc)
        return EngineLive(node, url, False, why=f"no answer: {str(reason)[:80]}")
    now = time.time()
    reading = parse_engine_metrics(text, model=model) or parse_engine_metrics(text)
    if reading is None:
        return EngineLive(node, url, True, why="its /metrics has no vLLM or SGLang figures")
    key = f"serving-live:{target}"
    earlier = cache.get(key)
    cache.set(key, (now, reading), KEEP_S)
    rate = None
    if earlier is not None:
        at, before = earlier
        if isinstance(before, EngineReading) and 0 < now - at <= KEEP_S:
            rate = tokens_per_second(before, reading, now - at)
    return EngineLive(node, url, True, reading.running, reading.waiting, rate)


def serving_live(endpoints: list[dict[str, Any]], *, model: str | None = None) -> ServingLive:
    """Each engine's figures now (all engines asked at once, each within FLEET_SERVE_METRICS_TIMEOUT_S)."""
    if not endpoints:
        return ServingLive([])
    timeout = metrics_timeout_s()
    with ThreadPoolExecutor(max_workers=min(8, len(endpoints))) as pool:
        return ServingLive(list(pool.map(lambda e: _one(e, model, timeout), endpoints)))


def many_live(rows: list[tuple[int, list[dict[str, Any]], str]]) -> dict[int, ServingLive]:
    """Figures of several servings at once: {serving id: its engines' figures}."""
    flat = [(pk, e, model) for pk, endpoints, model in rows for e in endpoints]
    if not flat:
        return {}
    timeout = metrics_timeout_s()
    with ThreadPoolExecutor(max_workers=min(16, len(flat))) as pool:
        results = list(pool.map(lambda item: _one(item[1], item[2], timeout), flat))
    out: dict[int, list[EngineLive]] = {}
    for (pk, _e, _m), live in zip(flat, results, strict=True):
        out.setdefault(pk, []).append(live)
    return {pk: ServingLive(engines) for pk, engines in out.items()}
