"""Poll many Sparks over SSH (asyncssh) and turn each answer into a Sample.

One poll of one node = one SSH connection (or a pooled one) and ONE exec of
``POLL_SCRIPT``. Host keys are always verified against the key an admin
accepted: a node without an accepted key is never authenticated to (its key
is only fetched and returned as "unknown"), and a node presenting another key
is never sent a command ("mismatch"). Every node has its own connect and
command timeouts and a bounded read, so a hung, slow, dead or chatty node
costs only its own time. Results are per target and never mixed.

Public API: ``Target``, ``PollResult``, ``poll_nodes`` (async),
``poll_nodes_sync``, ``ConnectionPool``, ``fetch_host_key``, ``normalize_key``.
Storing results is the Django side's job (``on_result`` hook or the list).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import asyncssh

from telemetry.parsers import ParseMemo, parse_poll_output
from telemetry.poll_script import POLL_SCRIPT
from telemetry.sample import HostKeyStatus, PollResult

__all__ = [
    "ConnectionPool",
    "PollResult",
    "Target",
    "fetch_host_key",
    "normalize_key",
    "poll_nodes",
    "poll_nodes_sync",
    "spread_connects",
]


@dataclass(frozen=True, slots=True)
class Target:
    """A node to poll. ``name`` is the inventory name results are filed under."""

    name: str
    host: str
    port: int = 22
    user: str = "fleet"
    # Read its software this time (``poll_nodes``' ``software_script``): due
    # when never read, after FLEET_SOFTWARE_INTERVAL_S, or after a reboot.
    software: bool = False


def normalize_key(text: str | None) -> str | None:
    """``"<algorithm> <base64>"`` without comment or whitespace noise; None if blank."""
    if not text or not text.strip():
        return None
    parts = text.split()
    return " ".join(parts[:2]) if len(parts) >= 2 else None


def _key_text(key: asyncssh.SSHKey | None) -> str | None:
    if key is None:
        return None
    return normalize_key(key.export_public_key("openssh").decode())


class _Client(asyncssh.SSHClient):
    """Remembers the host key a server presented when it was NOT the accepted one,
    and whether the connection dropped (for the pool)."""

    def __init__(self) -> None:
        self.presented: asyncssh.SSHKey | None = None
        self.lost = False

    def validate_host_public_key(self, host: str, addr: str, port: int, key: asyncssh.SSHKey) -> bool:
        self.presented = key
        return False  # only the accepted key (in known_hosts) is trusted

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True


class _Collector(asyncssh.SSHClientSession[bytes]):
    """Reads one exec's output incrementally, stopping past ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._chan: asyncssh.SSHClientChannel[bytes] | None = None
        self.chunks: list[bytes] = []
        self.size = 0
        self.stderr = b""
        self.exceeded = False
        self.exit_status: int | None = None
        self.lost: Exception | None = None
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, chan: asyncssh.SSHClientChannel[bytes]) -> None:
        self._chan = chan

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        if self.exceeded:
            return
        if datatype == asyncssh.EXTENDED_DATA_STDERR:
            self.stderr = (self.stderr + data)[:512]  # only for the error message
            return
        room = self._limit - self.size
        if len(data) > room:
            self.chunks.append(data[:room])
            self.size = self._limit
            self.exceeded = True
            if self._chan is not None:
                self._chan.close()
            self._finish()
            return
        self.chunks.append(data)
        self.size += len(data)

    def exit_status_received(self, status: int) -> None:
        self.exit_status = status

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = exc
        self._finish()

    def _finish(self) -> None:
        if not self.done.done():
            self.done.set_result(None)

    def close(self) -> None:
        if self._chan is not None:
            self._chan.close()


@dataclass
class _Pooled:
    conn: asyncssh.SSHClientConnection
    client: _Client
    identity: tuple[str, int, str, str]  # host, port, user, accepted key


class ConnectionPool:
    """One open SSH connection per node, kept between polls (for a long-lived worker).

    Bound to the event loop it is first used on. A connection that dropped, or
    whose target/accepted key changed, is replaced on the next poll.

    Garbage collection: thousands of open connections are hundreds of
    thousands of long-lived objects, and every full collection of the cyclic
    garbage collector walks all of them, so a poll's cost per node grew with
    the fleet (about 1.7x the bare loop's CPU at 5,000 nodes, 1.3x with the
    collector off). After a poll that opened or dropped at least
    ``gc_freeze_after`` connections, the pool collects once and freezes what
    survives (``gc.freeze``): later collections skip it. Dropped connections
    are reclaimed at the next such point (unfreeze, collect, freeze).
    """

    gc_freeze_after = 64

    def __init__(self) -> None:
        self._entries: dict[str, _Pooled] = {}
        self._memos: dict[str, ParseMemo] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changes = 0  # connections opened or dropped since the last freeze

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        entry = self._entries.get(name)  # type: ignore[call-overload]
        return entry is not None and not entry.client.lost

    def memo(self, name: str) -> ParseMemo:
        """This node's parse memory: kept across reconnects, one per node."""
        memo = self._memos.get(name)
        if memo is None:
            memo = self._memos[name] = ParseMemo()
        return memo

    def _bind(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = loop
        elif self._loop is not loop:
            raise RuntimeError("a ConnectionPool serves one event loop; create one per loop")

    def _take(self, name: str, identity: tuple[str, int, str, str]) -> _Pooled | None:
        entry = self._entries.get(name)
        if entry is None:
            return None
        if entry.identity != identity or entry.client.lost:
            self.discard(name)
            return None
        return entry

    def _put(self, name: str, entry: _Pooled) -> None:
        old = self._entries.get(name)
        if old is not entry:
            self._changes += 1
        if old is not None and old is not entry:
            old.conn.close()  # two overlapping polls of one node: keep one connection, not a leak
        self._entries[name] = entry

    def discard(self, name: str) -> None:
        entry = self._entries.pop(name, None)
        if entry is not None:
            self._changes += 1
            entry.conn.abort()

    def gc_settle(self) -> bool:
        """Freeze the long-lived objects once enough connections changed; True if it did."""
        if self._changes < max(1, self.gc_freeze_after):
            return False
        self._changes = 0
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        return True

    async def close(self) -> None:
        entries, self._entries = list(self._entries.values()), {}
        for entry in entries:
            entry.conn.close()
        for entry in entries:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(entry.conn.wait_closed(), 2.0)


_KNOWN_HOSTS_CACHE: dict[str, asyncssh.SSHKnownHosts] = {}


def _known_hosts_for(accepted: str) -> asyncssh.SSHKnownHosts:
    """An in-memory known_hosts trusting exactly the accepted key for any host name.

    "*" is safe: each connection gets its own list, holding only its node's key.
    """
    known = _KNOWN_HOSTS_CACHE.get(accepted)
    if known is None:
        asyncssh.import_public_key(accepted)  # raises KeyImportError: known_hosts would skip it silently
        known = asyncssh.import_known_hosts(f"* {accepted}\n")
        if len(_KNOWN_HOSTS_CACHE) > 100_000:
            _KNOWN_HOSTS_CACHE.clear()
        _KNOWN_HOSTS_CACHE[accepted] = known
    return known


# AES-GCM first: in asyncssh it costs about a third of the CPU of the default
# chacha20-poly1305 (one native call per packet instead of several), and every
# OpenSSH server offers it. The others stay as fallbacks; the key exchange keeps
# asyncssh's default order (post-quantum hybrid first).
ENCRYPTION_ALGS = (
    "aes128-gcm@openssh.com",
    "aes256-gcm@openssh.com",
    "chacha20-poly1305@openssh.com",
    "aes256-ctr",
    "aes128-ctr",
)


def _base_options(client_keys: Sequence[str], connect_timeout: float) -> asyncssh.SSHClientConnectionOptions:
    keys = [asyncssh.read_private_key(path) for path in client_keys]
    return asyncssh.SSHClientConnectionOptions(
        client_keys=keys,
        agent_path=None,  # never the operator's agent: only the fleet key
        config=None,  # ignore ~/.ssh/config of whoever runs the worker
        preferred_auth="publickey",
        password_auth=False,
        kbdint_auth=False,
        gss_auth=False,
        gss_kex=False,
        host_based_auth=False,
        x509_trusted_certs=None,
        connect_timeout=connect_timeout,
        keepalive_interval=0,
        encryption_algs=ENCRYPTION_ALGS,
    )


def _describe(exc: BaseException, *, connect_timeout: float) -> str:
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        return f"connect timed out after {connect_timeout:g} s"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, asyncssh.PermissionDenied):
        return "authentication refused: the fleet key is not authorised for this user"
    if isinstance(exc, asyncssh.Error):
        return f"SSH error: {exc.reason}"
    if isinstance(exc, OSError):
        return f"network error: {exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"


async def fetch_host_key(target: Target, *, timeout: float = 5.0) -> str:
    """The host key ``target`` presents (OpenSSH text). Key exchange only: no
    authentication is attempted. Raises on network errors and timeouts."""
    key = await asyncio.wait_for(
        asyncssh.get_server_host_key(target.host, target.port, config=None),
        timeout,
    )
    text = _key_text(key)
    if text is None:
        raise asyncssh.KeyExchangeFailed("server presented no host key")
    return text


class _Poll:
    """Settings and shared objects of one poll_nodes call."""

    def __init__(
        self,
        *,
        options: asyncssh.SSHClientConnectionOptions,
        known_hosts: Mapping[str, str | None],
        connect_timeout: float,
        command_timeout: float,
        max_output_bytes: int,
        pool: ConnectionPool | None,
        software_script: str | None = None,
    ) -> None:
        self.software_script = software_script
        self.options = options
        self.known_hosts = known_hosts
        self.connect_timeout = connect_timeout
        self.command_timeout = command_timeout
        self.max_output_bytes = max_output_bytes
        self.pool = pool

    async def poll(self, target: Target) -> PollResult:
        start = time.monotonic()
        at = datetime.now(UTC)

        def result(**fields: Any) -> PollResult:
            fields.setdefault("sample", None)
            fields.setdefault("error", "")
            return PollResult(
                name=target.name, at=at, duration_ms=round((time.monotonic() - start) * 1000, 1), **fields
            )

        accepted = normalize_key(self.known_hosts.get(target.name))
        known: asyncssh.SSHKnownHosts | None = None
        problem = ""
        if accepted is not None:
            try:
                known = _known_hosts_for(accepted)
            except (asyncssh.KeyImportError, ValueError):
                problem = "the accepted host key is not a valid OpenSSH public key; "
                accepted = None
        if accepted is None or known is None:
            return await self._fetch_key_only(target, problem, result)

        identity = (target.host, target.port, target.user, accepted)
        script = self.script_for(target)
        entry = self.pool._take(target.name, identity) if self.pool else None
        for attempt in (0, 1):
            reused = entry is not None
            if entry is None:
                made = await self._connect(target, known, accepted, identity, result)
                if isinstance(made, PollResult):
                    return made
                entry = made
            outcome = await self._exec(entry.conn, script)
            if outcome is None and reused and attempt == 0:
                # The pooled connection died since the last poll: reconnect once.
                assert self.pool is not None
                self.pool.discard(target.name)
                entry = None
                continue
            break
        assert entry is not None
        if self.pool is not None and not entry.client.lost:
            self.pool._put(target.name, entry)
        else:
            entry.conn.close()
        if outcome is None:
            return result(
                reachable=True,
                host_key=accepted,
                host_key_status="ok",
                error="could not open a session channel (connection lost)",
            )
        text, error = outcome
        memo = self.pool.memo(target.name) if self.pool is not None else None
        sample = parse_poll_output(text, memo) if text else None
        return result(reachable=True, sample=sample, error=error, host_key=accepted, host_key_status="ok")

    async def _fetch_key_only(self, target: Target, problem: str, result: Callable[..., PollResult]) -> PollResult:
        """Never authenticate to a node whose key nobody accepted: fetch the
        key for an admin to review, and stop there."""
        try:
            presented = await fetch_host_key(target, timeout=self.connect_timeout)
        except Exception as exc:  # any failure is this node's result, not the batch's
            return result(
                reachable=False,
                error=problem + _describe(exc, connect_timeout=self.connect_timeout),
                host_key=None,
                host_key_status="unknown",
            )
        return result(
            reachable=True,
            error=problem + "host key not accepted yet: no command run",
            host_key=presented,
            host_key_status="unknown",
        )

    async def _connect(
        self,
        target: Target,
        known: asyncssh.SSHKnownHosts,
        accepted: str,
        identity: tuple[str, int, str, str],
        result: Callable[..., PollResult],
    ) -> _Pooled | PollResult:
        """A new connection verified against the accepted key, or the node's result when there is none."""
        client = _Client()
        try:
            conn, _ = await asyncssh.create_connection(
                lambda client=client: client,  # type: ignore[misc]
                target.host,
                target.port,
                options=self.options,
                username=target.user,
                known_hosts=known,
            )
        except asyncssh.HostKeyNotVerifiable:
            return result(
                reachable=True,
                host_key=_key_text(client.presented),
                host_key_status="mismatch",
                error="host key mismatch: the node presented a different key than the accepted one; no command run",
            )
        except asyncssh.KeyExchangeFailed as exc:
            # E.g. the node now offers only another key type: still a mismatch.
            try:
                presented_text = await fetch_host_key(target, timeout=self.connect_timeout)
            except Exception:  # the original error says more
                return result(
                    reachable=False,
                    host_key=None,
                    host_key_status="ok",
                    error=_describe(exc, connect_timeout=self.connect_timeout),
                )
            status: HostKeyStatus = "ok" if presented_text == accepted else "mismatch"
            return result(
                reachable=True,
                host_key=presented_text,
                host_key_status=status,
                error=_describe(exc, connect_timeout=self.connect_timeout),
            )
        except Exception as exc:  # refused, timed out, auth refused, reset...
            reachable = isinstance(exc, asyncssh.PermissionDenied)
            return result(
                reachable=reachable,
                host_key=accepted if reachable else None,
                host_key_status="ok",
                error=_describe(exc, connect_timeout=self.connect_timeout),
            )
        return _Pooled(conn, client, identity)

    def script_for(self, target: Target) -> str:
        """POLL_SCRIPT, or the same with the software sections when they are due."""
        return self.software_script if target.software and self.software_script else POLL_SCRIPT

    async def _exec(self, conn: asyncssh.SSHClientConnection, script: str = POLL_SCRIPT) -> tuple[str, str] | None:
        """Run the script once. None if the channel could not even be opened."""
        collector: _Collector | None = None

        def factory() -> _Collector:
            nonlocal collector
            collector = _Collector(self.max_output_bytes)
            return collector

        timed_out = False
        # asyncio.timeout, not wait_for: no extra task per node (measurable at 1,000 nodes).
        try:
            async with asyncio.timeout(self.command_timeout):
                await conn.create_session(factory, script, encoding=None)
                assert collector is not None
                await collector.done
        except TimeoutError:  # before OSError: TimeoutError is one
            if collector is None:
                return "", f"command timed out after {self.command_timeout:g} s (no channel)"
            timed_out = True
            collector.close()
        except (asyncssh.ChannelOpenError, asyncssh.DisconnectError, OSError):
            if collector is None or collector.size == 0:
                return None
            collector.lost = collector.lost or ConnectionError("channel failed")
        assert collector is not None
        text = b"".join(collector.chunks).decode("utf-8", errors="replace")
        if collector.exceeded:
            error = f"output exceeded {self.max_output_bytes} bytes: read stopped"
        elif timed_out:
            error = f"command timed out after {self.command_timeout:g} s ({collector.size} bytes received)"
        elif collector.lost is not None:
            error = f"connection lost after {collector.size} bytes: {collector.lost}"
        elif collector.exit_status not in (0, None):
            stderr = collector.stderr.decode("utf-8", errors="replace").strip()
            error = f"command exited with status {collector.exit_status}: {stderr[:200]}"
        elif collector.exit_status is None:
            error = f"channel closed without exit status after {collector.size} bytes"
        else:
            error = ""
        return text, error


async def poll_nodes(
    targets: Sequence[Target],
    *,
    client_keys: list[str],
    known_hosts: Mapping[str, str | None],
    concurrency: int = 64,
    connect_timeout: float = 5.0,
    command_timeout: float = 10.0,
    max_output_bytes: int = 1_000_000,
    pool: ConnectionPool | None = None,
    on_result: Callable[[PollResult], Awaitable[None] | None] | None = None,
    connect_at: Mapping[str, float] | None = None,
    software_script: str | None = None,
    stop_at: float | None = None,
) -> list[PollResult]:
    """Poll every target at most ``concurrency`` at a time; one result per target, in order
    (targets not started by ``stop_at`` have none).

    ``client_keys``: paths of private key files (the fleet's key).
    ``known_hosts``: node name -> accepted OpenSSH public key text, or None
    when no key was accepted yet (the node is then only asked for its key).
    ``pool``: reuse connections between calls (same event loop only).
    ``on_result``: called as each node finishes (plain or async), e.g. to store
    samples without waiting for the slowest node; an exception it raises
    propagates out of poll_nodes. A node's own failure never raises: it is in
    that node's PollResult.
    ``connect_at``: node name -> Unix time before which a NEW connection to
    that node (key exchange included) is not started; a node with an open
    pooled connection is polled at once. A worker's first round passes evenly
    spaced times so its key exchanges spread over the interval instead of
    bursting (``spread_connects``). The wait happens before the node takes a
    concurrency slot, so warm nodes never queue behind it.
    ``software_script``: what targets marked ``software`` are sent instead of
    POLL_SCRIPT (``telemetry.software_script.software_poll_script``).
    ``stop_at``: Unix time after which no node is started (its turn, or its
    spread connect time, came too late); those nodes get no result, so the
    caller can hand them on instead of reporting them unreachable.
    """
    names = [t.name for t in targets]
    if len(set(names)) != len(names):
        raise ValueError("target names must be unique: results are filed by name")
    if concurrency < 1 or max_output_bytes < 1:
        raise ValueError("concurrency and max_output_bytes must be positive")
    if pool is not None:
        pool._bind()
    poll = _Poll(
        options=_base_options(client_keys, connect_timeout),
        known_hosts=known_hosts,
        connect_timeout=connect_timeout,
        command_timeout=command_timeout,
        max_output_bytes=max_output_bytes,
        pool=pool,
        software_script=software_script,
    )
    semaphore = asyncio.Semaphore(concurrency)
    # Hard ceiling per node: connect, command, and one reconnect of a stale pooled connection.
    ceiling = 2 * (connect_timeout + command_timeout) + 1.0

    async def one(target: Target) -> PollResult | None:
        if connect_at is not None and (pool is None or target.name not in pool):
            due = connect_at.get(target.name, 0.0)
            if stop_at is not None and due >= stop_at:
                return None
            delay = due - time.time()
            if delay > 0:
                await asyncio.sleep(delay)
        async with semaphore:
            if stop_at is not None and time.time() >= stop_at:
                return None
            started = datetime.now(UTC)
            try:
                async with asyncio.timeout(ceiling):
                    res = await poll.poll(target)
            except Exception as exc:  # a bug or the ceiling: still this node's result only
                if pool is not None:
                    pool.discard(target.name)
                reason = f"exceeded {ceiling:g} s" if isinstance(exc, TimeoutError) else repr(exc)
                elapsed = (datetime.now(UTC) - started).total_seconds() * 1000
                res = PollResult(
                    name=target.name,
                    at=started,
                    reachable=False,
                    sample=None,
                    error=f"poll failed: {reason}",
                    host_key=None,
                    host_key_status="ok",
                    duration_ms=round(elapsed, 1),
                )
        if on_result is not None:
            maybe = on_result(res)
            if asyncio.iscoroutine(maybe):
                await maybe
        return res

    results = [r for r in await asyncio.gather(*(one(t) for t in targets)) if r is not None]
    if pool is not None:
        pool.gc_settle()
    return results


def spread_connects(names: Sequence[str], *, start: float, slot_s: float) -> dict[str, float]:
    """Evenly spaced connect times: the i-th name may connect at ``start + i * slot_s``."""
    return {name: start + index * slot_s for index, name in enumerate(names)}


def poll_nodes_sync(
    targets: Sequence[Target],
    *,
    client_keys: list[str],
    known_hosts: Mapping[str, str | None],
    concurrency: int = 64,
    connect_timeout: float = 5.0,
    command_timeout: float = 10.0,
    max_output_bytes: int = 1_000_000,
    software_script: str | None = None,
    stop_at: float | None = None,
) -> list[PollResult]:
    """``poll_nodes`` for synchronous callers (a Celery task): fresh connections,
    its own event loop. Long-lived async workers should use ``poll_nodes``
    with a ``ConnectionPool`` instead."""
    return asyncio.run(
        poll_nodes(
            targets,
            client_keys=client_keys,
            known_hosts=known_hosts,
            concurrency=concurrency,
            connect_timeout=connect_timeout,
            command_timeout=command_timeout,
            max_output_bytes=max_output_bytes,
            software_script=software_script,
            stop_at=stop_at,
        )
    )
