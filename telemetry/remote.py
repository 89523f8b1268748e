"""One command on one Spark over SSH, run once: the fleet's key only (no
agent, no ~/.ssh/config), and the host key must be the one an admin accepted
(``telemetry.selectors.accepted_host_key``); output is read up to a bound.

Pure (asyncssh, no Django): benchmark runs and fabric verification both
execute their fixed command on a group's head node through ``run_command``.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass

import asyncssh


@dataclass(frozen=True)
class Target:
    host: str
    port: int
    user: str


_EXITED = re.compile(r"exited with status (\d+)")
STOPPED = "stopped while it ran: its session was closed"
CANCEL_POLL_S = 0.25  # how often a running command looks at its cancel event


@dataclass(frozen=True)
class Outcome:
    output: str
    error: str  # "" when the command ran and exited 0

    @staticmethod
    def exit_status(error: str) -> int | None:
        """The status of a command that ran and failed (its error begins
        "exited with status N"); None for any other error (refused, timed out)."""
        match = _EXITED.match(error)
        return int(match.group(1)) if match else None


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
    stdin: str | None = None,
    cancel: threading.Event | None = None,
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
        if stdin is not None:
            # a script for a fixed interpreter (``bash -s``): its text never reaches a command line
            process.stdin.write(stdin.encode())
            process.stdin.write_eof()
        chunks, size = [], 0
        closer = None if cancel is None else asyncio.create_task(_close_when(cancel, process))
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
        finally:
            if closer is not None:
                closer.cancel()
        text = b"".join(chunks)[:max_bytes].decode(errors="replace")
        if cancel is not None and cancel.is_set():
            return Outcome(text, STOPPED)
        if status is None:
            process.close()
            return Outcome(text, f"output exceeded {max_bytes} bytes: read stopped")
        if status.exit_status not in (0, None):
            stderr = (status.stderr or b"")[-300:]
            stderr_text = stderr.decode(errors="replace") if isinstance(stderr, bytes) else str(stderr)
            said = stderr_text.strip()
            return Outcome(text, f"exited with status {status.exit_status}" + (f": {said}" if said else ""))
        return Outcome(text, "")


async def _close_when(cancel: threading.Event, process: asyncssh.SSHClientProcess[bytes]) -> None:
    """Close the command's session once ``cancel`` is set (from another thread)."""
    while not cancel.is_set():
        await asyncio.sleep(CANCEL_POLL_S)
    process.close()


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
    stdin: str | None = None,
    cancel: threading.Event | None = None,
) -> Outcome:
    """Run ``command`` once on ``target``; every failure is an Outcome error, never an exception.
    ``on_output`` gets the output so far after each chunk (progress); ``stdin`` is sent, then end of file;
    ``cancel``, once set from another thread, closes the session (error ``STOPPED``)."""
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
                stdin=stdin,
                cancel=cancel,
            )
        )
    except asyncssh.HostKeyNotVerifiable:
        return Outcome("", "host key mismatch: the node presented another key than the accepted one; nothing run")
    except asyncssh.PermissionDenied:
        return Outcome("", "authentication refused: the fleet key is not authorised on the head node")
    except (OSError, asyncssh.Error, TimeoutError) as exc:
        reason = getattr(exc, "reason", "") or getattr(exc, "strerror", "") or str(exc) or type(exc).__name__
        return Outcome("", f"could not reach the head node: {reason}")
