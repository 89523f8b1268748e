"""Real servers on 127.0.0.1 for delivery tests: an SMTP server (aiosmtpd)
and an HTTP receiver that can fail a given number of times, then recover."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aiosmtpd.controller import Controller


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Mailbox:
    messages: list[Message] = field(default_factory=list)
    refuse: int = 0  # answer "451 try again later" to this many messages first
    refused: int = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's name
        if self.refused < self.refuse:
            self.refused += 1
            return "451 4.3.0 Try again later"
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"

    def to(self, address: str) -> list[Message]:
        return [m for m in self.messages if address in m["To"]]


@contextmanager
def smtp_server(settings: Any) -> Iterator[Mailbox]:
    box = Mailbox()
    # aiosmtpd needs a port number before it binds; another test worker may
    # take a free one first, so a lost race is simply tried again.
    for attempt in range(5):
        controller = Controller(box, hostname="127.0.0.1", port=free_port())
        try:
            controller.start()
            break
        except OSError:
            if attempt == 4:
                raise
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", controller.port
    try:
        yield box
    finally:
        controller.stop()


@dataclass
class Receiver:
    url: str
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (path, JSON body)
    failures: list[int] = field(default_factory=list)  # status codes to answer first, in order
    lock: threading.Lock = field(default_factory=threading.Lock)
    raw: list[tuple[str, bytes, dict[str, str], int]] = field(default_factory=list)  # (path, body, headers, status)

    def bodies(self, path: str) -> list[dict[str, Any]]:
        return [body for p, body in self.requests if p == path]


@contextmanager
def http_receiver() -> Iterator[Receiver]:
    receiver = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            data = self.rfile.read(int(self.headers["Content-Length"]))
            body = json.loads(data)
            with receiver.lock:
                receiver.requests.append((self.path, body))
                status = receiver.failures.pop(0) if receiver.failures else 200
                receiver.raw.append((self.path, data, dict(self.headers), status))
            self.send_response(status)
            self.end_headers()
            self.wfile.write(b"ok" if status == 200 else b"no")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
